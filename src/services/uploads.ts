// Browser uploads straight to the bucket: an exact PUT URL, a POST policy, or a multipart upload
// the Worker starts, with part URLs; and the multipart follow-ups, each checked against the
// upload's sealed handle.

import * as v from 'valibot'
import { authorize, grantedOrigin, type ContentReach, type Permit } from '../auth/policy'
import type { Principal } from '../auth/principal'
import { seal, unseal } from '../auth/seal'
import type { Config, Origin, S3Origin } from '../config'
import { FIRST_PART_URLS, MAX_PARTS, MIN_PART_SIZE_BYTES } from '../config/limits'
import { invalid, WaybillError, type FieldError } from '../errors'
import type { UploadRequest } from '../schemas/uploads'
import {
  abortMultipartUpload,
  completeMultipartUpload,
  createMultipartUpload,
  listParts,
  type CompletedPart,
} from '../store/client'
import { partCountOf, partSizeOf, partUploadUrls, postUploadPolicy, putUploadUrl } from './signers'

/** A multipart upload named by its follow-ups. */
export interface UploadRef {
  origin: string
  key: string
  uploadId: string
}

const HANDLE_PURPOSE = 'multipart-upload'

/** What the origin's type or store cannot do for this upload, once a grant is known. */
function uploadFits(origin: Origin, request: UploadRequest): FieldError[] {
  if (origin.type !== 's3') {
    return [{ path: 'origin', message: 'uploads need an S3 origin, not a CloudFront one' }]
  }
  if (request.mode === 'post' && !origin.postPolicy) {
    return [
      {
        path: 'mode',
        message:
          'this origin\'s store does not accept POST uploads (postPolicy: false); use "put" or "multipart"',
      },
    ]
  }
  if (request.keyIsPrefix && origin.keys === 'safe') {
    // S3 can only say starts-with: a form could send "<prefix>../x", which some stores store as
    // "x". Nothing in a POST policy can refuse that, so on a safe origin the key must be exact.
    return [
      {
        path: 'keyPrefix',
        message:
          'cannot be used on this origin: S3\'s starts-with admits keys such as "<prefix>../x", which stores may normalize out of the prefix; send the exact "key"',
      },
    ]
  }
  return []
}

/** What an upload's signature enforces: its content type, and its length when one is signed. */
function contentOf(request: UploadRequest): ContentReach {
  const exact = request.contentLength
  return {
    type: {
      value: request.contentType,
      family: request.contentType.endsWith('/*'),
      path: 'contentType',
    },
    // A PUT without a length signs none; a POST policy then signs the grant's own limit.
    length:
      exact !== undefined ? { exact } : request.mode === 'post' ? { atMost: 'grant' } : undefined,
    lengthPath: 'contentLength',
  }
}

// The handle is bound to the origin, the caller and the key: another caller's handle, or this
// caller's for another key, does not unseal.
const boundTo = (principal: Principal, key: string) => `${principal.kind}:${principal.id}\n${key}`

function sealHandle(origin: S3Origin, principal: Principal, key: string, handle: UploadHandle) {
  return seal(origin, HANDLE_PURPOSE, handle, boundTo(principal, key))
}

/**
 * A multipart upload as waybill sealed it: the store's id and the sizes and type it was created
 * with. Anything else is not a handle waybill sealed.
 */
const Handle = v.object({
  uploadId: v.string(),
  contentLength: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  partSize: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  contentType: v.string(),
})
type UploadHandle = v.InferOutput<typeof Handle>

/**
 * The permit for a follow-up on a multipart upload: the handle must unseal for this caller and key
 * (checked only once the caller is known to hold a grant on the origin), and the caller's grants
 * must still allow what the upload was created with.
 */
async function authorizeFollowUp(
  config: Config,
  principal: Principal,
  ref: UploadRef,
  expiresIn?: number,
): Promise<{ permit: Permit; handle: UploadHandle; origin: S3Origin }> {
  const origin = grantedOrigin(config, principal, ref.origin, 'write')
  const notOurs = () =>
    new WaybillError('forbidden', 'This upload was not started by this caller for this key.', {
      errors: [{ path: 'uploadId', message: 'was not issued to this caller for this key' }],
    })
  if (origin.type !== 's3') throw notOurs()
  const handle = await unseal(
    origin,
    HANDLE_PURPOSE,
    ref.uploadId,
    boundTo(principal, ref.key),
    Handle,
  )
  if (handle === undefined) throw notOurs()
  const permit = authorize(config, principal, {
    origin: ref.origin,
    action: 'write',
    items: [{ key: ref.key }],
    itemPath: () => 'key',
    expiresIn,
    content: {
      type: { value: handle.contentType, family: false, path: 'uploadId' },
      length: { exact: handle.contentLength },
      lengthPath: 'uploadId',
    },
  })
  return { permit, handle, origin }
}

/** Strong ETags compare without their quotes (some stores quote them, some clients strip them). */
const bareEtag = (etag: string) => etag.replace(/^"|"$/g, '')

/**
 * Checks the parts a caller wants to complete against what the store holds: each was uploaded
 * with that ETag and has the size its URL pinned, and together they make the declared length.
 */
async function checkParts(
  origin: S3Origin,
  key: string,
  handle: UploadHandle,
  parts: readonly CompletedPart[],
): Promise<void> {
  const uploaded = new Map(
    (await listParts(origin, key, handle.uploadId)).map((part) => [part.partNumber, part]),
  )
  const errors: FieldError[] = []
  let total = 0
  parts.forEach(({ partNumber, etag }, i) => {
    const part = uploaded.get(partNumber)
    const expected = partSizeOf(handle.contentLength, handle.partSize, partNumber)
    if (part === undefined) {
      errors.push({ path: `parts.${i}.partNumber`, message: 'has not been uploaded' })
    } else if (bareEtag(part.etag) !== bareEtag(etag)) {
      errors.push({ path: `parts.${i}.etag`, message: 'is not the ETag of the uploaded part' })
    } else if (part.size !== expected) {
      errors.push({
        path: `parts.${i}`,
        message: `is ${part.size} bytes; part ${partNumber} of this upload must be ${expected}`,
      })
    } else total += part.size
  })
  if (errors.length === 0 && total !== handle.contentLength) {
    errors.push({
      path: 'parts',
      message: `add up to ${total} bytes; the upload was created for ${handle.contentLength} (parts 1 to ${partCountOf(handle.contentLength, handle.partSize)})`,
    })
  }
  if (errors.length > 0) throw invalid(errors)
}

/** The part size for an upload: the caller's, or 5 MiB grown in whole MiB until 10,000 parts fit. */
function choosePartSize(contentLength: number, requested: number | undefined): number {
  const MIB = 1024 * 1024
  const least = Math.max(MIN_PART_SIZE_BYTES, Math.ceil(contentLength / MAX_PARTS / MIB) * MIB)
  return Math.max(requested ?? least, least)
}

/**
 * Authorizes an upload (every write grant limit must be one its signature enforces) and issues
 * it: a PUT URL, a POST policy, or a multipart upload with its first part URLs.
 */
export async function issueUpload(
  config: Config,
  principal: Principal,
  request: UploadRequest,
  now: Date,
) {
  const permit = authorize(config, principal, {
    origin: request.origin,
    action: 'write',
    items: request.keyIsPrefix ? [] : [{ key: request.key }],
    itemPath: () => 'key',
    under: request.keyIsPrefix ? [{ prefix: request.key, path: 'keyPrefix' }] : undefined,
    expiresIn: request.expiresIn,
    content: contentOf(request),
    fits: (origin) => uploadFits(origin, request),
  })
  if (request.mode === 'put') {
    const { url, headers, expiresAt } = await putUploadUrl(permit, request, now)
    return {
      mode: 'put' as const,
      method: 'PUT' as const,
      url,
      headers,
      expiresAt: expiresAt.toISOString(),
    }
  }
  if (request.mode === 'post') {
    const post = await postUploadPolicy(permit, request, now)
    return {
      mode: 'post' as const,
      method: 'POST' as const,
      url: post.url,
      fields: post.fields,
      expiresAt: post.expiresAt.toISOString(),
    }
  }
  return startMultipart(permit, principal, request, now)
}

async function startMultipart(
  permit: Permit,
  principal: Principal,
  request: UploadRequest,
  now: Date,
) {
  const { origin } = permit
  if (origin.type !== 's3') throw new Error('uploadFits lets S3 origins only through')
  // The schema requires it for multipart.
  const contentLength = request.contentLength ?? 0
  const partSize = choosePartSize(contentLength, request.partSize)
  const partCount = partCountOf(contentLength, partSize)
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
  const { parts, expiresAt } = await partUploadUrls(permit, { uploadId, partSize }, first, now)
  const handle = await sealHandle(origin, principal, request.key, {
    uploadId,
    contentLength,
    partSize,
    contentType: request.contentType,
  })
  return {
    mode: 'multipart' as const,
    method: 'MULTIPART' as const,
    key: request.key,
    uploadId: handle,
    partSize,
    partCount,
    parts,
    expiresAt: expiresAt.toISOString(),
  }
}

/** More part URLs for an upload in progress, sized from its handle. */
export async function moreParts(
  config: Config,
  principal: Principal,
  request: UploadRef & { partNumbers: number[]; expiresIn?: number | undefined },
  now: Date,
) {
  const { permit, handle } = await authorizeFollowUp(config, principal, request, request.expiresIn)
  const partCount = partCountOf(handle.contentLength, handle.partSize)
  const beyond = request.partNumbers.flatMap((n, i) =>
    n > partCount
      ? [{ path: `partNumbers.${i}`, message: `must be a part number from 1 to ${partCount}` }]
      : [],
  )
  if (beyond.length > 0) throw invalid(beyond)
  const { parts, expiresAt } = await partUploadUrls(
    permit,
    { uploadId: handle.uploadId, partSize: handle.partSize },
    request.partNumbers,
    now,
  )
  return { parts, expiresAt: expiresAt.toISOString() }
}

/** Completes an upload once what the store holds is checked against what was signed. */
export async function completeUpload(
  config: Config,
  principal: Principal,
  request: UploadRef & { parts: CompletedPart[] },
) {
  const { handle, origin } = await authorizeFollowUp(config, principal, request)
  await checkParts(origin, request.key, handle, request.parts)
  const { etag } = await completeMultipartUpload(
    origin,
    request.key,
    handle.uploadId,
    request.parts,
  )
  return { key: request.key, etag }
}

/** Aborts an upload, its parts with it. */
export async function abortUpload(config: Config, principal: Principal, request: UploadRef) {
  const { handle, origin } = await authorizeFollowUp(config, principal, request)
  await abortMultipartUpload(origin, request.key, handle.uploadId)
}
