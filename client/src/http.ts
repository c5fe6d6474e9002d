// Calls to waybill's API: the credential on each request (never in a URL), problem answers as
// WaybillError, timeouts, retries, and the server's clock for URL expiries.

import { API_TIMEOUT_MS, DEFAULT_RETRIES, DEFAULT_RETRY_BASE_DELAY_MS } from './constants.ts'
import { errorFromResponse, WaybillError } from './errors.ts'
import { anySignal, throwIfAborted, withRetries } from './retry.ts'

/** Returns the bearer credential (an API key or a JWT) for one request, or nothing. */
export type AuthProvider = () => string | null | undefined | Promise<string | null | undefined>

/** Options of `createClient`. */
export interface ClientOptions {
  /** Where waybill answers: `https://waybill.example.com`, or a path on this page's origin. */
  baseUrl: string | URL
  /**
   * The bearer credential, asked for before every request (so a token can be refreshed): an API
   * key or a JWT, sent as `Authorization: Bearer …`. Undefined or empty sends none.
   */
  auth?: AuthProvider | undefined
  /**
   * `'include'` sends cookies (Cloudflare Access, or the JWT cookie on redirects) to a waybill on
   * another origin; its WAYBILL_CORS must then allow credentials. Default `'same-origin'`.
   */
  credentials?: RequestCredentials | undefined
  /**
   * For waybill's API and, where XMLHttpRequest does not exist, transfers to the bucket.
   * Default: the global `fetch`.
   */
  fetch?: typeof fetch | undefined
  /** Retries of a failed call or transfer (network errors, 429, 5xx; never other 4xx). Default 3. */
  retries?: number | undefined
  /** The first retry waits about this long, each next one twice as long. Default 500 ms. */
  retryBaseDelayMs?: number | undefined
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call. */
  signal?: AbortSignal | undefined
  /** Overrides the client's `retries` for this call. */
  retries?: number | undefined
}

type QueryValue = string | number | boolean | undefined | readonly string[]

interface ApiRequest {
  method: 'GET' | 'POST'
  path: string
  query?: Readonly<Record<string, QueryValue>> | undefined
  body?: unknown
  accept?: string | undefined
  cache?: RequestCache | undefined
}

/** The client's connection to waybill, shared by every call. */
export interface Http {
  readonly fetch: typeof fetch
  readonly retries: number
  readonly retryBaseDelayMs: number
  /** An absolute URL on waybill: `path` below the base URL, with `query` encoded. */
  url(path: string, query?: Readonly<Record<string, QueryValue>>): string
  /** A JSON call: the answer's body, or the WaybillError of a problem; retried. */
  json<T>(request: ApiRequest, options?: CallOptions): Promise<T>
  /** A call whose body is read as it arrives (NDJSON): the successful response; retried. */
  open(request: ApiRequest, options?: CallOptions): Promise<Response>
  /** When an `expiresAt` of waybill's falls on this machine's clock (milliseconds). */
  localTime(serverTime: string): number
}

/**
 * A query string encoded with `encodeURIComponent`: spaces as `%20`, never `+`, which servers
 * decode differently in a query.
 */
function queryString(query: Readonly<Record<string, QueryValue>>): string {
  const pairs: string[] = []
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === false) continue
    const values = typeof value === 'object' ? value : [value === true ? '' : String(value)]
    for (const one of values) {
      pairs.push(one === '' ? encodeURIComponent(name) : `${name}=${encodeURIComponent(one)}`)
    }
  }
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`
}

function baseOf(baseUrl: string | URL): string {
  const pageUrl = (globalThis as { location?: { href: string } }).location?.href
  let url: URL | undefined
  try {
    url = new URL(baseUrl, pageUrl)
  } catch {
    // Told below.
  }
  if (url === undefined || url.username || url.password || url.search || url.hash) {
    throw new WaybillError(
      'invalid_argument',
      `baseUrl "${String(baseUrl)}" must be an origin and path, without credentials, query or fragment.`,
    )
  }
  return url.origin + url.pathname.replace(/\/+$/, '')
}

export function createHttp(options: ClientOptions): Http {
  const base = baseOf(options.baseUrl)
  // Called as a plain function: a browser's fetch refuses to run as a method of another object.
  const doFetch: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const retries = options.retries ?? DEFAULT_RETRIES
  const retryBaseDelayMs = options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS
  // The server's clock less this one's, from the Date header of its answers (when readable: a
  // cross-origin waybill does not expose it). URL expiries are on the server's clock.
  let skewMs = 0
  const page = (globalThis as { location?: { origin: string } }).location?.origin
  // Until waybill has answered once, a page on another origin that gets no answer asks again
  // without CORS (an opaque `no-cors` GET of /healthz): when that one arrives, waybill is up and
  // its CORS rules refuse this page, which no retry mends.
  let answered = page === undefined || page === new URL(base).origin
  const corsRefused = () =>
    !answered &&
    doFetch(url('/healthz'), { mode: 'no-cors', credentials: 'omit' }).then(
      () => true,
      () => false,
    )

  const url = (path: string, query?: Readonly<Record<string, QueryValue>>) =>
    base + path + (query === undefined ? '' : queryString(query))

  async function send(request: ApiRequest, signal: AbortSignal | undefined, read: boolean) {
    const credential = await options.auth?.()
    const headers: Record<string, string> = { accept: request.accept ?? 'application/json' }
    if (credential) headers.authorization = `Bearer ${credential}`
    if (request.body !== undefined) headers['content-type'] = 'application/json'
    // Told as a network_error below.
    const timeout = new AbortController()
    const timer = setTimeout(() => timeout.abort(), API_TIMEOUT_MS)
    const linked = anySignal([signal, timeout.signal])
    const what = `${request.method} ${request.path}`
    // A streamed body is read after this returns: the caller's signal must still reach it.
    let keepLinked = false
    try {
      let response: Response
      try {
        response = await doFetch(url(request.path, request.query), {
          method: request.method,
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          credentials: options.credentials ?? 'same-origin',
          cache: request.cache,
          signal: linked.signal,
        })
      } catch (error) {
        throwIfAborted(signal)
        if (!timeout.signal.aborted && (await corsRefused())) {
          throw new WaybillError(
            'cors_refused',
            `waybill at ${base} answers, but its CORS rules do not allow this page (${page}): add it to WAYBILL_CORS.`,
            { cause: error },
          )
        }
        throw new WaybillError(
          'network_error',
          timeout.signal.aborted
            ? `waybill did not answer ${what} within ${API_TIMEOUT_MS / 1000} s.`
            : `waybill could not be reached for ${what}: the network failed, or its CORS rules do not allow this page.`,
          { cause: error },
        )
      }
      answered = true
      const date = response.headers.get('date')
      if (date !== null && !Number.isNaN(Date.parse(date))) skewMs = Date.parse(date) - Date.now()
      if (!response.ok) throw await errorFromResponse(response)
      if (!read) {
        keepLinked = true
        return { response, body: undefined }
      }
      let body: unknown
      try {
        body = response.status === 204 ? undefined : await response.json()
      } catch (error) {
        throwIfAborted(signal)
        throw new WaybillError(
          timeout.signal.aborted ? 'network_error' : 'bad_answer',
          `waybill's answer to ${what} could not be read as JSON.`,
          { status: response.status, cause: error },
        )
      }
      return { response, body }
    } finally {
      clearTimeout(timer)
      if (!keepLinked) linked.dispose()
    }
  }

  const policy = (options_: CallOptions | undefined) => ({
    retries: options_?.retries ?? retries,
    baseDelayMs: retryBaseDelayMs,
    signal: options_?.signal,
  })

  return {
    fetch: doFetch,
    retries,
    retryBaseDelayMs,
    url,
    json: <T>(request: ApiRequest, callOptions?: CallOptions) =>
      withRetries(policy(callOptions), async () => {
        const { body } = await send(request, callOptions?.signal, true)
        return body as T
      }),
    open: (request, callOptions) =>
      withRetries(policy(callOptions), async () => {
        const { response } = await send(request, callOptions?.signal, false)
        return response
      }),
    localTime: (serverTime) => Date.parse(serverTime) - skewMs,
  }
}
