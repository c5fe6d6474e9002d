// POST /v1/uploads/complete: the completion check of a PUT or POST upload against its receipt.
// It passes only the bytes this upload stored: the object must carry the upload's signed SHA-256
// (or the ETag the store answered the upload with), have been stored after the receipt was issued
// (on the store's clock), and be what was signed (size, type).

import { deletesMismatched, mayRead } from '../../auth/policy'
import type { Principal } from '../../principal'
import type { Config } from '../../config'
import { RECEIPT_GRACE_S } from '../../limits'
import { canonicalMediaType } from '../../core/media-type'
import { bareEtag } from '../../core/s3/parts'
import { epochSeconds } from '../../core/sigv4/time'
import { conflict, WaybillError, type FieldError } from '../../errors'
import { deleteObjectIfMatch, headObject, type ObjectHead } from '../../store/client'
import { originFor, permitFor } from '../permits'
import { releaseUploads, settleUpload } from '../quotas'
import { storedSince, unsealReceipt, type UploadReceipt } from './sealed'

/** A PUT or POST upload's completion: what the store holds, checked against its receipt. */
export interface CheckRequest {
  origin: string
  key: string
  receipt: string
  /** The ETag the store answered the upload with: required when no checksum was signed. */
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
  if (origin.type !== 's3') throw notOurs()
  const receipt = unsealReceipt(config, origin, principal, request.receipt)
  if (receipt === undefined) throw notOurs()
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
  if (receipt.checksumSha256 === undefined && request.etag === undefined) {
    // The receipt says no checksum was signed: only the store's ETag names this upload's bytes.
    throw conflict([whose(receipt, undefined, undefined)!])
  }

  const head = await headObject(origin, request.key)
  // An object stored before the receipt was issued is someone else's upload (or an earlier one):
  // not this upload's to pass, nor to delete.
  if (head === undefined || !storedSince(head, receipt.issuedAt)) {
    throw new WaybillError(
      'not_found',
      head === undefined
        ? 'Nothing has been uploaded at this key yet.'
        : 'Nothing has been uploaded at this key since this receipt was issued.',
      {
        errors: [
          {
            path: 'key',
            message:
              head === undefined
                ? 'has no object'
                : 'has no object stored since the receipt was issued',
          },
        ],
      },
    )
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
        await deleteObjectIfMatch(origin, request.key, head.etag)
        deleted = true
      } catch (error) {
        // Replaced since it was checked: not the object checked, so not deleted.
        if (!(error instanceof WaybillError) || error.code !== 'precondition_failed') throw error
      }
    }
    // Gone: its room comes back. Kept: it counts at the size it has.
    if (deleted) await releaseUploads(config, principal, receipt.quota && [receipt.quota])
    else await settleUpload(config, principal, receipt.quota, head.size)
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
  // What a quota counts of it from now on: its real size.
  await settleUpload(config, principal, receipt.quota, head.size)
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
 * Undefined when the stored object is this upload's bytes: it carries the SHA-256 the upload
 * signed or, without one the store keeps, the ETag the store answered the upload with. Otherwise
 * the field that tells it apart.
 */
function whose(
  receipt: UploadReceipt,
  head: ObjectHead | undefined,
  etag: string | undefined,
): FieldError | undefined {
  if (receipt.checksumSha256 !== undefined && (head?.checksumSha256 !== undefined || !etag)) {
    return head?.checksumSha256 === receipt.checksumSha256
      ? undefined
      : {
          path: 'checksumSha256',
          message:
            head?.checksumSha256 === undefined
              ? "was signed, but the object at this key carries none, so it is not shown to be this upload's bytes (on a store that keeps no checksums, send the etag the store answered the upload with)"
              : 'is not the SHA-256 this upload was signed with',
        }
  }
  if (etag === undefined) {
    return {
      path: 'etag',
      message:
        'is required: this upload signed no checksum, so only the ETag the store answered it with names its bytes',
    }
  }
  return bareEtag(head?.etag ?? '') === bareEtag(etag)
    ? undefined
    : { path: 'etag', message: 'is not the ETag of the object at this key' }
}
