// Transfers straight to the bucket through signed URLs: XMLHttpRequest where it exists (browsers:
// it reports upload progress, which fetch cannot over HTTP/1.1), fetch elsewhere.

import { TRANSFER_STALL_TIMEOUT_MS } from './constants.ts'
import { WaybillError } from './errors.ts'
import { abortReason, throwIfAborted, withRetries, type RetryPolicy } from './retry.ts'

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
const SET_BY_BROWSER = /^(content-length|host)$/i

function sendableHeaders(headers: Readonly<Record<string, string>> | undefined) {
  return Object.entries(headers ?? {}).filter(([name]) => !SET_BY_BROWSER.test(name))
}

const pageOrigin = () => (globalThis as { location?: { origin: string } }).location?.origin

function unreachable(what: string, cause?: unknown): WaybillError {
  const page = pageOrigin()
  return new WaybillError(
    'network_error',
    `The bucket could not be reached for ${what}: the network failed, or its CORS rules do not allow ${page ?? 'this page'}.`,
    { cause },
  )
}

/**
 * The store's refusal, with the Code and Message of its S3 XML error when it sent one, or the
 * detail of waybill's own problem (an R2 origin's URLs, which waybill serves itself).
 */
function refused(what: string, status: number, text: string): WaybillError {
  // waybill's own problem (an R2 origin's URLs) says why in its detail, S3's XML in its Code.
  const found = /<Code>([^<]*)<\/Code>|"detail":"([^"]*)/.exec(text)
  const code = found?.[1] ?? found?.[2]
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1]
  const reason =
    code === undefined ? '' : `: ${code}${message === undefined ? '' : ` (${message})`}`
  return new WaybillError('store_error', `The bucket refused ${what} with ${status}${reason}.`, {
    status,
  })
}

/** True when a store refused a transfer because its URL had expired. */
function isExpiredRefusal(error: unknown): boolean {
  return (
    error instanceof WaybillError &&
    error.code === 'store_error' &&
    error.status === 403 &&
    /expired/i.test(error.message)
  )
}

async function viaXhr(request: TransferRequest): Promise<TransferResult> {
  const { signal, what, size, onProgress } = request
  throwIfAborted(signal)
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    let stallTimer: ReturnType<typeof setTimeout> | undefined
    // Why the transfer ended without an answer, when it did.
    let failure = (): unknown => unreachable(what)
    // Abandons a transfer that has not moved for a while: a dead connection never errors by itself.
    const alive = () => {
      clearTimeout(stallTimer)
      stallTimer = setTimeout(() => {
        failure = () =>
          new WaybillError(
            'network_error',
            `${what} sent nothing for ${TRANSFER_STALL_TIMEOUT_MS / 1000} s.`,
          )
        xhr.abort()
      }, TRANSFER_STALL_TIMEOUT_MS)
    }
    const onAbort = () => {
      failure = () => abortReason(signal!)
      xhr.abort()
    }
    const settle = (then: () => void) => () => {
      clearTimeout(stallTimer)
      signal?.removeEventListener('abort', onAbort)
      then()
    }
    xhr.open(request.method, request.url)
    for (const [name, value] of sendableHeaders(request.headers)) xhr.setRequestHeader(name, value)
    xhr.upload.onprogress = (event) => {
      alive()
      if (event.lengthComputable && event.total > 0) {
        onProgress?.(Math.min(size, (event.loaded / event.total) * size))
      }
    }
    xhr.onprogress = alive
    xhr.onload = settle(() => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress?.(size)
        resolve({ status: xhr.status, etag: xhr.getResponseHeader('etag') ?? undefined })
      } else {
        reject(refused(what, xhr.status, xhr.responseText))
      }
    })
    // An abort rejects with the signal's reason, whatever it is (as fetch does).
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    xhr.onerror = xhr.onabort = settle(() => reject(failure()))
    signal?.addEventListener('abort', onAbort, { once: true })
    alive()
    xhr.send(request.body)
  })
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
function transfer(doFetch: typeof fetch, request: TransferRequest): Promise<TransferResult> {
  return typeof XMLHttpRequest === 'function' ? viaXhr(request) : viaFetch(doFetch, request)
}

/**
 * Sends what `sign(again)` answers, retrying what may pass later (`policy`). `again` is true for a
 * retry, and after a store refused an expired URL (tried once more within the attempt): the URL
 * must then be signed anew. `settle(error)` true takes a refusal as done (undefined).
 */
export function sendSigned(
  doFetch: typeof fetch,
  policy: RetryPolicy,
  sign: (again: boolean) => Promise<Omit<TransferRequest, 'signal' | 'onProgress'>>,
  onProgress: (loaded: number) => void,
  settle: (error: unknown) => boolean = () => false,
): Promise<TransferResult | undefined> {
  return withRetries(policy, async (attempt) => {
    for (let expired = false; ; expired = true) {
      const request = await sign(attempt > 0 || expired)
      try {
        onProgress(0)
        return await transfer(doFetch, { ...request, signal: policy.signal, onProgress })
      } catch (error) {
        onProgress(0)
        if (settle(error)) return undefined
        if (expired || !isExpiredRefusal(error)) throw error
      }
    }
  })
}
