// Transfers straight to the bucket through signed URLs: XMLHttpRequest where it exists (browsers:
// it reports upload progress, which fetch cannot over HTTP/1.1), fetch elsewhere.

import { TRANSFER_STALL_TIMEOUT_MS } from './constants.ts'
import { WaybillError } from './errors.ts'
import { abortReason, throwIfAborted } from './retry.ts'

export interface TransferRequest {
  method: 'PUT' | 'POST'
  url: string
  /** Exactly what waybill said to send. */
  headers?: Readonly<Record<string, string>> | undefined
  body: Blob | FormData
  /** Bytes of the file in the body (a POST form's body also holds its fields). */
  size: number
  /** What is sent, for messages: "the PUT", "part 3". */
  what: string
  signal?: AbortSignal | undefined
  /** Bytes of the file sent so far. */
  onProgress?: ((loaded: number) => void) | undefined
}

export interface TransferResult {
  status: number
  /** The stored object's or part's ETag, when the bucket's CORS rules expose it. */
  etag: string | undefined
}

// A browser computes Content-Length from the body and refuses to be told it (XMLHttpRequest
// logs an error for each attempt); the signature still pins it.
const SET_BY_BROWSER = new Set(['content-length', 'host'])

function sendableHeaders(headers: Readonly<Record<string, string>> | undefined) {
  return Object.entries(headers ?? {}).filter(([name]) => !SET_BY_BROWSER.has(name.toLowerCase()))
}

const pageOrigin = () => (globalThis as { location?: { origin: string } }).location?.origin

function unreachable(what: string, cause?: unknown): WaybillError {
  const page = pageOrigin()
  return new WaybillError(
    'network_error',
    `The bucket could not be reached for ${what}: the network failed, or the bucket's CORS rules do not allow ${page === undefined ? 'this page' : `this page (${page})`}.`,
    { cause },
  )
}

/** The store's refusal, with the Code and Message of its S3 XML error when it sent one. */
function refused(what: string, status: number, text: string): WaybillError {
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1]
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1]
  const reason =
    code === undefined ? '' : `: ${code}${message === undefined ? '' : ` (${message})`}`
  return new WaybillError('store_error', `The bucket refused ${what} with ${status}${reason}.`, {
    status,
  })
}

/** True when a store refused a transfer because its URL had expired. */
export function isExpiredRefusal(error: unknown): boolean {
  return (
    error instanceof WaybillError &&
    error.code === 'store_error' &&
    error.status === 403 &&
    /expired/i.test(error.message)
  )
}

async function viaXhr(request: TransferRequest): Promise<TransferResult> {
  const { signal } = request
  throwIfAborted(signal)
  // Undefined when the caller's signal aborted it.
  const result = await new Promise<TransferResult | undefined>((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    let stalled = false
    let stallTimer: ReturnType<typeof setTimeout> | undefined
    // Abandons a transfer that has not moved for a while: a dead connection never errors by itself.
    const alive = () => {
      clearTimeout(stallTimer)
      stallTimer = setTimeout(() => {
        stalled = true
        xhr.abort()
      }, TRANSFER_STALL_TIMEOUT_MS)
    }
    const onAbort = () => xhr.abort()
    const settle = () => {
      clearTimeout(stallTimer)
      signal?.removeEventListener('abort', onAbort)
    }
    xhr.open(request.method, request.url)
    for (const [name, value] of sendableHeaders(request.headers)) xhr.setRequestHeader(name, value)
    xhr.upload.addEventListener('progress', (event) => {
      alive()
      if (event.lengthComputable && event.total > 0) {
        request.onProgress?.(Math.min(request.size, (event.loaded / event.total) * request.size))
      }
    })
    xhr.addEventListener('progress', alive)
    xhr.addEventListener('load', () => {
      settle()
      if (xhr.status >= 200 && xhr.status < 300) {
        request.onProgress?.(request.size)
        resolve({ status: xhr.status, etag: xhr.getResponseHeader('etag') ?? undefined })
      } else {
        reject(refused(request.what, xhr.status, xhr.responseText))
      }
    })
    xhr.addEventListener('error', () => {
      settle()
      reject(unreachable(request.what))
    })
    xhr.addEventListener('abort', () => {
      settle()
      if (signal?.aborted) resolve(undefined)
      else
        reject(
          stalled
            ? new WaybillError(
                'network_error',
                `${request.what} sent nothing for ${TRANSFER_STALL_TIMEOUT_MS / 1000} s.`,
              )
            : unreachable(request.what),
        )
    })
    signal?.addEventListener('abort', onAbort, { once: true })
    alive()
    xhr.send(request.body)
  })
  if (result === undefined) throw abortReason(signal!)
  return result
}

async function viaFetch(doFetch: typeof fetch, request: TransferRequest): Promise<TransferResult> {
  let response: Response
  try {
    response = await doFetch(request.url, {
      method: request.method,
      headers: sendableHeaders(request.headers),
      body: request.body,
      // A signed URL is the whole authorization; the bucket gets no cookies.
      credentials: 'omit',
      signal: request.signal,
    })
  } catch (error) {
    throwIfAborted(request.signal)
    throw unreachable(request.what, error)
  }
  // Read to the end (usually empty), so the exchange completes rather than being dropped.
  const text = await response.text().catch(() => '')
  throwIfAborted(request.signal)
  if (!response.ok) throw refused(request.what, response.status, text)
  request.onProgress?.(request.size)
  return { status: response.status, etag: response.headers.get('etag') ?? undefined }
}

/**
 * Sends `request.body` to a signed URL. Rejects with a WaybillError: `network_error` when no
 * answer came (retryable), `store_error` with the store's status and code when it refused.
 */
export function transfer(doFetch: typeof fetch, request: TransferRequest): Promise<TransferResult> {
  return typeof XMLHttpRequest === 'function' ? viaXhr(request) : viaFetch(doFetch, request)
}
