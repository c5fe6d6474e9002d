// WAYBILL_CORS: which browser origins may call the API.
//   { "origins": ["https://app.example.com"] | "*", "credentials"?: false, "maxAgeS"?: 600 }

import { DEFAULT_CORS_MAX_AGE_S } from './limits'
import type { FieldError } from '../errors'
import { isRecord, rejectUnknownFields } from '../validation'
import type { CorsConfig } from './types'

const FIELDS = new Set(['origins', 'credentials', 'maxAgeS'])

function isWebOrigin(value: unknown): value is string {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value
  } catch {
    return false
  }
}

export function parseCors(value: unknown, errors: FieldError[]): CorsConfig | undefined {
  if (value === undefined) return undefined
  const path = 'WAYBILL_CORS'
  if (!isRecord(value)) {
    errors.push({
      path,
      message: 'must be a JSON object { "origins", "credentials"?, "maxAgeS"? }',
    })
    return undefined
  }
  const before = errors.length
  rejectUnknownFields(value, FIELDS, path, errors)
  let origins: CorsConfig['origins'] = '*'
  if (value.origins !== '*') {
    if (
      !Array.isArray(value.origins) ||
      value.origins.length === 0 ||
      !value.origins.every(isWebOrigin)
    ) {
      errors.push({
        path: `${path}.origins`,
        message: 'must be "*" or a list of web origins such as "https://app.example.com" (no path)',
      })
    } else origins = new Set(value.origins)
  }
  const credentials = value.credentials ?? false
  if (typeof credentials !== 'boolean') {
    errors.push({ path: `${path}.credentials`, message: 'must be true or false' })
  } else if (credentials && origins === '*') {
    // Browsers refuse credentialed responses with a wildcard origin; list the origins instead.
    errors.push({ path: `${path}.credentials`, message: 'cannot be true when origins is "*"' })
  }
  const maxAgeS = value.maxAgeS ?? DEFAULT_CORS_MAX_AGE_S
  if (typeof maxAgeS !== 'number' || !Number.isInteger(maxAgeS) || maxAgeS < 0 || maxAgeS > 86400) {
    errors.push({
      path: `${path}.maxAgeS`,
      message: 'must be a whole number of seconds from 0 to 86400',
    })
  }
  if (errors.length > before) return undefined
  return Object.freeze({ origins, credentials: credentials as boolean, maxAgeS: maxAgeS as number })
}
