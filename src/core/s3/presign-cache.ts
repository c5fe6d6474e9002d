// The single URL as cheap as a batch: what `prepareS3Presign` builds once per batch (scope and
// credential, the constant query, the canonical request's constant parts, the string to sign's
// hashed head) depends only on the credentials, endpoint, region, method, lifetime and signing
// second. A redirect signs one URL per request, so the same presigner is kept per isolate for the
// next request with the same inputs: within a signing window every request hits; without one,
// every request in the same second does.
//
// Pure but for that memo (as the signing keys of ../sigv4/crypto.ts are kept): the same inputs give
// the same presigner, whose URLs are byte-identical to a fresh one's (test/core/s3/presign-cache).

import { BoundedCache } from '../cache'
import { PRESIGNER_CACHE_ENTRIES } from '../limits'
import {
  prepareS3Presign,
  type Credentials,
  type PresignBatchInput,
  type S3Presigner,
} from './presign'

// Per credentials object (config makes one per isolate, frozen), so no secret is ever part of a
// cache key and a new config never meets an old presigner.
const presigners = new WeakMap<Readonly<Credentials>, BoundedCache<string, S3Presigner>>()

/**
 * `prepareS3Presign(input)`, reused while the inputs are the same. Presigners that sign request
 * headers (uploads, whose headers vary per request) are not kept.
 *
 * @example
 * // Two redirects in one signing window share one presigner: only their keys are hashed.
 * const presigner = cachedS3Presign({ endpoint, region, credentials, method: 'GET', expiresIn, now })
 */
export function cachedS3Presign(input: PresignBatchInput): S3Presigner {
  if (input.headers !== undefined) return prepareS3Presign(input)
  const { endpoint, region, method, expiresIn, service = 's3', credentials } = input
  const second = Math.floor(input.now.getTime() / 1000)
  const id = `${method} ${endpoint.protocol}//${endpoint.host}${endpoint.basePath} ${region} ${service} ${expiresIn} ${second}`
  let kept = presigners.get(credentials)
  if (kept === undefined) {
    presigners.set(credentials, (kept = new BoundedCache(PRESIGNER_CACHE_ENTRIES)))
  }
  const cached = kept.get(id)
  if (cached !== undefined) return cached
  // Built before it is kept: a refused input (a bad lifetime) throws and leaves nothing behind.
  const presigner = prepareS3Presign(input)
  kept.set(id, presigner)
  return presigner
}
