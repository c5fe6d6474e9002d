import { Hono } from 'hono'
import { authorizeUpload, type AuthorizedUpload } from '../auth/policy'
import type { Clock } from '../clock'
import type { Config, S3Origin } from '../config'
import type { Principal } from '../auth/principal'
import { FIRST_PART_URLS, MAX_PARTS, MAX_PUT_BYTES } from '../constants'
import { signPostPolicy } from '../core/s3/post-policy'
import { invalid } from '../errors'
import { readJsonBody } from '../http/json-body'
import type { AppEnv } from '../http/types'
import { abortMultipartUpload, completeMultipartUpload, createMultipartUpload } from '../s3/client'
import { batchSigner } from '../signing'
import {
  choosePartSize,
  parseAbortRequest,
  parseCompleteRequest,
  parsePartsRequest,
  parseUploadRequest,
  type UploadRequest,
} from './upload-request'

/** Uploads go to S3 origins only: CloudFront signs reads. */
function s3Origin(authorized: AuthorizedUpload): S3Origin {
  if (authorized.origin.type !== 's3') {
    throw invalid([{ path: 'origin', message: 'uploads need an S3 origin, not a CloudFront one' }])
  }
  return authorized.origin
}

/** The headers a PUT URL pins, which the browser must send exactly. */
function putHeaders(request: UploadRequest): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': request.contentType }
  if (request.contentLength !== undefined) {
    headers['content-length'] = String(request.contentLength)
  }
  if (request.checksumSha256 !== undefined) {
    headers['x-amz-checksum-sha256'] = request.checksumSha256
  }
  if (request.ifNoneMatch) headers['if-none-match'] = '*'
  for (const [name, value] of Object.entries(request.metadata)) {
    headers[`x-amz-meta-${name}`] = value
  }
  return headers
}

/** Part URLs, each pinning its exact size so the parts add up to the declared length. */
async function partUrls(
  origin: S3Origin,
  key: string,
  uploadId: string,
  partNumbers: readonly number[],
  sizes: { contentLength: number; partSize: number },
  expiresIn: number,
  now: Date,
): Promise<{ parts: { partNumber: number; url: string }[]; expiresAt: Date }> {
  const partCount = Math.max(1, Math.ceil(sizes.contentLength / sizes.partSize))
  const sizeOf = (n: number) =>
    n < partCount ? sizes.partSize : sizes.contentLength - sizes.partSize * (partCount - 1)
  // One batch signer per distinct size: every full part, and the last one.
  const bySize = new Map<number, number[]>()
  for (const n of partNumbers) bySize.set(sizeOf(n), [...(bySize.get(sizeOf(n)) ?? []), n])
  const urls = new Map<number, string>()
  let expiresAt = now
  for (const [size, numbers] of bySize) {
    const signer = batchSigner(origin, {
      method: 'PUT',
      expiresIn,
      now,
      headers: { 'content-length': String(size) },
    })
    const signed = await signer.signAll(
      numbers.map((partNumber) => ({ key, partNumber, uploadId })),
    )
    numbers.forEach((n, i) => urls.set(n, signed[i]!))
    expiresAt = signer.expiresAt
  }
  return {
    parts: partNumbers.map((partNumber) => ({ partNumber, url: urls.get(partNumber)! })),
    expiresAt,
  }
}

function authorizeRef(
  config: Config,
  principal: Principal,
  ref: { origin: string; key: string },
  contentLength?: number,
  expiresIn?: number,
): AuthorizedUpload {
  // Follow-up calls carry no content type: any write grant covering the key will do.
  return authorizeUpload(config, principal, {
    origin: ref.origin,
    key: ref.key,
    keyIsPrefix: false,
    contentType: undefined,
    contentLength,
    expiresIn,
  })
}

/**
 * Browser uploads straight to the bucket: `POST /v1/uploads` (an exact PUT URL, a POST policy, or
 * a multipart upload with part URLs) and the multipart follow-ups.
 */
export function uploadRoutes(clock: Clock) {
  const app = new Hono<AppEnv>()

  app.post('/', async (c) => {
    const config = c.get('config')
    const request = parseUploadRequest(await readJsonBody(c))
    Object.assign(c.get('log'), {
      origin: request.origin,
      action: 'write',
      mode: request.mode,
      items: 1,
    })
    const configured = config.origins.get(request.origin)
    if (request.mode === 'post' && configured?.type === 's3' && !configured.postPolicy) {
      throw invalid([
        {
          path: 'mode',
          message:
            'this origin\'s store does not accept POST uploads (postPolicy: false); use "put" or "multipart"',
        },
      ])
    }
    const authorized = authorizeUpload(config, c.get('principal'), {
      origin: request.origin,
      key: request.key,
      keyIsPrefix: request.keyIsPrefix,
      contentType: request.contentType,
      contentLength: request.contentLength,
      expiresIn: request.expiresIn,
    })
    const origin = s3Origin(authorized)
    const now = clock()
    const noStore = { 'cache-control': 'no-store' }

    if (request.mode === 'put') {
      if (authorized.maxContentLength !== undefined && request.contentLength === undefined) {
        throw invalid([
          {
            path: 'contentLength',
            message: `is required: this caller's uploads are limited to ${authorized.maxContentLength} bytes, and only a signed length enforces that`,
          },
        ])
      }
      const headers = putHeaders(request)
      const signer = batchSigner(origin, {
        method: 'PUT',
        expiresIn: authorized.expiresIn,
        now,
        headers,
      })
      const [url] = await signer.signAll([{ key: request.key }])
      // Browsers send Content-Length from the body themselves (fetch ignores it in `headers`).
      return c.json(
        { method: 'PUT', url, headers, expiresAt: signer.expiresAt.toISOString() },
        200,
        noStore,
      )
    }

    if (request.mode === 'post') {
      const max = request.contentLength ?? authorized.maxContentLength ?? MAX_PUT_BYTES
      const family = request.contentType.endsWith('/*')
      const post = await signPostPolicy({
        endpoint: origin.endpoint,
        bucket: origin.bucket,
        region: origin.region,
        credentials: origin.credentials,
        now,
        expiresIn: authorized.expiresIn,
        key: request.keyIsPrefix ? { startsWith: request.key } : { eq: request.key },
        contentType: family
          ? { startsWith: request.contentType.slice(0, -1) }
          : { eq: request.contentType },
        contentLength: { min: request.contentLength ?? 0, max },
        metadata: request.metadata,
        successActionStatus: request.successActionStatus,
      })
      return c.json(
        {
          method: 'POST',
          url: post.url,
          fields: post.fields,
          expiresAt: post.expiresAt.toISOString(),
        },
        200,
        noStore,
      )
    }

    const contentLength = request.contentLength!
    const partSize = choosePartSize(contentLength, request.partSize)
    const partCount = Math.max(1, Math.ceil(contentLength / partSize))
    if (partCount > MAX_PARTS) {
      throw invalid([
        { path: 'partSize', message: `makes ${partCount} parts; S3 allows ${MAX_PARTS}` },
      ])
    }
    const uploadId = await createMultipartUpload(origin, request.key, {
      contentType: request.contentType,
      metadata: request.metadata,
    })
    const first = Array.from({ length: Math.min(partCount, FIRST_PART_URLS) }, (_, i) => i + 1)
    const { parts, expiresAt } = await partUrls(
      origin,
      request.key,
      uploadId,
      first,
      { contentLength, partSize },
      authorized.expiresIn,
      now,
    )
    return c.json(
      {
        method: 'MULTIPART',
        key: request.key,
        uploadId,
        partSize,
        partCount,
        parts,
        expiresAt: expiresAt.toISOString(),
      },
      200,
      noStore,
    )
  })

  app.post('/multipart/parts', async (c) => {
    const request = parsePartsRequest(await readJsonBody(c))
    Object.assign(c.get('log'), {
      origin: request.origin,
      action: 'write',
      items: request.partNumbers.length,
    })
    const authorized = authorizeRef(
      c.get('config'),
      c.get('principal'),
      request,
      request.contentLength,
      request.expiresIn,
    )
    const { parts, expiresAt } = await partUrls(
      s3Origin(authorized),
      request.key,
      request.uploadId,
      request.partNumbers,
      request,
      authorized.expiresIn,
      clock(),
    )
    return c.json({ parts, expiresAt: expiresAt.toISOString() }, 200, {
      'cache-control': 'no-store',
    })
  })

  app.post('/multipart/complete', async (c) => {
    const request = parseCompleteRequest(await readJsonBody(c))
    Object.assign(c.get('log'), {
      origin: request.origin,
      action: 'write',
      items: request.parts.length,
    })
    const origin = s3Origin(authorizeRef(c.get('config'), c.get('principal'), request))
    const { etag } = await completeMultipartUpload(
      origin,
      request.key,
      request.uploadId,
      request.parts,
    )
    return c.json({ key: request.key, etag }, 200, { 'cache-control': 'no-store' })
  })

  app.post('/multipart/abort', async (c) => {
    const request = parseAbortRequest(await readJsonBody(c))
    Object.assign(c.get('log'), { origin: request.origin, action: 'write', items: 1 })
    const origin = s3Origin(authorizeRef(c.get('config'), c.get('principal'), request))
    await abortMultipartUpload(origin, request.key, request.uploadId)
    return c.body(null, 204, { 'cache-control': 'no-store' })
  })

  return app
}
