// Uploads to an R2 origin, through the Worker: PUT URLs and part URLs are waybill's own, forms
// carry a policy waybill signs, and the rest (start, list, complete, abort a multipart upload; read
// an object back) are calls on the binding. The answers have S3's shapes, so the services above,
// the client and Uppy work as they do with an S3 origin.

import { base64Encode } from '../../core/bytes'
import { bareEtag } from '../../core/s3/parts'
import { prepareOwnSigner, type OwnTerms } from '../../core/own/url'
import { WaybillError } from '../../errors'
import type { ObjectHead, Uploads, UploadTerms } from '../types'
import { forgetCached } from './deliver'
import { signForm } from './forms'
import type { R2Settings } from './settings'
import { partsOf, storeFailure } from './store'

const expiresOf = (now: Date, expiresIn: number) => Math.floor(now.getTime() / 1000) + expiresIn

/** The R2 origin `origin`'s uploads: PUT and forms always, multipart where parts are recorded. */
export function r2Uploads(origin: string, settings: R2Settings): Uploads {
  const { bucket } = settings
  return {
    modes: settings.parts === undefined ? ['put', 'post'] : ['put', 'post', 'multipart'],
    maxBodyBytes: settings.maxBodyBytes,
    checksFormKeys: true,
    putUrl(terms: UploadTerms) {
      const expires = expiresOf(terms.now, terms.expiresIn)
      const length = terms.length
      const own: OwnTerms = {
        contentType: terms.contentType,
        length: length !== undefined && 'exact' in length ? length.exact : undefined,
        checksumSha256: terms.checksumSha256,
        metadata: terms.metadata,
        overwrite: terms.overwrite || undefined,
      }
      const [url] = prepareOwnSigner({
        secrets: terms.minting.secrets,
        base: terms.minting.base,
        origin,
        method: 'PUT',
        expires,
        issuer: terms.minting.issuer,
      }).signAll([{ key: terms.key, terms: own }])
      // Everything else the URL pins is in its query: the type is the one header to send.
      return Promise.resolve({
        url: url!,
        headers: { 'content-type': terms.contentType },
        expiresAt: new Date(expires * 1000),
      })
    },
    postForm: (terms) => Promise.resolve(signForm(origin, terms, settings.maxBodyBytes)),
    async createMultipart(key, input) {
      try {
        const upload = await bucket.createMultipartUpload(key, {
          httpMetadata: { contentType: input.contentType },
          customMetadata: { ...input.metadata },
        })
        return upload.uploadId
      } catch (error) {
        throw storeFailure('CreateMultipartUpload', error)
      }
    },
    partUrls(key, uploadId, parts, expiresIn, now, minting) {
      const expires = expiresOf(now, expiresIn)
      const signer = prepareOwnSigner({
        secrets: minting.secrets,
        base: minting.base,
        origin,
        method: 'PUT',
        expires,
        issuer: minting.issuer,
      })
      const urls = signer.signAll(
        parts.map(({ partNumber, size, checksumSha256 }) => ({
          key,
          terms: { uploadId, partNumber, length: size, checksumSha256 },
        })),
      )
      return Promise.resolve({
        parts: parts.map(({ partNumber }, i) => ({ partNumber, url: urls[i]! })),
        expiresAt: new Date(expires * 1000),
      })
    },
    async listParts(_key, uploadId) {
      const parts = await partsOf(settings, origin, uploadId).list()
      if (parts === undefined) {
        throw new WaybillError(
          'not_found',
          'This multipart upload has ended (completed or aborted).',
          {
            errors: [{ path: 'uploadId', message: 'names an upload that has ended' }],
          },
        )
      }
      return parts
    },
    async complete(key, uploadId, parts, { overwrite }) {
      // R2 completes unconditionally: an object already there is looked for first (a write
      // landing between the two is replaced; docs/r2.md, "Uploads").
      if (!overwrite && (await bucket.head(key)) !== null) {
        throw new WaybillError(
          'precondition_failed',
          'An object is already stored at this key, and this upload may not replace it.',
          { errors: [{ path: 'key', message: 'already holds an object' }] },
        )
      }
      let object: R2Object
      try {
        object = await bucket
          .resumeMultipartUpload(key, uploadId)
          .complete(parts.map(({ partNumber, etag }) => ({ partNumber, etag: bareEtag(etag) })))
      } catch (error) {
        throw completionFailure(error)
      }
      await partsOf(settings, origin, uploadId).end(Date.now())
      await forgetCached(origin, key, settings)
      return { etag: object.httpEtag }
    },
    async abort(key, uploadId) {
      try {
        await bucket.resumeMultipartUpload(key, uploadId).abort()
      } catch (error) {
        throw storeFailure('AbortMultipartUpload', error)
      }
      await partsOf(settings, origin, uploadId).end(Date.now())
    },
    async head(key, tagName): Promise<ObjectHead | undefined> {
      const object = await bucket.head(key)
      if (object === null) return undefined
      const sha256 = object.checksums.sha256
      return {
        size: object.size,
        contentType: object.httpMetadata?.contentType ?? '',
        etag: object.httpEtag,
        lastModified: object.uploaded.toUTCString(),
        checksumSha256: sha256 === undefined ? undefined : base64Encode(new Uint8Array(sha256)),
        tag: object.customMetadata?.[tagName],
      }
    },
    async deleteIfMatch(key, etag) {
      // R2 deletes unconditionally: the object is looked at first (docs/r2.md, as above).
      const object = await bucket.head(key)
      if (object === null || bareEtag(object.httpEtag) !== bareEtag(etag)) {
        throw new WaybillError('precondition_failed', 'The object at this key has changed.')
      }
      await bucket.delete(key)
      await forgetCached(origin, key, settings)
    },
  }
}

/** R2's refusals of a completion, as S3's are answered (./../s3/store.ts). */
function completionFailure(error: unknown): WaybillError {
  const message = error instanceof Error ? error.message : String(error)
  if (/\(10024\)|does not exist/i.test(message)) {
    return new WaybillError('not_found', `CompleteMultipartUpload was refused by R2: ${message}`)
  }
  if (/\(100(?:25|11)\)|could not be found|smaller than the minimum/i.test(message)) {
    return new WaybillError(
      'invalid_request',
      `CompleteMultipartUpload was refused by R2: ${message}`,
    )
  }
  return storeFailure('CompleteMultipartUpload', error)
}
