// The follow-ups of a multipart upload, each named by its sealed handle: more part URLs, the parts
// the store holds (to resume), complete (once every part is checked), abort.

import type { Principal } from '../../principal'
import type { Config } from '../../config'
import { canonicalMediaType } from '../../core/media-type'
import { bareEtag, multipartEtag, partCountOf, partSizeOf } from '../../core/s3/parts'
import { conflict, WaybillError, type FieldError } from '../../errors'
import type { CompletedPart, UploadedPart, Uploads } from '../../origins/types'
import { mintingFor, originFor, permitFor } from '../permits'
import { releaseUploads, settleUpload } from '../quotas'
import { partUploadUrls } from '../signers'
import type { Permit } from '../../auth/policy'
import { UPLOAD_TAG } from '../../schemas/fields'
import { unsealHandle, type UploadHandle } from './sealed'

/** A multipart upload named by its follow-ups. */
export interface UploadRef {
  origin: string
  key: string
  uploadId: string
}

/**
 * The permit for a follow-up on a multipart upload: the handle must unseal for this caller and key
 * (checked only once the caller is known to hold a grant on the origin), and one grant of the
 * caller must still allow what the upload was created with.
 */
function authorizeFollowUp(
  config: Config,
  principal: Principal,
  ref: UploadRef,
  expiresIn?: number,
): { permit: Permit; handle: UploadHandle; uploads: Uploads } {
  const origin = originFor(config, principal, ref.origin, 'write')
  const notOurs = () =>
    new WaybillError('forbidden', 'This upload was not started by this caller for this key.', {
      errors: [{ path: 'uploadId', message: 'was not issued to this caller for this key' }],
    })
  const uploads = origin.uploads
  const handle =
    uploads === undefined
      ? undefined
      : unsealHandle(config, origin, principal, ref.key, ref.uploadId)
  if (uploads === undefined || handle === undefined) throw notOurs()
  const permit = permitFor(config, principal, {
    kind: 'upload',
    origin: ref.origin,
    target: { key: ref.key, path: 'key' },
    expiresIn,
    content: {
      type: { value: handle.contentType, path: 'uploadId' },
      length: { exact: handle.contentLength },
      lengthPath: 'uploadId',
      overwrite: handle.overwrite ? { path: 'uploadId' } : undefined,
    },
  })
  return { permit, handle, uploads }
}

/** More part URLs for an upload in progress, sized from its handle (and signing each checksum). */
export async function moreParts(
  config: Config,
  principal: Principal,
  request: UploadRef & {
    partNumbers: number[]
    checksums?: string[] | undefined
    expiresIn?: number | undefined
  },
  now: Date,
  base: string,
) {
  const { permit, handle } = authorizeFollowUp(config, principal, request, request.expiresIn)
  const partCount = partCountOf(handle.contentLength, handle.partSize)
  const errors: FieldError[] = request.partNumbers.flatMap((n, i) =>
    n > partCount
      ? [{ path: `partNumbers.${i}`, message: `must be a part number from 1 to ${partCount}` }]
      : [],
  )
  if (handle.checksums && request.checksums === undefined) {
    errors.push({
      path: 'checksums',
      message:
        "is required: this upload was created with partChecksums, so each part URL signs its part's SHA-256",
    })
  } else if (!handle.checksums && request.checksums !== undefined) {
    errors.push({
      path: 'checksums',
      message:
        'cannot be signed: this upload was created without partChecksums (its parts carry none)',
    })
  } else if (request.checksums && request.checksums.length !== request.partNumbers.length) {
    errors.push({
      path: 'checksums',
      message:
        "must hold one checksum per entry of partNumbers, in the same order: this upload signs each part's SHA-256",
    })
  }
  // Each is the upload's plan or its checksums against the request: a conflict with the upload.
  if (errors.length > 0) throw conflict(errors)
  const { parts, expiresAt } = await partUploadUrls(
    permit,
    { uploadId: handle.uploadId, partSize: handle.partSize },
    request.partNumbers.map((partNumber, i) => ({
      partNumber,
      checksumSha256: request.checksums?.[i],
    })),
    now,
    mintingFor(config, principal, base),
  )
  return { parts, expiresAt: expiresAt.toISOString() }
}

/** The parts an upload in progress holds, and its plan: what a client resuming it needs. */
export async function uploadedParts(config: Config, principal: Principal, request: UploadRef) {
  const { handle, uploads } = authorizeFollowUp(config, principal, request)
  const parts = await uploads.listParts(request.key, handle.uploadId)
  return {
    key: request.key,
    contentLength: handle.contentLength,
    contentType: handle.contentType,
    partSize: handle.partSize,
    partCount: partCountOf(handle.contentLength, handle.partSize),
    parts: parts.map(({ partNumber, etag, size, checksumSha256 }) => ({
      partNumber,
      etag,
      size,
      ...(checksumSha256 === undefined ? {} : { checksumSha256 }),
    })),
  }
}

/** The parts the store holds for an upload, by part number. */
type StoredParts = ReadonlyMap<number, UploadedPart>

/**
 * Checks the parts a caller wants to complete against what the store holds: each was uploaded
 * with that ETag (and, with checksums, its SHA-256) and has the size its URL pinned, and together
 * they make the declared length. Answers the parts to complete with, as the store lists them.
 */
function checkParts(
  uploaded: StoredParts,
  handle: UploadHandle,
  parts: readonly Named[],
): CompletedPart[] {
  const errors: FieldError[] = []
  const checked: CompletedPart[] = []
  let total = 0
  parts.forEach(({ part: { partNumber, etag }, at: i }) => {
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
    } else if (handle.checksums && part.checksumSha256 === undefined) {
      errors.push({
        path: `parts.${i}`,
        message: 'was stored without its SHA-256, which this upload signs for every part',
      })
    } else {
      total += part.size
      checked.push({ partNumber, etag: part.etag, checksumSha256: part.checksumSha256 })
    }
  })
  if (errors.length === 0 && total !== handle.contentLength) {
    errors.push({
      path: 'parts',
      message: `add up to ${total} bytes; the upload was created for ${handle.contentLength} (parts 1 to ${partCountOf(handle.contentLength, handle.partSize)})`,
    })
  }
  if (errors.length > 0) throw conflict(errors)
  return checked
}

/** A part to complete with, and where the request named it (`parts.<at>`). */
interface Named {
  part: CompletedPart
  at: number
}

/**
 * The caller's parts in part-number order, as S3 completes them, each with where the request
 * named it. A part named again with the same ETag is the same part; with another, the store's
 * listing refuses the one that is not the part (checkParts).
 */
function inPartOrder(parts: readonly CompletedPart[]): Named[] {
  const named = new Set<string>()
  return parts
    .map((part, at) => ({ part, at }))
    .filter(({ part }) => {
      const id = `${part.partNumber}\n${bareEtag(part.etag)}`
      if (named.has(id)) return false
      named.add(id)
      return true
    })
    .sort((a, b) => a.part.partNumber - b.part.partNumber)
}

/** Every part of the plan as the store lists it; a part missing is the caller's to upload. */
function planParts(listed: StoredParts, handle: UploadHandle): Named[] {
  const count = partCountOf(handle.contentLength, handle.partSize)
  const missing: number[] = []
  const parts: Named[] = []
  for (let n = 1; n <= count; n++) {
    const part = listed.get(n)
    if (part === undefined) missing.push(n)
    else parts.push({ part: { partNumber: n, etag: part.etag }, at: parts.length })
  }
  if (missing.length > 0) {
    const shown = missing.slice(0, 10).join(', ')
    throw conflict([
      {
        path: 'parts',
        message: `part${missing.length === 1 ? '' : 's'} ${shown}${missing.length > 10 ? ', …' : ''} of ${count} ${missing.length === 1 ? 'has' : 'have'} not been uploaded`,
      },
    ])
  }
  return parts
}

/** What a completed multipart upload answers. */
interface CompletedObject {
  origin: string
  key: string
  size: number
  contentType: string
  etag: string
}

/**
 * Completes an upload once what the store holds is checked against what was signed: the caller's
 * parts, or without them every part of the plan as the store lists it. Unless the upload may
 * replace an object, the complete signs `If-None-Match: *` (an object at the key: 412).
 *
 * Sent again after it succeeded (its answer lost), the store knows the upload no more: it answers
 * the object again only when the object at the key carries this upload's tag (the metadata it was
 * created with) and is exactly what the caller's parts make (the multipart ETag of their ETags).
 */
export async function completeUpload(
  config: Config,
  principal: Principal,
  request: UploadRef & { parts?: CompletedPart[] | undefined },
  now: Date,
): Promise<{ object: CompletedObject; storeUploadId: string }> {
  const { handle, uploads } = authorizeFollowUp(config, principal, request)
  const named = request.parts && inPartOrder(request.parts)
  const object = (etag: string) => ({
    origin: request.origin,
    key: request.key,
    size: handle.contentLength,
    contentType: handle.contentType,
    etag,
  })
  let listed: UploadedPart[]
  try {
    listed = await uploads.listParts(request.key, handle.uploadId)
  } catch (error) {
    if (!(error instanceof WaybillError) || error.code !== 'not_found') throw error
    const again = await completedBefore(uploads, request.key, named, handle)
    if (again === undefined) throw error
    return { object: object(again), storeUploadId: handle.uploadId }
  }
  const uploaded = new Map(listed.map((part) => [part.partNumber, part]))
  const parts = checkParts(uploaded, handle, named ?? planParts(uploaded, handle))
  const { etag } = await uploads.complete(request.key, handle.uploadId, parts, {
    overwrite: handle.overwrite,
  })
  await settleUpload(config, principal, handle.quota, handle.contentLength, now)
  return { object: object(etag), storeUploadId: handle.uploadId }
}

/**
 * The ETag of this upload's object when a complete already made it: the object at the key carries
 * the upload's tag, and is what the parts the caller names make (size, type, the multipart ETag of
 * their ETags and, with checksums, nothing else).
 */
async function completedBefore(
  uploads: Uploads,
  key: string,
  parts: readonly Named[] | undefined,
  handle: UploadHandle,
): Promise<string | undefined> {
  if (parts === undefined) return undefined
  const expected = await multipartEtag(parts.map(({ part }) => part.etag))
  if (expected === undefined) return undefined
  const head = await uploads.head(key, UPLOAD_TAG)
  if (head === undefined) return undefined
  const checksum = head.checksumSha256
  const same =
    head.tag === handle.tag &&
    bareEtag(head.etag) === bareEtag(expected) &&
    head.size === handle.contentLength &&
    canonicalMediaType(head.contentType) === handle.contentType &&
    (!handle.checksums || (checksum !== undefined && checksum.endsWith(`-${parts.length}`)))
  return same ? head.etag : undefined
}

/** The caller's own handle for this origin and key, or undefined. */
function ownHandle(
  config: Config,
  principal: Principal,
  ref: UploadRef,
): { handle: UploadHandle; uploads: Uploads } | undefined {
  const origin = config.origins.get(ref.origin)
  const uploads = origin?.uploads
  if (origin === undefined || uploads === undefined) return undefined
  const handle = unsealHandle(config, origin, principal, ref.key, ref.uploadId)
  return handle === undefined ? undefined : { handle, uploads }
}

/**
 * Aborts an upload, its parts with it. The caller's own handle is the authority: aborting only
 * removes what it started, and ends the exposure, so it needs no grant any more (one removed
 * since leaves it possible). Anything else gets the refusal any follow-up gets.
 */
export async function abortUpload(
  config: Config,
  principal: Principal,
  request: UploadRef,
  now: Date,
) {
  const { handle, uploads } =
    ownHandle(config, principal, request) ?? authorizeFollowUp(config, principal, request)
  await uploads.abort(request.key, handle.uploadId)
  // Its parts are gone: its room comes back.
  await releaseUploads(config, principal, handle.quota && [handle.quota], now)
}
