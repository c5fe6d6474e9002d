// What an upload hands its caller to bring back: a multipart upload's handle (the `uploadId`) and a
// PUT or POST upload's receipt. Both are sealed tokens (src/core/token.ts) bound to the origin and
// the caller (a handle to its key too), so no one else can use them, and carry what was signed, so
// no later call can change it.
//
// Each also carries its upload's tag: a random value the upload's artifact signs as the metadata
// `x-amz-meta-waybill-upload` (a PUT URL's signed header, a POST policy's `eq` condition, the
// multipart upload's own metadata), which the store keeps with the object. Only an object carrying
// the tag was stored through this upload's artifact, whenever it was stored: that, not a clock,
// is what a completion check, a repeated complete, an event or `deleteMismatched` goes by.

import * as v from 'valibot'
import { principalBinding, type Principal } from '../../principal'
import type { Config, Origin } from '../../config'
import { base64UrlEncode } from '../../core/bytes'
import { sealed } from '../../schemas/sealed'
import { SINGLE_UPLOAD_MODES, UPLOAD_TAG_CHARS } from '../../schemas/fields'

const HANDLE_PURPOSE = 'multipart-upload'
const RECEIPT_PURPOSE = 'upload-receipt'

const Count = v.pipe(v.number(), v.integer(), v.minValue(0))
/** The upload's reservation against a quota (src/services/quotas.ts), when one counts it. */
const Reserved = v.optional(v.object({ q: v.string(), r: v.string() }))
/** The upload's tag, as the store keeps it (see above). */
const Tag = v.pipe(
  v.string(),
  v.check((tag) => tag.length === UPLOAD_TAG_CHARS),
)

/** A new upload's tag: 16 random bytes, base64url. */
export function newUploadTag(): string {
  return base64UrlEncode(crypto.getRandomValues(new Uint8Array(16)))
}

/**
 * A multipart upload as waybill sealed it: the store's id, the sizes and type it was created with,
 * whether each part signs its SHA-256, whether it may replace an object, and its tag.
 */
const Handle = v.object({
  uploadId: v.string(),
  contentLength: Count,
  partSize: v.pipe(v.number(), v.integer(), v.minValue(1)),
  contentType: v.string(),
  checksums: v.boolean(),
  overwrite: v.boolean(),
  tag: Tag,
  quota: Reserved,
})
export type UploadHandle = v.InferOutput<typeof Handle>

/**
 * What a PUT URL or POST policy was signed for: the key (or the prefix a form may extend), the
 * content type, the exact length or the most admitted, the checksum, whether it may replace an
 * object, its tag; and until when it can be checked (epoch seconds).
 */
const Receipt = v.object({
  key: v.string(),
  keyIsPrefix: v.boolean(),
  mode: v.picklist(SINGLE_UPLOAD_MODES),
  contentType: v.string(),
  exact: v.optional(Count),
  atMost: v.optional(Count),
  checksumSha256: v.optional(v.string()),
  overwrite: v.boolean(),
  tag: Tag,
  expiresAt: v.pipe(v.number(), v.integer()),
  quota: Reserved,
})
export type UploadReceipt = v.InferOutput<typeof Receipt>

// A handle is bound to the origin, the caller and the key: another caller's handle, or this
// caller's for another key or origin, does not open. A receipt names its key itself.
const handles = sealed(
  HANDLE_PURPOSE,
  Handle,
  (origin: Origin, principal: Principal, key: string) =>
    `${origin.name}\n${principalBinding(principal)}\n${key}`,
)
const receipts = sealed(
  RECEIPT_PURPOSE,
  Receipt,
  (origin: Origin, principal: Principal) => `${origin.name}\n${principalBinding(principal)}`,
)

export function sealHandle(
  config: Config,
  origin: Origin,
  principal: Principal,
  key: string,
  handle: UploadHandle,
): string {
  return handles.seal(config.tokenSecrets, handle, origin, principal, key)
}

/** The handle waybill sealed for this origin, caller and key, or undefined. */
export function unsealHandle(
  config: Config,
  origin: Origin,
  principal: Principal,
  key: string,
  token: string,
): UploadHandle | undefined {
  const opened = handles.open(config.tokenSecrets, token, origin, principal, key)
  return 'value' in opened ? opened.value : undefined
}

export function sealReceipt(
  config: Config,
  origin: Origin,
  principal: Principal,
  receipt: UploadReceipt,
): string {
  return receipts.seal(config.tokenSecrets, receipt, origin, principal)
}

/** The receipt waybill sealed for this origin and caller, or undefined. */
export function unsealReceipt(
  config: Config,
  origin: Origin,
  principal: Principal,
  token: string,
): UploadReceipt | undefined {
  const opened = receipts.open(config.tokenSecrets, token, origin, principal)
  return 'value' in opened ? opened.value : undefined
}
