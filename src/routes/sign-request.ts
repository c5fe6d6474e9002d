// Validation of the `POST /v1/sign` body into a typed request. Every problem is collected with its
// path (`items.3.response.contentType`) so a client fixes a batch in one round trip.

import { MAX_OVERRIDE_CHARS, MAX_REPORTED_ERRORS, MAX_VERSION_ID_CHARS } from '../config/limits'
import { parseSigningWindow } from '../config/window'
import {
  checkExpiresIn,
  checkHeaderValue,
  checkObjectKey,
  RESPONSE_OVERRIDE_FIELDS,
  type PresignItem,
  type PresignMethod,
  type ResponseOverrides,
} from '../core/s3/presign'
import { invalid, type FieldError } from '../errors'
import { ORIGIN_NAME } from '../config/names'
import { isRecord, rejectUnknownFields, typeName } from '../validation'

/** CloudFront only: one canned policy per URL, or one wildcard policy for the batch. */
export type PolicyKind = 'canned' | 'wildcard'

export interface SignRequest {
  origin: string
  method: PresignMethod
  /** Undefined when the request gives none: the default, capped by the caller's grants, applies. */
  expiresIn: number | undefined
  /** Which field the items came from, for error paths: `keys.3` or `items.3.key`. */
  field: 'keys' | 'items'
  items: PresignItem[]
  /** CloudFront only: one canned signature per URL, or one wildcard policy for the batch. */
  policy: PolicyKind | undefined
  /** Seconds; undefined for the origin's own. */
  signingWindow: number | undefined
  /** Also return what was signed per URL (needs a `debug` grant). */
  debug: boolean
}

const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE'])
const BODY_FIELDS = new Set([
  'origin',
  'method',
  'expiresIn',
  'keys',
  'items',
  'policy',
  'signingWindow',
  'debug',
])
const ITEM_FIELDS = new Set(['key', 'versionId', 'response'])
const OVERRIDE_FIELDS: ReadonlySet<string> = new Set(RESPONSE_OVERRIDE_FIELDS)
// RFC 9110: type "/" subtype, with optional parameters.
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(?:\s*;\s*[\x20-\x7e]*)?$/

/** Checks one key and records why it is unusable. */
function checkKey(value: unknown, path: string, errors: FieldError[]): value is string {
  if (typeof value !== 'string') {
    errors.push({ path, message: `must be a string, not ${typeName(value)}` })
    return false
  }
  const problem = checkObjectKey(value)
  if (problem !== undefined) {
    errors.push({ path, message: problem })
    return false
  }
  return true
}

function parseItem(
  value: unknown,
  path: string,
  method: PresignMethod | undefined,
  errors: FieldError[],
): PresignItem | undefined {
  if (!isRecord(value)) {
    errors.push({
      path,
      message: `must be an object { "key", "versionId"?, "response"? }, not ${typeName(value)}`,
    })
    return undefined
  }
  const before = errors.length
  rejectUnknownFields(value, ITEM_FIELDS, path, errors)
  checkKey(value.key, `${path}.key`, errors)
  const item: PresignItem = { key: value.key as string }

  if (value.versionId !== undefined) {
    const versionId = value.versionId
    if (method === 'PUT') {
      errors.push({ path: `${path}.versionId`, message: 'cannot be used with PUT' })
    } else if (
      typeof versionId !== 'string' ||
      versionId.length === 0 ||
      versionId.length > MAX_VERSION_ID_CHARS ||
      !/^[\x21-\x7e]+$/.test(versionId)
    ) {
      errors.push({
        path: `${path}.versionId`,
        message: `must be a non-empty string of printable ASCII, at most ${MAX_VERSION_ID_CHARS} characters`,
      })
    } else item.versionId = versionId
  }

  if (value.response !== undefined) {
    const response = value.response
    const responsePath = `${path}.response`
    if (method === 'PUT' || method === 'DELETE') {
      errors.push({ path: responsePath, message: 'response overrides apply to GET and HEAD only' })
    } else if (!isRecord(response)) {
      errors.push({ path: responsePath, message: `must be an object, not ${typeName(response)}` })
    } else {
      rejectUnknownFields(response, OVERRIDE_FIELDS, responsePath, errors)
      const overrides: ResponseOverrides = {}
      for (const field of OVERRIDE_FIELDS) {
        const override = response[field]
        if (override === undefined) continue
        const fieldPath = `${responsePath}.${field}`
        if (typeof override !== 'string') {
          errors.push({ path: fieldPath, message: `must be a string, not ${typeName(override)}` })
          continue
        }
        if (override.length === 0 || override.length > MAX_OVERRIDE_CHARS) {
          errors.push({ path: fieldPath, message: `must be 1 to ${MAX_OVERRIDE_CHARS} characters` })
          continue
        }
        const problem = checkHeaderValue(override)
        if (problem !== undefined) {
          errors.push({ path: fieldPath, message: problem })
          continue
        }
        // Anything but a well-formed type makes browsers sniff the body, which can find HTML.
        if (field === 'contentType' && !MEDIA_TYPE.test(override)) {
          errors.push({
            path: fieldPath,
            message: 'must be a media type such as "application/pdf"',
          })
          continue
        }
        overrides[field as keyof ResponseOverrides] = override
      }
      item.response = overrides
    }
  }
  return errors.length > before ? undefined : item
}

/**
 * Validates a `POST /v1/sign` body. Throws a 400 listing every problem found (up to a cap).
 *
 * @param limits the configured batch limit.
 */
export function parseSignRequest(body: unknown, limits: { maxBatch: number }): SignRequest {
  if (!isRecord(body)) {
    throw invalid([{ path: 'body', message: `must be a JSON object, not ${typeName(body)}` }])
  }
  const errors: FieldError[] = []
  rejectUnknownFields(body, BODY_FIELDS, '', errors)

  const origin = body.origin
  if (origin === undefined) errors.push({ path: 'origin', message: 'is required' })
  else if (typeof origin !== 'string' || !ORIGIN_NAME.test(origin)) {
    errors.push({ path: 'origin', message: 'must be an origin name (a-z, 0-9, "-", "_")' })
  }

  let method: PresignMethod | undefined = 'GET'
  if (body.method !== undefined) {
    if (typeof body.method === 'string' && METHODS.has(body.method)) {
      method = body.method as PresignMethod
    } else {
      errors.push({ path: 'method', message: 'must be one of GET, HEAD, PUT, DELETE' })
      method = undefined
    }
  }

  const expiresIn = parseExpiresInField(body.expiresIn, errors)

  const items: PresignItem[] = []
  const { keys, items: rawItems } = body
  const field = keys !== undefined ? 'keys' : 'items'
  if (keys !== undefined && rawItems !== undefined) {
    errors.push({ path: 'items', message: 'send either "keys" or "items", not both' })
  } else if (keys === undefined && rawItems === undefined) {
    errors.push({ path: 'keys', message: 'is required (or "items")' })
  } else {
    const list = keys ?? rawItems
    if (!Array.isArray(list)) {
      errors.push({ path: field, message: `must be an array, not ${typeName(list)}` })
    } else if (list.length === 0) {
      errors.push({ path: field, message: 'must contain at least one entry' })
    } else if (list.length > limits.maxBatch) {
      errors.push({
        path: field,
        message: `must contain at most ${limits.maxBatch} entries (got ${list.length}); split the batch`,
      })
    } else {
      for (let i = 0; i < list.length && errors.length < MAX_REPORTED_ERRORS; i++) {
        if (field === 'keys') {
          if (checkKey(list[i], `keys.${i}`, errors)) items.push({ key: list[i] as string })
        } else {
          const item = parseItem(list[i], `items.${i}`, method, errors)
          if (item !== undefined) items.push(item)
        }
      }
    }
  }

  const policy = body.policy
  if (policy !== undefined && policy !== 'canned' && policy !== 'wildcard') {
    errors.push({ path: 'policy', message: 'must be "canned" or "wildcard"' })
  }

  const signingWindow = parseSigningWindowField(body.signingWindow, errors)
  if (body.debug !== undefined && typeof body.debug !== 'boolean') {
    errors.push({ path: 'debug', message: 'must be true or false' })
  }

  if (errors.length > 0) throw invalid(errors)
  return {
    origin: origin as string,
    method: method!,
    expiresIn,
    field,
    items,
    policy: policy as PolicyKind | undefined,
    signingWindow,
    debug: body.debug === true,
  }
}

/** A request's `signingWindow`: whole seconds from 0 (sign at the request time) to a day. */
export function parseSigningWindowField(
  value: unknown,
  errors: FieldError[],
  path = 'signingWindow',
): number | undefined {
  if (value === undefined) return undefined
  const before = errors.length
  const window = parseSigningWindow(value, path, errors)
  return errors.length > before ? undefined : window
}

/** A request's optional `expiresIn`, or undefined with the problem recorded. */
export function parseExpiresInField(value: unknown, errors: FieldError[]): number | undefined {
  if (value === undefined) return undefined
  const problem = typeof value === 'number' ? checkExpiresIn(value) : 'must be a number'
  if (problem === undefined) return value as number
  errors.push({ path: 'expiresIn', message: problem })
  return undefined
}
