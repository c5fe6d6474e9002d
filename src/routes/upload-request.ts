// Validation of the upload bodies (`POST /v1/uploads` and the multipart follow-ups) into typed
// requests. Every problem is collected with its path, as for `POST /v1/sign`.

import {
  MAX_METADATA_BYTES,
  MAX_PART_SIZE_BYTES,
  MAX_PARTS,
  MAX_PUT_BYTES,
  MAX_UPLOAD_BYTES,
  MIN_PART_SIZE_BYTES,
} from '../config/limits'
import { checkObjectKey } from '../core/s3/presign'
import { parseExpiresInField } from './sign-request'
import { ORIGIN_NAME } from '../config/names'
import { invalid, type FieldError } from '../errors'
import { isRecord, rejectUnknownFields, typeName } from '../validation'

export type UploadMode = 'put' | 'post' | 'multipart'

export interface UploadRequest {
  origin: string
  mode: UploadMode
  /** The exact key; for POST, the key prefix when `keyPrefix` was sent instead. */
  key: string
  keyIsPrefix: boolean
  contentType: string
  contentLength: number | undefined
  checksumSha256: string | undefined
  ifNoneMatch: boolean
  metadata: Record<string, string>
  expiresIn: number | undefined
  partSize: number | undefined
  successActionStatus: 200 | 201 | 204 | undefined
}

const UPLOAD_FIELDS = new Set([
  'origin',
  'mode',
  'key',
  'keyPrefix',
  'contentType',
  'contentLength',
  'checksumSha256',
  'ifNoneMatch',
  'metadata',
  'expiresIn',
  'partSize',
  'successActionStatus',
])
// RFC 9110 token "/" token, with optional parameters; the family form `image/*` is for POST only.
const CONTENT_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/(?:\*|[A-Za-z0-9!#$&^_.+-]+)(?:\s*;\s*[\x20-\x7e]*)?$/
const METADATA_NAME = /^[a-z0-9][a-z0-9-]{0,127}$/
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/
// What POST /v1/uploads returns for a multipart upload: a sealed handle (src/auth/seal.ts).
const UPLOAD_ID = /^[A-Za-z0-9_-]{1,4096}\.[A-Za-z0-9_-]{22}$/
const ETAG = /^[\x20-\x7e]{1,1024}$/

function requireObject(body: unknown): Record<string, unknown> {
  if (!isRecord(body)) {
    throw invalid([{ path: 'body', message: `must be a JSON object, not ${typeName(body)}` }])
  }
  return body
}

function checkOrigin(value: unknown, errors: FieldError[]): void {
  if (value === undefined) errors.push({ path: 'origin', message: 'is required' })
  else if (typeof value !== 'string' || !ORIGIN_NAME.test(value)) {
    errors.push({ path: 'origin', message: 'must be an origin name (a-z, 0-9, "-", "_")' })
  }
}

function checkKeyField(value: unknown, path: string, errors: FieldError[]): void {
  if (value === undefined) errors.push({ path, message: 'is required' })
  else if (typeof value !== 'string') {
    errors.push({ path, message: `must be a string, not ${typeName(value)}` })
  } else {
    const problem = checkObjectKey(value)
    if (problem !== undefined) errors.push({ path, message: problem })
  }
}

function wholeNumber(
  value: unknown,
  path: string,
  min: number,
  max: number,
  errors: FieldError[],
): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    errors.push({ path, message: `must be a whole number from ${min} to ${max}` })
    return undefined
  }
  return value
}

function parseMetadata(value: unknown, errors: FieldError[]): Record<string, string> {
  const metadata: Record<string, string> = {}
  if (value === undefined) return metadata
  if (!isRecord(value)) {
    errors.push({
      path: 'metadata',
      message: `must be an object of name to value, not ${typeName(value)}`,
    })
    return metadata
  }
  let bytes = 0
  for (const [name, entry] of Object.entries(value)) {
    const path = `metadata.${name}`
    if (!METADATA_NAME.test(name)) {
      errors.push({
        path,
        message: 'names are lower-case a-z, 0-9 and "-" (sent as x-amz-meta-<name>)',
      })
    } else if (typeof entry !== 'string' || !/^[\x20-\x7e]*$/.test(entry)) {
      errors.push({ path, message: 'must be a string of printable ASCII' })
    } else {
      metadata[name] = entry
      bytes += name.length + entry.length
    }
  }
  if (bytes > MAX_METADATA_BYTES) {
    errors.push({ path: 'metadata', message: `must total at most ${MAX_METADATA_BYTES} bytes` })
  }
  return metadata
}

/** Validates a `POST /v1/uploads` body. */
export function parseUploadRequest(raw: unknown): UploadRequest {
  const body = requireObject(raw)
  const errors: FieldError[] = []
  rejectUnknownFields(body, UPLOAD_FIELDS, '', errors)
  checkOrigin(body.origin, errors)

  const mode = body.mode ?? 'put'
  if (mode !== 'put' && mode !== 'post' && mode !== 'multipart') {
    errors.push({ path: 'mode', message: 'must be "put", "post" or "multipart"' })
  }

  let keyIsPrefix = false
  if (body.keyPrefix !== undefined) {
    keyIsPrefix = true
    if (body.key !== undefined) {
      errors.push({ path: 'keyPrefix', message: 'send either "key" or "keyPrefix", not both' })
    } else if (mode !== 'post') {
      errors.push({ path: 'keyPrefix', message: 'is for mode "post" only; other modes need "key"' })
    } else checkKeyField(body.keyPrefix, 'keyPrefix', errors)
  } else checkKeyField(body.key, 'key', errors)

  const contentType = body.contentType
  if (contentType === undefined) {
    errors.push({
      path: 'contentType',
      message: 'is required: the browser must send this exact Content-Type',
    })
  } else if (
    typeof contentType !== 'string' ||
    contentType.length > 256 ||
    !CONTENT_TYPE.test(contentType)
  ) {
    errors.push({ path: 'contentType', message: 'must be a media type such as "image/png"' })
  } else if (contentType.includes('/*') && mode !== 'post') {
    errors.push({
      path: 'contentType',
      message: 'a family such as "image/*" is for mode "post" only',
    })
  }

  const maxLength = mode === 'put' ? MAX_PUT_BYTES : MAX_UPLOAD_BYTES
  const contentLength = wholeNumber(body.contentLength, 'contentLength', 0, maxLength, errors)
  if (mode === 'multipart' && body.contentLength === undefined) {
    errors.push({ path: 'contentLength', message: 'is required for multipart uploads' })
  }

  let checksumSha256: string | undefined
  if (body.checksumSha256 !== undefined) {
    if (mode !== 'put') {
      errors.push({ path: 'checksumSha256', message: 'is for mode "put" only' })
    } else if (
      typeof body.checksumSha256 !== 'string' ||
      !BASE64_SHA256.test(body.checksumSha256)
    ) {
      errors.push({
        path: 'checksumSha256',
        message: 'must be the base64 SHA-256 of the file (44 characters)',
      })
    } else checksumSha256 = body.checksumSha256
  }

  const ifNoneMatch = body.ifNoneMatch
  if (
    ifNoneMatch !== undefined &&
    ifNoneMatch !== true &&
    ifNoneMatch !== false &&
    ifNoneMatch !== '*'
  ) {
    errors.push({ path: 'ifNoneMatch', message: 'must be true (or "*") to refuse overwriting' })
  }
  if ((ifNoneMatch === true || ifNoneMatch === '*') && mode !== 'put') {
    errors.push({ path: 'ifNoneMatch', message: 'is for mode "put" only' })
  }

  const metadata = parseMetadata(body.metadata, errors)

  const expiresIn = parseExpiresInField(body.expiresIn, errors)

  const partSize = wholeNumber(
    body.partSize,
    'partSize',
    MIN_PART_SIZE_BYTES,
    MAX_PART_SIZE_BYTES,
    errors,
  )
  if (body.partSize !== undefined && mode !== 'multipart') {
    errors.push({ path: 'partSize', message: 'is for mode "multipart" only' })
  }

  const status = body.successActionStatus
  if (
    status !== undefined &&
    (mode !== 'post' || (status !== 200 && status !== 201 && status !== 204))
  ) {
    errors.push({
      path: 'successActionStatus',
      message: 'is 200, 201 or 204, for mode "post" only',
    })
  }

  if (errors.length > 0) throw invalid(errors)
  return {
    origin: body.origin as string,
    mode: mode as UploadMode,
    key: (keyIsPrefix ? body.keyPrefix : body.key) as string,
    keyIsPrefix,
    contentType: contentType as string,
    contentLength,
    checksumSha256,
    ifNoneMatch: ifNoneMatch === true || ifNoneMatch === '*',
    metadata,
    expiresIn,
    partSize,
    successActionStatus: status as UploadRequest['successActionStatus'],
  }
}

/** The part size for an upload: the caller's, or 5 MiB grown in whole MiB until 10,000 parts fit. */
export function choosePartSize(contentLength: number, requested: number | undefined): number {
  const MIB = 1024 * 1024
  const least = Math.max(MIN_PART_SIZE_BYTES, Math.ceil(contentLength / MAX_PARTS / MIB) * MIB)
  return Math.max(requested ?? least, least)
}

export interface MultipartRef {
  origin: string
  key: string
  uploadId: string
}

function parseRef(body: Record<string, unknown>, errors: FieldError[]): void {
  checkOrigin(body.origin, errors)
  checkKeyField(body.key, 'key', errors)
  if (body.uploadId === undefined) errors.push({ path: 'uploadId', message: 'is required' })
  else if (typeof body.uploadId !== 'string' || !UPLOAD_ID.test(body.uploadId)) {
    errors.push({
      path: 'uploadId',
      message: 'must be the uploadId POST /v1/uploads returned',
    })
  }
}

export interface PartsRequest extends MultipartRef {
  partNumbers: number[]
  expiresIn: number | undefined
}

/**
 * `POST /v1/uploads/multipart/parts`: more part URLs for an upload in progress. The sizes come from
 * the upload's handle, never from the request; part numbers are checked against them later.
 */
export function parsePartsRequest(raw: unknown): PartsRequest {
  const body = requireObject(raw)
  const errors: FieldError[] = []
  rejectUnknownFields(
    body,
    new Set(['origin', 'key', 'uploadId', 'partNumbers', 'expiresIn']),
    '',
    errors,
  )
  parseRef(body, errors)
  const partNumbers: number[] = []
  if (!Array.isArray(body.partNumbers) || body.partNumbers.length === 0) {
    errors.push({ path: 'partNumbers', message: 'must be a non-empty array of part numbers' })
  } else if (body.partNumbers.length > MAX_PARTS) {
    errors.push({ path: 'partNumbers', message: `must list at most ${MAX_PARTS} parts` })
  } else {
    body.partNumbers.forEach((n: unknown, i) => {
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_PARTS) {
        errors.push({
          path: `partNumbers.${i}`,
          message: `must be a part number from 1 to ${MAX_PARTS}`,
        })
      } else partNumbers.push(n)
    })
  }
  const expiresIn = parseExpiresInField(body.expiresIn, errors)
  if (errors.length > 0) throw invalid(errors)
  return {
    origin: body.origin as string,
    key: body.key as string,
    uploadId: body.uploadId as string,
    partNumbers,
    expiresIn,
  }
}

export interface CompleteRequest extends MultipartRef {
  parts: { partNumber: number; etag: string }[]
}

/** `POST /v1/uploads/multipart/complete`: the parts, in ascending order, each once. */
export function parseCompleteRequest(raw: unknown): CompleteRequest {
  const body = requireObject(raw)
  const errors: FieldError[] = []
  rejectUnknownFields(body, new Set(['origin', 'key', 'uploadId', 'parts']), '', errors)
  parseRef(body, errors)
  const parts: CompleteRequest['parts'] = []
  if (!Array.isArray(body.parts) || body.parts.length === 0) {
    errors.push({ path: 'parts', message: 'must be a non-empty array of { partNumber, etag }' })
  } else if (body.parts.length > MAX_PARTS) {
    errors.push({ path: 'parts', message: `must list at most ${MAX_PARTS} parts` })
  } else {
    body.parts.forEach((part: unknown, i) => {
      const path = `parts.${i}`
      if (!isRecord(part)) {
        errors.push({ path, message: 'must be an object { partNumber, etag }' })
        return
      }
      rejectUnknownFields(part, new Set(['partNumber', 'etag']), path, errors)
      const { partNumber, etag } = part
      const previous = parts[parts.length - 1]?.partNumber ?? 0
      if (
        typeof partNumber !== 'number' ||
        !Number.isInteger(partNumber) ||
        partNumber < 1 ||
        partNumber > MAX_PARTS
      ) {
        errors.push({
          path: `${path}.partNumber`,
          message: `must be a part number from 1 to ${MAX_PARTS}`,
        })
      } else if (partNumber <= previous) {
        errors.push({
          path: `${path}.partNumber`,
          message: 'parts must be in ascending order, each once',
        })
      }
      if (typeof etag !== 'string' || !ETAG.test(etag)) {
        errors.push({
          path: `${path}.etag`,
          message: "must be the ETag the part's upload returned",
        })
      }
      if (typeof partNumber === 'number' && typeof etag === 'string')
        parts.push({ partNumber, etag })
    })
  }
  if (errors.length > 0) throw invalid(errors)
  return {
    origin: body.origin as string,
    key: body.key as string,
    uploadId: body.uploadId as string,
    parts,
  }
}

/** `POST /v1/uploads/multipart/abort`. */
export function parseAbortRequest(raw: unknown): MultipartRef {
  const body = requireObject(raw)
  const errors: FieldError[] = []
  rejectUnknownFields(body, new Set(['origin', 'key', 'uploadId']), '', errors)
  parseRef(body, errors)
  if (errors.length > 0) throw invalid(errors)
  return {
    origin: body.origin as string,
    key: body.key as string,
    uploadId: body.uploadId as string,
  }
}
