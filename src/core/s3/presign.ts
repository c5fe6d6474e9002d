// S3 SigV4 query-string presigning ("presigned URLs") with UNSIGNED-PAYLOAD.
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
//
// Pure: no I/O, no clock (`now` is an input), no env. Everything that is the same for every URL of a
// batch (scope, credential, the fixed query parameters, the canonical request's tail, the derived
// signing key) is built once in `prepareS3Presign`; per URL only the path, the per-item query
// parameters, one SHA-256 and one HMAC remain.

import { CoreError } from '../errors'
import { checkObjectKey } from '../keys'
import { MAX_EXPIRES_S, MIN_EXPIRES_S } from '../limits'
import { signingKey } from '../sigv4/crypto'
import {
  messageAscii,
  messageBytes,
  messageNext,
  messageStart,
  SIGN_LANES,
  type HmacSha256,
} from '../sigv4/sha256'
import { charCodeBytes, encodeKeyPath, encodeRfc3986 } from '../sigv4/encoding'
import { toAmzDate } from '../sigv4/time'
import type { S3Endpoint } from './endpoint'

export type PresignMethod = 'GET' | 'HEAD' | 'PUT' | 'DELETE'

export interface Credentials {
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string | undefined
}

/** `response-*` overrides S3 applies to the GET/HEAD response headers. */
export interface ResponseOverrides {
  cacheControl?: string | undefined
  contentDisposition?: string | undefined
  contentEncoding?: string | undefined
  contentLanguage?: string | undefined
  contentType?: string | undefined
  expires?: string | undefined
}

export interface PresignItem {
  key: string
  versionId?: string | undefined
  response?: ResponseOverrides | undefined
  /** UploadPart: the part number (1 to 10,000) and the multipart upload's id. */
  partNumber?: number | undefined
  uploadId?: string | undefined
}

export interface PresignBatchInput {
  endpoint: S3Endpoint
  region: string
  credentials: Credentials
  method: PresignMethod
  /** Seconds, 1 to 604800. */
  expiresIn: number
  /** Signing time. */
  now: Date
  /** Signing name; `s3` unless a store says otherwise. */
  service?: string
  /**
   * Request headers the URL's user must send exactly as given (lower-case names, printable ASCII
   * values), such as `content-type` or `if-none-match` for an upload. `host` is always signed.
   */
  headers?: Readonly<Record<string, string>> | undefined
}

const ALGORITHM = 'AWS4-HMAC-SHA256'
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD'

/** The `response` override fields, in the order their query parameters sort. */
const RESPONSE_OVERRIDE_FIELDS: readonly (keyof ResponseOverrides)[] = [
  'cacheControl',
  'contentDisposition',
  'contentEncoding',
  'contentLanguage',
  'contentType',
  'expires',
]

// `contentType` → `response-content-type`. The list order is also the canonical (code point) order
// of the parameters, which follow X-Amz-SignedHeaders.
const OVERRIDE_PARAMS: ReadonlyArray<readonly [keyof ResponseOverrides, string]> =
  RESPONSE_OVERRIDE_FIELDS.map((field) => [
    field,
    'response-' + field.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()),
  ])

/** Why `expiresIn` is not a valid presign lifetime, or `undefined` when it is. */
export function checkExpiresIn(expiresIn: number): string | undefined {
  if (!Number.isInteger(expiresIn) || expiresIn < MIN_EXPIRES_S || expiresIn > MAX_EXPIRES_S) {
    return `must be a whole number of seconds from ${MIN_EXPIRES_S} to ${MAX_EXPIRES_S}`
  }
  return undefined
}

/** Why a header value cannot be sent through a response override, or `undefined`. */
export function checkHeaderValue(value: string): string | undefined {
  // S3 echoes the value into a response header: control characters would split or break it, and
  // non-ASCII has no portable header encoding (RFC 6266 filename*=UTF-8''… covers filenames).
  if (/[^\x20-\x7e]/.test(value)) {
    return "must be printable ASCII; put a Unicode filename in filename*=UTF-8''<percent-encoded>"
  }
  return undefined
}

/** The per-batch constants, and the steps of signing one URL. */
export interface S3Presigner {
  readonly expiresAt: Date
  /** The canonical request SigV4 hashes for this item (for tests and debugging). */
  canonicalRequest(item: PresignItem): string
  /** The string to sign for a canonical request's SHA-256 hex. */
  stringToSign(canonicalRequestHash: string): string
  /** The presigned URL for one item. */
  presign(item: PresignItem): Promise<string>
  /** Presigned URLs for many items, in input order. */
  presignAll(items: readonly PresignItem[]): Promise<string[]>
}

/** Why a header cannot be signed into a URL, or `undefined`. */
function checkSignedHeader(name: string, value: string): string | undefined {
  if (!/^[a-z0-9-]+$/.test(name) || name === 'host' || name.startsWith('x-amz-date')) {
    return `header name "${name}" cannot be signed`
  }
  if (!/^[\x20-\x7e]*$/.test(value)) return `header ${name} must be printable ASCII`
  return undefined
}

/** SigV4 canonical header value: trimmed, inner runs of spaces collapsed to one. */
function canonicalHeaderValue(value: string): string {
  return value.trim().replace(/ +/g, ' ')
}

/**
 * The `response-*` query parameters for `response`, each as `&name=value`, in canonical order.
 * CloudFront URLs carry them too, for the S3 origin behind the distribution.
 *
 * @example
 * responseQuery({ contentType: 'application/pdf' }) // '&response-content-type=application%2Fpdf'
 */
export function responseQuery(response: ResponseOverrides): string {
  let query = ''
  for (const [field, param] of OVERRIDE_PARAMS) {
    const value = response[field]
    if (value !== undefined) query += `&${param}=${encodeRfc3986(value)}`
  }
  return query
}

// The per-item parameters in canonical (code point) order: partNumber, response-*, uploadId,
// versionId all sort after the X-Amz-* ones.
function itemQuery(item: PresignItem): string {
  let query = ''
  if (item.partNumber !== undefined) query += `&partNumber=${item.partNumber}`
  if (item.response !== undefined) query += responseQuery(item.response)
  if (item.uploadId !== undefined) query += `&uploadId=${encodeRfc3986(item.uploadId)}`
  if (item.versionId !== undefined) query += `&versionId=${encodeRfc3986(item.versionId)}`
  return query
}

/**
 * Builds a presigner for one batch: one method, one expiry, one signing time, one bucket.
 *
 * @example
 * const presigner = prepareS3Presign({
 *   endpoint: resolveS3Endpoint({ bucket: 'photos', region: 'us-east-1', style: 'virtual' }),
 *   region: 'us-east-1',
 *   credentials: { accessKeyId, secretAccessKey },
 *   method: 'GET',
 *   expiresIn: 900,
 *   now: new Date(),
 * })
 * const [url] = await presigner.presignAll([{ key: 'cats/tom.jpg' }])
 */
export function prepareS3Presign(input: PresignBatchInput): S3Presigner {
  const expiresProblem = checkExpiresIn(input.expiresIn)
  if (expiresProblem !== undefined) {
    throw new CoreError('invalid_expiry', `expiresIn ${expiresProblem}`)
  }
  const service = input.service ?? 's3'
  const { longDate, shortDate } = toAmzDate(input.now)
  const scope = `${shortDate}/${input.region}/${service}/aws4_request`
  const { endpoint, credentials } = input

  let fixedQuery =
    `X-Amz-Algorithm=${ALGORITHM}` +
    `&X-Amz-Credential=${encodeRfc3986(`${credentials.accessKeyId}/${scope}`)}` +
    `&X-Amz-Date=${longDate}` +
    `&X-Amz-Expires=${input.expiresIn}`
  if (credentials.sessionToken !== undefined) {
    fixedQuery += `&X-Amz-Security-Token=${encodeRfc3986(credentials.sessionToken)}`
  }
  const headers: Array<[string, string]> = [['host', endpoint.host]]
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    const problem = checkSignedHeader(name, value)
    if (problem !== undefined) throw new CoreError('invalid_header', problem)
    headers.push([name, canonicalHeaderValue(value)])
  }
  headers.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const signedHeaders = headers.map(([name]) => name).join(';')
  const canonicalHeaders = headers.map(([name, value]) => `${name}:${value}\n`).join('')
  const signedHeadersParam = `&X-Amz-SignedHeaders=${encodeRfc3986(signedHeaders)}`
  const canonicalHead = `${input.method}\n`
  const canonicalQueryHead = `\n${fixedQuery}${signedHeadersParam}`
  const canonicalTail = `\n${canonicalHeaders}\n${signedHeaders}\n${UNSIGNED_PAYLOAD}`
  const stringToSignHead = `${ALGORITHM}\n${longDate}\n${scope}\n`
  const urlHead = `${endpoint.protocol}//${endpoint.host}`
  // The string to sign's head is the same for the batch: its whole blocks are hashed once, on first
  // use (a failed key derivation is retried by the next call, not kept).
  let mac: HmacSha256 | undefined
  const macFor = async (): Promise<HmacSha256> =>
    (mac ??= (
      await signingKey(credentials.secretAccessKey, shortDate, input.region, service)
    ).withPrefix(stringToSignHead))

  const pathOf = (item: PresignItem): string => {
    const problem = checkObjectKey(item.key)
    if (problem !== undefined) throw new CoreError('invalid_key', `key ${problem}`)
    return `${endpoint.basePath}/${encodeKeyPath(item.key)}`
  }

  const canonicalRequest = (item: PresignItem): string =>
    canonicalHead + pathOf(item) + canonicalQueryHead + itemQuery(item) + canonicalTail

  const stringToSign = (canonicalRequestHash: string): string =>
    stringToSignHead + canonicalRequestHash

  // Synchronous per URL: every piece of the canonical request is ASCII, the constant ones encoded
  // once here, and the canonical request is assembled straight into the hasher's buffer.
  const queryHeadBytes = charCodeBytes(canonicalQueryHead)
  const tailBytes = charCodeBytes(canonicalTail)
  const appendCanonicalRequest = (path: string, extra: string): void => {
    messageAscii(canonicalHead)
    messageAscii(path)
    messageBytes(queryHeadBytes)
    messageAscii(extra)
    messageBytes(tailBytes)
  }
  // Parameters in code point order, as a canonical query string is, with the signature in place.
  const urlOf = (path: string, extra: string, signature: string): string =>
    `${urlHead}${path}?${fixedQuery}&X-Amz-Signature=${signature}${signedHeadersParam}${extra}`

  const signOne = (item: PresignItem, signer: HmacSha256): string => {
    const path = pathOf(item)
    const extra = itemQuery(item)
    messageStart()
    appendCanonicalRequest(path, extra)
    return urlOf(path, extra, signer.signMessageDigestHex())
  }

  // A batch is signed SIGN_LANES URLs at a time, their canonical requests hashed side by side.
  const paths: string[] = []
  const extras: string[] = []
  const signAll = (items: readonly PresignItem[], signer: HmacSha256): string[] => {
    const urls: string[] = []
    for (let from = 0; from < items.length; from += SIGN_LANES) {
      const count = Math.min(SIGN_LANES, items.length - from)
      messageStart()
      for (let i = 0; i < count; i++) {
        const item = items[from + i]!
        const path = (paths[i] = pathOf(item))
        const extra = (extras[i] = itemQuery(item))
        if (i > 0) messageNext()
        appendCanonicalRequest(path, extra)
      }
      const signatures = signer.signMessagesDigestHex()
      for (let i = 0; i < count; i++) urls.push(urlOf(paths[i]!, extras[i]!, signatures[i]!))
    }
    return urls
  }

  return {
    expiresAt: new Date(Math.floor(input.now.getTime() / 1000) * 1000 + input.expiresIn * 1000),
    canonicalRequest,
    stringToSign,
    presign: async (item) => signOne(item, await macFor()),
    presignAll: async (items) => signAll(items, await macFor()),
  }
}
