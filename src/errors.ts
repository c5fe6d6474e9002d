/** Every error waybill raises on purpose. `app.onError` turns it into `application/problem+json`. */

import { MAX_REPORTED_ERRORS } from './limits'
import type { CoreError } from './core/errors'

export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'gone'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'too_many_requests'
  | 'config_invalid'
  | 'auth_unavailable'
  | 'upstream_error'
  | 'upload_mismatch'
  | 'precondition_failed'
  | 'quota_exceeded'
  | 'control_unavailable'
  | 'conflict'
  /** Anything unexpected (src/app.ts onError): the answer names no cause; the log does. */
  | 'internal'

export const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  gone: 410,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  config_invalid: 503,
  auth_unavailable: 503,
  upstream_error: 502,
  upload_mismatch: 422,
  precondition_failed: 412,
  quota_exceeded: 429,
  control_unavailable: 503,
  conflict: 409,
  internal: 500,
}

export const TITLE: Record<ErrorCode, string> = {
  invalid_request: 'Invalid request',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  gone: 'Gone',
  method_not_allowed: 'Method not allowed',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  too_many_requests: 'Too many requests',
  config_invalid: 'Service misconfigured',
  auth_unavailable: 'Authentication temporarily unavailable',
  upstream_error: 'The storage service failed',
  upload_mismatch: 'The upload is not what was signed',
  precondition_failed: 'Precondition failed',
  quota_exceeded: 'Quota exceeded',
  control_unavailable: 'The control plane is unavailable',
  conflict: 'Conflict with the current state',
  internal: 'Internal server error',
}

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
    this.status = STATUS[code]
    this.title = TITLE[code]
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
