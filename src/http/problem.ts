// RFC 9457 problem details. Every deliberate error leaves waybill through `problemResponse`.
// https://www.rfc-editor.org/rfc/rfc9457

import { MAX_REPORTED_ERRORS } from '../limits'
import { PROBLEMS, WaybillError, type FieldError } from '../errors'

const PROBLEM_CONTENT_TYPE = 'application/problem+json'

interface ProblemBody {
  type: string
  title: string
  status: number
  detail: string
  errors?: FieldError[]
}

/** The `type` URI of a problem code; documented in the README and OpenAPI. */
export function problemType(code: string): string {
  return `urn:waybill:problem:${code}`
}

/** The `application/problem+json` response for a WaybillError. */
export function problemResponse(error: WaybillError): Response {
  const body: ProblemBody = {
    type: problemType(error.code),
    title: error.title,
    status: error.status,
    detail: error.message,
  }
  if (error.errors.length > 0) body.errors = error.errors.slice(0, MAX_REPORTED_ERRORS)
  const headers = new Headers(error.headers)
  headers.set('content-type', PROBLEM_CONTENT_TYPE)
  headers.set('cache-control', 'no-store')
  return new Response(JSON.stringify(body), { status: error.status, headers })
}

/** The 500 for anything unexpected: says nothing about the cause, which goes to the log instead. */
export function internalErrorResponse(): Response {
  const body: ProblemBody = {
    type: problemType('internal'),
    title: PROBLEMS.internal.title,
    status: 500,
    detail: 'An unexpected error occurred; it has been logged.',
  }
  return new Response(JSON.stringify(body), {
    status: 500,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store' },
  })
}
