// Small shared helpers for checking untyped JSON (request bodies and config) into typed values.

import { MAX_REPORTED_ERRORS } from './config/limits'
import type { FieldError } from './errors'

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** How a value's type reads in an error message: `a string`, `an array`, `null`. */
export function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`
}

/** Records every field of `value` that is not in `allowed`: a typo must not pass as a default. */
export function rejectUnknownFields(
  value: Record<string, unknown>,
  allowed: ReadonlySet<string>,
  path: string,
  errors: FieldError[],
): void {
  for (const field in value) {
    if (errors.length >= MAX_REPORTED_ERRORS) return
    if (Object.hasOwn(value, field) && !allowed.has(field)) {
      errors.push({
        path: path === '' ? field : `${path}.${field}`,
        message: `is not a known field (known: ${[...allowed].join(', ')})`,
      })
    }
  }
}
