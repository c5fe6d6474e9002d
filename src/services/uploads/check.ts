// POST /v1/uploads/complete: the completion check of a PUT or POST upload against its receipt.
// It passes only what this upload stored: the object must carry the upload's tag (the metadata its
// URL or policy signed, see ./sealed.ts), which no other artifact can write, and be what was
// signed (size, type, checksum). No clock decides it: an object another caller stored at the key,
// before or after the receipt was issued, carries no such tag.

import { deletesMismatched, mayRead } from '../../auth/policy'
import type { Principal } from '../../principal'
import type { Config } from '../../config'
import { RECEIPT_GRACE_S } from '../../limits'
import { canonicalMediaType } from '../../core/media-type'
import { bareEtag } from '../../core/s3/parts'
import { epochSeconds } from '../../core/sigv4/time'
import { WaybillError, type FieldError } from '../../errors'
import { UPLOAD_TAG } from '../../schemas/fields'
import type { ObjectHead } from '../../origins/types'
import { originFor, permitFor } from '../permits'
import { releaseUploads, settleUpload } from '../quotas'
import { unsealReceipt, type UploadReceipt } from './sealed'

/** A PUT or POST upload's completion: what the store holds, checked against its receipt. */
export interface CheckRequest {
  origin: string
  key: string
  receipt: string
  /** The ETag the store answered the upload with: when given, the object must still be it. */
  etag?: string | undefined
}

/** How the stored object differs from its receipt, as field errors (none: it is what was signed). */
function differences(receipt: UploadReceipt, head: ObjectHead): FieldError[] {
  const errors: FieldError[] = []
  if (receipt.exact !== undefined && head.size !== receipt.exact) {
    errors.push({
      path: 'size',
      message: `is ${head.size} bytes; the upload was signed for exactly ${receipt.exact}`,
    })
  } else if (receipt.atMost !== undefined && head.size > receipt.atMost) {
    errors.push({
      path: 'size',
      message: `is ${head.size} bytes; the upload was signed for at most ${receipt.atMost}`,
    })
  }
  if (canonicalMediaType(head.contentType) !== receipt.contentType) {
    errors.push({
      path: 'contentType',
      message: `is not "${receipt.contentType}", the type the upload was signed for`,
    })
  }
  // A store that keeps checksums refuses other bytes than the signed ones; one that does not
  // enforce them must not pass them either.
  if (
    receipt.checksumSha256 !== undefined &&
    head.checksumSha256 !== undefined &&
    head.checksumSha256 !== receipt.checksumSha256
  ) {
    errors.push({
      path: 'checksumSha256',
      message: 'is not the SHA-256 the upload was signed with',
    })
  }
  return errors
}

/**
 * Checks that a PUT or POST upload finished and stored what was signed, and answers the object.
 * An object that is not this upload's bytes is never passed nor deleted (422); this upload's bytes
 * that are not what was signed are a 422 naming each difference (to a caller that may read the
 * key), deleted first, only while unchanged, where a grant says `deleteMismatched`.
 */
export async function checkUpload(
  config: Config,
  principal: Principal,
  request: CheckRequest,
  now: Date,
) {
  const origin = originFor(config, principal, request.origin, 'write')
  const notOurs = () =>
    new WaybillError('forbidden', 'This receipt was not issued to this caller.', {
      errors: [{ path: 'receipt', message: 'was not issued to this caller on this origin' }],
    })
  const uploads = origin.uploads
  const receipt =
    uploads === undefined ? undefined : unsealReceipt(config, origin, principal, request.receipt)
  if (uploads === undefined || receipt === undefined) throw notOurs()
  if (epochSeconds(now) > receipt.expiresAt) {
    throw new WaybillError(
      'gone',
      `This receipt expired at ${new Date(receipt.expiresAt * 1000).toISOString()}: a receipt is checked within ${RECEIPT_GRACE_S} s of its upload's expiry.`,
      { errors: [{ path: 'receipt', message: 'has expired' }] },
    )
  }
  const fits = receipt.keyIsPrefix
    ? request.key.startsWith(receipt.key)
    : request.key === receipt.key
  if (!fits) {
    // A receipt vouches for one key (or prefix) only: any other is one it was not issued for.
    throw new WaybillError('forbidden', 'This receipt was not issued for this key.', {
      errors: [
        {
          path: 'key',
          message: receipt.keyIsPrefix
            ? 'must start with the keyPrefix this receipt was issued for'
            : 'is not the key this receipt was issued for',
        },
      ],
    })
  }
  // One grant of the caller must still admit what was signed.
  permitFor(config, principal, {
    kind: 'upload',
    origin: request.origin,
    target: { key: request.key, path: 'key' },
    content: {
      type: { value: receipt.contentType, path: 'receipt' },
      length:
        receipt.exact !== undefined
          ? { exact: receipt.exact }
          : receipt.atMost !== undefined
            ? { atMost: receipt.atMost }
            : undefined,
      lengthPath: 'receipt',
      checksumSha256: receipt.checksumSha256,
      overwrite: receipt.overwrite ? { path: 'receipt' } : undefined,
    },
  })
  const head = await uploads.head(request.key, UPLOAD_TAG)
  if (head === undefined) {
    throw new WaybillError('not_found', 'Nothing has been uploaded at this key yet.', {
      errors: [{ path: 'key', message: 'has no object' }],
    })
  }
  const identity = whose(receipt, head, request.etag)
  if (identity !== undefined) {
    throw new WaybillError(
      'upload_mismatch',
      'The object at this key is not the one this upload stored; it was neither passed nor deleted.',
      { errors: [identity] },
    )
  }

  const errors = differences(receipt, head)
  if (errors.length > 0) {
    let deleted = false
    if (deletesMismatched(config, principal, origin, request.key)) {
      try {
        await uploads.deleteIfMatch(request.key, head.etag)
        deleted = true
      } catch (error) {
        // Replaced since it was checked: not the object checked, so not deleted.
        if (!(error instanceof WaybillError) || error.code !== 'precondition_failed') throw error
      }
    }
    // Gone: its room comes back. Kept: it counts at the size it has.
    if (deleted) await releaseUploads(config, principal, receipt.quota && [receipt.quota], now)
    else await settleUpload(config, principal, receipt.quota, head.size, now)
    const shown = mayRead(config, principal, origin, request.key)
    throw new WaybillError(
      'upload_mismatch',
      shown
        ? `The object at this key is not what was signed: ${errors[0]!.path} ${errors[0]!.message}.${deleted ? ' It has been deleted.' : ''}`
        : `The object at this key is not what was signed.${deleted ? ' It has been deleted.' : ''}`,
      // What the object is, only to a caller that may read it.
      { errors: shown ? errors : errors.map(({ path }) => ({ path, message: 'differs' })) },
    )
  }
  // What a quota counts of it once its URL or policy can store no more: its real size.
  await settleUpload(config, principal, receipt.quota, head.size, now)
  return {
    origin: origin.name,
    key: request.key,
    size: head.size,
    contentType: receipt.contentType,
    etag: head.etag,
    lastModified: head.lastModified,
    ...(head.checksumSha256 === undefined ? {} : { checksumSha256: head.checksumSha256 }),
    mode: receipt.mode,
  }
}

/**
 * Undefined when the object is what this upload's artifact stored: it carries the upload's tag
 * and, when the caller names the ETag the store answered it with, is still those bytes. Otherwise
 * the field that tells it apart.
 */
function whose(
  receipt: UploadReceipt,
  head: ObjectHead,
  etag: string | undefined,
): FieldError | undefined {
  if (head.tag !== receipt.tag) {
    return {
      path: 'key',
      message: `holds an object this upload did not store (it does not carry the upload's ${UPLOAD_TAG} tag)`,
    }
  }
  if (etag !== undefined && bareEtag(head.etag) !== bareEtag(etag)) {
    return { path: 'etag', message: 'is not the ETag of the object at this key' }
  }
  return undefined
}
