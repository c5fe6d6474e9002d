// Request validation: hono-openapi's validator (which also puts the schema in the OpenAPI
// document) with one hook, so every refusal is the same 400 problem naming each field.

import type { GenericSchema } from 'valibot'
import { validator } from 'hono-openapi'
import { invalid } from '../errors'
import { fieldErrors } from '../schemas/valibot'

/** The validators' hook: a 400 problem listing every field the schema refused. */
function rejectInvalid(
  result: { success: true } | { success: false; error: Parameters<typeof fieldErrors>[0] },
): void {
  if (!result.success) throw invalid(fieldErrors(result.error))
}

/** Validates the JSON body (read first by `jsonBody()`) into `c.req.valid('json')`. */
export function validBody<const TSchema extends GenericSchema>(schema: TSchema) {
  return validator('json', schema, rejectInvalid)
}

/** Validates the query into `c.req.valid('query')`; a repeated parameter arrives as an array. */
export function validQuery<const TSchema extends GenericSchema>(schema: TSchema) {
  return validator('query', schema, rejectInvalid)
}

/** Validates the path parameters into `c.req.valid('param')`. */
export function validParams<const TSchema extends GenericSchema>(schema: TSchema) {
  return validator('param', schema, rejectInvalid)
}
