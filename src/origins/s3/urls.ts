// Presigned SigV4 URLs for an S3 origin's objects: one presigner per batch (the one the last batch
// like it used, if any: ../../core/s3/presign-cache.ts), each item's key, version and response
// overrides in its URL.

import type { PresignMethod } from '../../core/s3/presign'
import { cachedS3Presign } from '../../core/s3/presign-cache'
import { sha256AsciiHex } from '../../core/sigv4/sha256'
import type { SigningTime } from '../../core/window'
import type { BatchSigner, ObjectItem, Urls } from '../types'
import type { Bucket } from './settings'

/** A presigner for one batch on `bucket` (one that signs request headers is never kept). */
export function presignerFor(
  bucket: Bucket,
  method: PresignMethod,
  expiresIn: number,
  now: Date,
  headers?: Readonly<Record<string, string>>,
) {
  const { endpoint, region, credentials } = bucket
  return cachedS3Presign({ endpoint, region, credentials, method, expiresIn, now, headers })
}

/** An S3 origin's URLs: every method, versions and response overrides, HMAC-signed. */
export function s3Urls(bucket: Bucket): Urls {
  return {
    methods: ['GET', 'HEAD', 'PUT', 'DELETE'],
    versions: true,
    overrides: true,
    rsaSignatures: 0,
    signer(items: readonly ObjectItem[], method, time: SigningTime): BatchSigner {
      const presigner = presignerFor(bucket, method, time.lifetime, time.signedAt)
      return {
        expiresAt: presigner.expiresAt,
        signedAt: time.signedAt,
        sign: (from = 0, to = items.length) =>
          presigner.presignAll(from === 0 && to === items.length ? items : items.slice(from, to)),
        explain(item) {
          const canonicalRequest = presigner.canonicalRequest(item)
          return {
            canonicalRequest,
            stringToSign: presigner.stringToSign(sha256AsciiHex(canonicalRequest)),
          }
        },
      }
    },
  }
}
