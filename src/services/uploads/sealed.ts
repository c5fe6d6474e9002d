// What an upload hands its caller to bring back: a multipart upload's handle (the `uploadId`) and a
// PUT or POST upload's receipt. Both are sealed (src/auth/seal.ts), bound to the caller, so no one
// else can use them, and carry what was signed, so no later call can change it.

import * as v from 'valibot'
import { principalName, type Principal } from '../../auth/principal'
import { seal, unseal } from '../../auth/seal'
import type { S3Origin } from '../../config'
import { STORE_CLOCK_SLACK_S } from '../../config/limits'
import type { ObjectHead } from '../../store/client'

const HANDLE_PURPOSE = 'multipart-upload'
const RECEIPT_PURPOSE = 'upload-receipt'

const Count = v.pipe(v.number(), v.safeInteger(), v.minValue(0))

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
})
export type UploadReceipt = v.InferOutput<typeof Receipt>

// A handle is bound to the origin, the caller and the key: another caller's handle, or this
// caller's for another key, does not unseal. A receipt names its key itself.
const handleBinding = (principal: Principal, key: string) => `${principalName(principal)}\n${key}`

export function sealHandle(
  origin: S3Origin,
  principal: Principal,
  key: string,
  handle: UploadHandle,
): Promise<string> {
  return seal(origin, HANDLE_PURPOSE, handle, handleBinding(principal, key))
}

/** The handle waybill sealed for this caller and key, or undefined. */
export function unsealHandle(
  origin: S3Origin,
  principal: Principal,
  key: string,
  sealed: string,
): Promise<UploadHandle | undefined> {
  return unseal(origin, HANDLE_PURPOSE, sealed, handleBinding(principal, key), Handle)
}

export function sealReceipt(
  origin: S3Origin,
  principal: Principal,
  receipt: UploadReceipt,
): Promise<string> {
  return seal(origin, RECEIPT_PURPOSE, receipt, principalName(principal))
}

/** The receipt waybill sealed for this caller, or undefined. */
export function unsealReceipt(
  origin: S3Origin,
  principal: Principal,
  sealed: string,
): Promise<UploadReceipt | undefined> {
  return unseal(origin, RECEIPT_PURPOSE, sealed, principalName(principal), Receipt)
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
