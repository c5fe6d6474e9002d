// Browser uploads to an S3 bucket: a PUT URL that signs every term as a header, a SigV4 POST policy
// that pins them as conditions, and the multipart lifecycle (part URLs that pin each part's size
// and checksum; the Worker's own create, list, complete and abort calls).

import { MAX_PUT_BYTES } from '../../limits'
import { signPostPolicy } from '../../core/s3/post-policy'
import { UPLOAD_MODES } from '../../schemas/fields'
import type { UploadTerms, Uploads } from '../types'
import type { Bucket } from './settings'
import {
  abortMultipartUpload,
  completeMultipartUpload,
  createMultipartUpload,
  deleteObjectIfMatch,
  headObject,
  listParts,
} from './store'
import { presignerFor } from './urls'

/**
 * The headers a PUT URL signs for `terms`: its type, its exact length, its SHA-256, its metadata
 * and, unless it may replace an object, `If-None-Match: *`, so a body of another type, size or
 * content fails at the store, as does a key already taken.
 */
function signedHeaders(terms: UploadTerms): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': terms.contentType }
  const length = terms.length
  if (length !== undefined && 'exact' in length) headers['content-length'] = String(length.exact)
  if (terms.checksumSha256 !== undefined) headers['x-amz-checksum-sha256'] = terms.checksumSha256
  if (!terms.overwrite) headers['if-none-match'] = '*'
  for (const [name, value] of Object.entries(terms.metadata)) headers[`x-amz-meta-${name}`] = value
  return headers
}

/** An S3 bucket's uploads; `post` where the store takes browser forms. */
export function s3Uploads(bucket: Bucket, postPolicy: boolean): Uploads {
  const modes = UPLOAD_MODES.filter((mode) => postPolicy || mode !== 'post')
  return {
    modes,
    async putUrl(terms) {
      const headers = signedHeaders(terms)
      const presigner = presignerFor(bucket, 'PUT', terms.expiresIn, terms.now, headers)
      const [url] = await presigner.presignAll([{ key: terms.key }])
      return { url: url!, headers, expiresAt: presigner.expiresAt }
    },
    // A POST form cannot refuse to replace an object: callers issue one only where it may.
    async postForm(terms) {
      const length = terms.length
      const exact = length !== undefined && 'exact' in length ? length.exact : undefined
      const most =
        length === undefined ? MAX_PUT_BYTES : 'exact' in length ? length.exact : length.atMost
      const { url, fields, expiresAt } = await signPostPolicy({
        endpoint: bucket.endpoint,
        bucket: bucket.bucket,
        region: bucket.region,
        credentials: bucket.credentials,
        now: terms.now,
        expiresIn: terms.expiresIn,
        key: terms.keyIsPrefix ? { startsWith: terms.key } : { eq: terms.key },
        contentType: terms.contentType,
        contentLength: { min: exact ?? 0, max: most },
        checksumSha256: terms.checksumSha256,
        metadata: terms.metadata,
        successActionStatus: terms.successActionStatus,
      })
      return { url, fields, expiresAt }
    },
    createMultipart: (key, input) =>
      createMultipartUpload(bucket, key, {
        contentType: input.contentType,
        metadata: input.metadata,
        checksumSha256: input.checksums,
      }),
    async partUrls(key, uploadId, parts, expiresIn, now) {
      // One presigner per distinct set of signed headers: every full part and the last one, or
      // each part when each signs its own checksum.
      const groups = new Map<string, { headers: Record<string, string>; numbers: number[] }>()
      for (const { partNumber, size, checksumSha256 } of parts) {
        const headers: Record<string, string> = { 'content-length': String(size) }
        if (checksumSha256 !== undefined) headers['x-amz-checksum-sha256'] = checksumSha256
        const id = `${size} ${checksumSha256 ?? ''}`
        const group = groups.get(id)
        if (group === undefined) groups.set(id, { headers, numbers: [partNumber] })
        else group.numbers.push(partNumber)
      }
      const urls = new Map<number, string>()
      let expiresAt = now
      for (const { headers, numbers } of groups.values()) {
        const presigner = presignerFor(bucket, 'PUT', expiresIn, now, headers)
        const signed = await presigner.presignAll(
          numbers.map((partNumber) => ({ key, partNumber, uploadId })),
        )
        numbers.forEach((n, i) => urls.set(n, signed[i]!))
        expiresAt = presigner.expiresAt
      }
      return {
        parts: parts.map(({ partNumber }) => ({ partNumber, url: urls.get(partNumber)! })),
        expiresAt,
      }
    },
    listParts: (key, uploadId) => listParts(bucket, key, uploadId),
    complete: (key, uploadId, parts, { overwrite }) =>
      completeMultipartUpload(bucket, key, uploadId, parts, { ifNoneMatch: !overwrite }),
    abort: (key, uploadId) => abortMultipartUpload(bucket, key, uploadId),
    head: (key, tagName) => headObject(bucket, key, tagName),
    deleteIfMatch: (key, etag) => deleteObjectIfMatch(bucket, key, etag),
  }
}
