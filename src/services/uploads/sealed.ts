// What an upload hands its caller to bring back: a multipart upload's handle (the `uploadId`) and a
// PUT or POST upload's receipt. Both are sealed tokens (src/core/token.ts) bound to the origin and
// the caller (a handle to its key too), so no one else can use them, and carry what was signed, so
// no later call can change it.

import * as v from 'valibot'
import { principalName, type Principal } from '../../principal'
import type { Config, S3Origin } from '../../config'
import { STORE_CLOCK_SLACK_S } from '../../limits'
import { openToken, sealToken } from '../../core/token'
import type { ObjectHead } from '../../store/client'

const HANDLE_PURPOSE = 'multipart-upload'
const RECEIPT_PURPOSE = 'upload-receipt'

const Count = v.pipe(v.number(), v.safeInteger(), v.minValue(0))
/** The upload's reservation against a quota (src/services/quotas.ts), when one counts it. */
const Reserved = v.optional(v.object({ q: v.string(), r: v.string() }))

/**
 * A multipart upload as waybill sealed it: the store's id, the sizes and type it was created with,
 * whether each part signs its SHA-256, and whether it may replace an object. Times are epoch
 * seconds.
 */
const Handle = v.object({
  uploadId: v.string(),
  contentLength: Count,
  partSize: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  contentType: v.string(),
  checksums: v.boolean(),
  overwrite: v.boolean(),
  createdAt: v.pipe(v.number(), v.safeInteger()),
  quota: Reserved,
})
export type UploadHandle = v.InferOutput<typeof Handle>

/**
 * What a PUT URL or POST policy was signed for: the key (or the prefix a form may extend), the
 * content type, the exact length or the most admitted, the checksum, whether it may replace an
 * object; when it was issued, and until when it can be checked (epoch seconds).
 */
const Receipt = v.object({
  key: v.string(),
  keyIsPrefix: v.boolean(),
  mode: v.picklist(['put', 'post']),
  contentType: v.string(),
  exact: v.optional(Count),
  atMost: v.optional(Count),
  checksumSha256: v.optional(v.string()),
  overwrite: v.boolean(),
  issuedAt: v.pipe(v.number(), v.safeInteger()),
  expiresAt: v.pipe(v.number(), v.safeInteger()),
  quota: Reserved,
})
export type UploadReceipt = v.InferOutput<typeof Receipt>

// A handle is bound to the origin, the caller and the key: another caller's handle, or this
// caller's for another key or origin, does not open. A receipt names its key itself.
const handleBinding = (origin: S3Origin, principal: Principal, key: string) =>
  `${origin.name}\n${principalName(principal)}\n${key}`
const receiptBinding = (origin: S3Origin, principal: Principal) =>
  `${origin.name}\n${principalName(principal)}`

/** What `schema` makes of a token sealed for `purpose` and `binding`; undefined for anything else. */
function opened<const TSchema extends v.GenericSchema>(
  config: Config,
  purpose: string,
  token: string,
  binding: string,
  schema: TSchema,
): v.InferOutput<TSchema> | undefined {
  const result = openToken(config.tokenSecrets, purpose, token, binding)
  if ('fault' in result) return undefined
  const parsed = v.safeParse(schema, result.value)
  return parsed.success ? parsed.output : undefined
}

export function sealHandle(
  config: Config,
  origin: S3Origin,
  principal: Principal,
  key: string,
  handle: UploadHandle,
): string {
  return sealToken(
    config.tokenSecrets,
    HANDLE_PURPOSE,
    handle,
    handleBinding(origin, principal, key),
  )
}

/** The handle waybill sealed for this origin, caller and key, or undefined. */
export function unsealHandle(
  config: Config,
  origin: S3Origin,
  principal: Principal,
  key: string,
  token: string,
): UploadHandle | undefined {
  return opened(config, HANDLE_PURPOSE, token, handleBinding(origin, principal, key), Handle)
}

export function sealReceipt(
  config: Config,
  origin: S3Origin,
  principal: Principal,
  receipt: UploadReceipt,
): string {
  return sealToken(config.tokenSecrets, RECEIPT_PURPOSE, receipt, receiptBinding(origin, principal))
}

/** The receipt waybill sealed for this origin and caller, or undefined. */
export function unsealReceipt(
  config: Config,
  origin: S3Origin,
  principal: Principal,
  token: string,
): UploadReceipt | undefined {
  return opened(config, RECEIPT_PURPOSE, token, receiptBinding(origin, principal), Receipt)
}

/**
 * Whether the store wrote the object at `epochS` (this Worker's clock) or later, judged on the
 * store's own clock: the offset between the two is read off the `Date` of the store's answer.
 */
export function storedSince(head: ObjectHead, epochS: number): boolean {
  const stored = Date.parse(head.lastModified)
  if (!Number.isFinite(stored)) return false
  const offsetMs = Number.isFinite(head.storeNow) ? head.storeNow - head.localNow : 0
  const sinceS = Math.floor((epochS * 1000 + offsetMs) / 1000)
  return Math.floor(stored / 1000) >= sinceS - STORE_CLOCK_SLACK_S
}
