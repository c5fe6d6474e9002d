import { MAX_SIGNING_WINDOW_S } from './limits'
import type { FieldError } from '../errors'

/** An origin's `signingWindow`: whole seconds, 0 (the default) to sign at the request time. */
export function parseSigningWindow(value: unknown, path: string, errors: FieldError[]): number {
  if (value === undefined) return 0
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 0 ||
    value > MAX_SIGNING_WINDOW_S
  ) {
    errors.push({
      path,
      message: `must be a whole number of seconds from 0 to ${MAX_SIGNING_WINDOW_S}`,
    })
    return 0
  }
  return value
}
