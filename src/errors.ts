/** Every error waybill raises on purpose. `app.onError` turns it into `application/problem+json`. */

import { MAX_REPORTED_ERRORS } from './limits'
import type { CoreError } from './core/errors'

/**
 * Every problem waybill answers, by code: its HTTP status and its title. One table: the code is
 * the problem's `type` (`urn:waybill:problem:<code>`), and the document lists each route's.
 */
export const PROBLEMS = {
  invalid_request: { status: 400, title: 'Invalid request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not found' },
  gone: { status: 410, title: 'Gone' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  length_required: { status: 411, title: 'Length required' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  too_many_requests: { status: 429, title: 'Too many requests' },
  config_invalid: { status: 503, title: 'Service misconfigured' },
  auth_unavailable: { status: 503, title: 'Authentication temporarily unavailable' },
  upstream_error: { status: 502, title: 'The storage service failed' },
  upload_mismatch: { status: 422, title: 'The upload is not what was signed' },
  precondition_failed: { status: 412, title: 'Precondition failed' },
  range_not_satisfiable: { status: 416, title: 'Range not satisfiable' },
  quota_exceeded: { status: 429, title: 'Quota exceeded' },
  control_unavailable: { status: 503, title: 'The control plane is unavailable' },
  conflict: { status: 409, title: 'Conflict with the current state' },
  /** Anything unexpected (src/app.ts onError): the answer names no cause; the log does. */
  internal: { status: 500, title: 'Internal server error' },
} as const satisfies Record<string, { status: number; title: string }>

export type ErrorCode = keyof typeof PROBLEMS

/** One field-level problem: `path` is a JSON pointer-like dotted path such as `items.3.key`. */
export interface FieldError {
  path: string
  message: string
}

export class WaybillError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly title: string
  readonly errors: readonly FieldError[]
  readonly headers: Readonly<Record<string, string>>

  constructor(
    code: ErrorCode,
    detail: string,
    options: { errors?: readonly FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail)
    this.name = 'WaybillError'
    this.code = code
    this.status = PROBLEMS[code].status
    this.title = PROBLEMS[code].title
    this.errors = options.errors ?? []
    this.headers = options.headers ?? {}
  }
}

/**
 * The answer for what a pure core refused. Requests are validated before they reach a core, so
 * this is a last line: still the caller's input, never a 500.
 */
export function fromCoreError(error: CoreError): WaybillError {
  return new WaybillError('invalid_request', error.message)
}

/**
 * A 409 for a request the document allows but the state it meets does not, which the document
 * cannot state: an upload's (parts not in the store, part numbers past its plan, checksums it does
 * or does not sign, or more of them than its parts), or the control plane's (an id already taken,
 * a key already revoked, a quota already set, a list already full).
 */
export function conflict(errors: readonly FieldError[]): WaybillError {
  return new WaybillError('conflict', invalid(errors).message, { errors })
}

/** A 400 for one or more fields: the detail names the first, `errors` lists all. */
export function invalid(errors: readonly FieldError[]): WaybillError {
  const first = errors[0]
  const detail =
    first === undefined
      ? 'The request is invalid.'
      : errors.length === 1
        ? `${first.path}: ${first.message}`
        : errors.length >= MAX_REPORTED_ERRORS
          ? `${first.path}: ${first.message} (and at least ${errors.length - 1} more; checking stopped there)`
          : `${first.path}: ${first.message} (and ${errors.length - 1} more)`
  return new WaybillError('invalid_request', detail, { errors })
}
