import type { ProblemCode } from './generated.ts'

export type { ProblemCode }

/**
 * What went wrong outside waybill's own answers: `network_error` (no answer: offline, DNS, a
 * timeout, or CORS rules that do not allow the page), `cors_refused` (waybill answers, but its
 * CORS rules do not allow this page: not retried), `store_error` (the bucket refused a transfer),
 * `http_error` (an answer that is not a problem waybill describes), `bad_answer` (an answer the
 * client cannot use), `invalid_argument` (the call itself is wrong), `refused` (the caller's
 * upload rules refuse the file: nothing was sent).
 */
export type ClientErrorCode =
  | 'network_error'
  | 'cors_refused'
  | 'store_error'
  | 'http_error'
  | 'bad_answer'
  | 'invalid_argument'
  | 'refused'

export type ErrorCode = ProblemCode | ClientErrorCode

/** One field at fault: `path` is a dotted path into the request, such as `items.3.key`. */
export interface FieldError {
  path: string
  message: string
}

const PROBLEM_TYPE = 'urn:waybill:problem:'

interface ErrorDetails {
  status?: number | undefined
  type?: string | undefined
  title?: string | undefined
  errors?: readonly FieldError[] | undefined
  requestId?: string | undefined
  retryAfterMs?: number | undefined
  cause?: unknown
}

/**
 * Every error the client raises (aborts reject with the signal's reason instead). For an answer
 * from waybill, `message` is the server's problem `detail`, written for people: show it.
 *
 * @example
 * try {
 *   await client.upload(file, { origin: 'photos', key: 'a.png' })
 * } catch (error) {
 *   if (error instanceof WaybillError && error.code === 'invalid_request') {
 *     for (const { path, message } of error.errors) console.log(path, message)
 *   }
 *   showMessage(error instanceof Error ? error.message : String(error))
 * }
 */
export class WaybillError extends Error {
  readonly code: ErrorCode
  /** The HTTP status, or 0 when no answer arrived. */
  readonly status: number
  /** The problem's type URI: `urn:waybill:problem:<code>` from waybill, `urn:waybill:client:<code>` otherwise. */
  readonly type: string
  readonly title: string
  /** The same text as `message`. */
  readonly detail: string
  /** Every field at fault, when waybill listed them. */
  readonly errors: readonly FieldError[]
  /** `Waybill-Request-Id` of the answer, to find its log line. */
  readonly requestId: string | undefined
  /** How long the server asked to wait (`Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | undefined

  constructor(code: ErrorCode, detail: string, details: ErrorDetails = {}) {
    super(detail, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = 'WaybillError'
    this.code = code
    this.status = details.status ?? 0
    this.type = details.type ?? `urn:waybill:client:${code}`
    this.title = details.title ?? code.replaceAll('_', ' ')
    this.detail = detail
    this.errors = details.errors ?? []
    this.requestId = details.requestId
    this.retryAfterMs = details.retryAfterMs
  }

  /** True when the same request may succeed later: no answer, 429, or a 5xx. */
  get retryable(): boolean {
    return this.status === 0
      ? this.code === 'network_error'
      : this.status === 429 || this.status >= 500
  }
}

/** An error when it is a WaybillError (a cancel's abort reason is not), for a task's status. */
export const waybillError = (error: unknown) =>
  (error as Error | undefined)?.name === 'WaybillError' ? (error as WaybillError) : undefined

// The code is waybill's own (a waybill newer than this client may name one it does not list).
const isProblemCode = (value: string): value is ProblemCode => /^[a-z_]+$/.test(value)

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function fieldErrors(value: unknown): FieldError[] {
  return Array.isArray(value)
    ? (value as (Partial<FieldError> | null)[]).filter(
        (entry): entry is FieldError =>
          typeof entry?.path === 'string' && typeof entry.message === 'string',
      )
    : []
}

/**
 * `Retry-After` as milliseconds. waybill sends delay-seconds (RFC 9110 §10.2.3 also allows an
 * HTTP date, which it never sends: such a header is ignored).
 */
function retryAfterOf(header: string | null): number | undefined {
  const seconds = Number(header ?? NaN)
  return seconds >= 0 ? seconds * 1000 : undefined
}

/** The error for a waybill answer that is not a success: its RFC 9457 problem when it has one. */
export async function errorFromResponse(response: Response): Promise<WaybillError> {
  const requestId = response.headers.get('waybill-request-id') ?? undefined
  const retryAfterMs = retryAfterOf(response.headers.get('retry-after'))
  const text = await response.text().catch(() => '')
  let problem: unknown
  try {
    problem = JSON.parse(text)
  } catch {
    problem = undefined
  }
  const base = { status: response.status, requestId, retryAfterMs }
  if (isRecord(problem) && typeof problem.detail === 'string') {
    const type = typeof problem.type === 'string' ? problem.type : undefined
    const suffix = type?.startsWith(PROBLEM_TYPE) ? type.slice(PROBLEM_TYPE.length) : ''
    return new WaybillError(isProblemCode(suffix) ? suffix : 'http_error', problem.detail, {
      ...base,
      type,
      title: typeof problem.title === 'string' ? problem.title : undefined,
      errors: fieldErrors(problem.errors),
    })
  }
  return new WaybillError(
    'http_error',
    `waybill answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`,
    base,
  )
}
