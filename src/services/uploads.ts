// Browser uploads straight to the bucket: exact PUT URLs, POST policies (one or a batch), or a
// multipart upload the Worker starts, with part URLs; the multipart follow-ups, each checked
// against the upload's sealed handle; and the completion check of a PUT or POST upload against
// its sealed receipt: what was signed.

import * as v from 'valibot'
import {
  authorize,
  deletesMismatched,
  essence,
  grantedOrigin,
  uploadKeyFor,
  type ContentReach,
  type Permit,
} from '../auth/policy'
import { principalName, type Principal } from '../auth/principal'
import { seal, unseal } from '../auth/seal'
import type { Config, Origin, S3Origin } from '../config'
import {
  FIRST_PART_URLS,
  MAX_PARTS,
  MAX_REPORTED_ERRORS,
  MIN_PART_SIZE_BYTES,
  STORE_CLOCK_SKEW_S,
} from '../config/limits'
import { epochSeconds } from '../core/sigv4/time'
import { invalid, WaybillError, type FieldError } from '../errors'
import type { UploadItem, UploadRequest } from '../schemas/uploads'
import {
  abortMultipartUpload,
  completeMultipartUpload,
  createMultipartUpload,
  deleteObject,
  headObject,
  listParts,
  type CompletedPart,
  type ObjectHead,
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
function uploadFits(origin: Origin, mode: UploadRequest['mode'], item: UploadItem, at: string) {
  if (origin.type !== 's3') {
    return [{ path: 'origin', message: 'uploads need an S3 origin, not a CloudFront one' }]
  }
  if (mode === 'post' && !origin.postPolicy) {
    return [
      {
        path: 'mode',
        message:
          'this origin\'s store does not accept POST uploads (postPolicy: false); use "put" or "multipart"',
      },
    ]
  }
  if (item.keyIsPrefix && origin.keys === 'safe') {
    // S3 can only say starts-with: a form could send "<prefix>../x", which some stores store as
    // "x". Nothing in a POST policy can refuse that, so on a safe origin the key must be exact.
    return [
      {
        path: `${at}keyPrefix`,
        message:
          'cannot be used on this origin: S3\'s starts-with admits keys such as "<prefix>../x", which stores may normalize out of the prefix; send the exact "key"',
      },
    ]
  }
  return []
}

/** What an upload's signature enforces: its content type, and its length when one is signed. */
function contentOf(mode: UploadRequest['mode'], item: UploadItem, at: string): ContentReach {
  const exact = item.contentLength
  return {
    type: {
      value: item.contentType,
      family: item.contentType.endsWith('/*'),
      path: `${at}contentType`,
    },
    // A PUT without a length signs none; a POST policy then signs the grant's own limit.
    length: exact !== undefined ? { exact } : mode === 'post' ? { atMost: 'grant' } : undefined,
    lengthPath: `${at}contentLength`,
  }
}

// The handle is bound to the origin, the caller and the key: another caller's handle, or this
// caller's for another key, does not unseal.
const boundTo = (principal: Principal, key: string) => `${principalName(principal)}\n${key}`

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
  /** When the upload was created, in epoch seconds. */
  createdAt: v.pipe(v.number(), v.safeInteger()),
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
function checkParts(
  uploaded: StoredParts,
  handle: UploadHandle,
  parts: readonly CompletedPart[],
): void {
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

const RECEIPT_PURPOSE = 'upload-receipt'

/**
 * What a PUT URL or POST policy was signed for, sealed for its caller: the key (or the prefix a
 * form may extend), the content type (or family), the exact length or the most admitted, and the
 * checksum. `POST /v1/uploads/complete` checks the stored object against it.
 */
const Receipt = v.object({
  key: v.string(),
  keyIsPrefix: v.boolean(),
  mode: v.picklist(['put', 'post']),
  contentType: v.string(),
  exact: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
  atMost: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
  checksumSha256: v.optional(v.string()),
  /** When it was issued, in epoch seconds: an object stored before that is not this upload. */
  issuedAt: v.pipe(v.number(), v.safeInteger()),
})
type UploadReceipt = v.InferOutput<typeof Receipt>

/**
 * A batch's refusals as one answer, all or nothing as `/v1/sign` is: the 403s when there are any
 * (each field once), otherwise the 400s.
 */
function refused(failures: readonly WaybillError[]): WaybillError {
  const forbidden = failures.filter((failure) => failure.status === 403)
  const chosen = forbidden.length > 0 ? forbidden : failures
  if (chosen.length === 1) return chosen[0]!
  const seen = new Set<string>()
  const errors: FieldError[] = []
  for (const error of chosen.flatMap((failure) => failure.errors)) {
    const id = `${error.path}\n${error.message}`
    if (seen.has(id) || errors.length >= MAX_REPORTED_ERRORS) continue
    seen.add(id)
    errors.push(error)
  }
  return forbidden.length > 0
    ? new WaybillError('forbidden', chosen[0]!.message, { errors })
    : invalid(errors)
}

/**
 * Authorizes each upload of a request (every write grant limit must be one its signature
 * enforces; a `filename` gets its key from the grant's `uploadKey`) and issues them: PUT URLs,
 * POST policies, or a multipart upload with its first part URLs. A batch is all or nothing.
 */
export async function issueUpload(
  config: Config,
  principal: Principal,
  request: UploadRequest,
  now: Date,
  newUuid: () => string = () => crypto.randomUUID(),
) {
  const { items, mode } = request
  const at = (i: number) => (request.batch ? `items.${i}.` : '')
  const failures: WaybillError[] = []
  const permits = items.flatMap((item, i) => {
    try {
      const key =
        item.filename === undefined
          ? item.key
          : chosenKey(config, principal, request.origin, item.filename, at(i), newUuid())
      const permit = authorize(config, principal, {
        origin: request.origin,
        action: 'write',
        items: item.keyIsPrefix ? [] : [{ key }],
        itemPath: () => `${at(i)}${item.filename === undefined ? 'key' : 'filename'}`,
        under: item.keyIsPrefix ? [{ prefix: key, path: `${at(i)}keyPrefix` }] : undefined,
        count: request.batch ? { n: items.length, path: 'items' } : undefined,
        expiresIn: request.expiresIn,
        content: contentOf(mode, item, at(i)),
        fits: (origin) => uploadFits(origin, mode, item, at(i)),
      })
      return [{ permit, item: { ...item, key } }]
    } catch (error) {
      if (!(error instanceof WaybillError)) throw error
      failures.push(error)
      return []
    }
  })
  if (failures.length > 0) throw refused(failures)
  if (mode === 'multipart') {
    const { permit, item } = permits[0]!
    return startMultipart(permit, principal, request, item, now)
  }
  const uploads = await Promise.all(
    permits.map(({ permit, item }) => issueOne(permit, principal, request, item, now)),
  )
  return request.batch ? { uploads } : uploads[0]!
}

/** The key the grant's `uploadKey` gives a file name, or the 400 saying there is none. */
function chosenKey(
  config: Config,
  principal: Principal,
  originName: string,
  filename: string,
  at: string,
  uuid: string,
): string {
  const origin = grantedOrigin(config, principal, originName, 'write')
  const key = uploadKeyFor(config, principal, origin, filename, uuid)
  if (key === undefined) {
    throw invalid([
      {
        path: `${at}filename`,
        message:
          'no grant of this caller chooses upload keys on this origin (uploadKey); send "key"',
      },
    ])
  }
  return key
}

/** One PUT URL or POST policy, with the receipt its completion check takes. */
async function issueOne(
  permit: Permit,
  principal: Principal,
  request: UploadRequest,
  item: UploadItem,
  now: Date,
) {
  const { origin } = permit
  if (origin.type !== 's3') throw new Error('uploadFits lets S3 origins only through')
  const receipt = await seal(
    origin,
    RECEIPT_PURPOSE,
    {
      key: item.key,
      keyIsPrefix: item.keyIsPrefix,
      mode: request.mode === 'post' ? 'post' : 'put',
      contentType: item.contentType,
      exact: item.contentLength,
      atMost: item.contentLength === undefined ? permit.maxContentLength : undefined,
      checksumSha256: item.checksumSha256,
      issuedAt: epochSeconds(now),
    } satisfies UploadReceipt,
    principalName(principal),
  )
  const named = item.keyIsPrefix ? { keyPrefix: item.key } : { key: item.key }
  if (request.mode === 'post') {
    const post = await postUploadPolicy(
      permit,
      { metadata: item.metadata, successActionStatus: request.successActionStatus },
      now,
    )
    return {
      mode: 'post' as const,
      method: 'POST' as const,
      ...named,
      url: post.url,
      fields: post.fields,
      receipt,
      expiresAt: post.expiresAt.toISOString(),
    }
  }
  const { url, headers, expiresAt } = await putUploadUrl(permit, item, now)
  return {
    mode: 'put' as const,
    method: 'PUT' as const,
    ...named,
    url,
    headers,
    receipt,
    expiresAt: expiresAt.toISOString(),
  }
}

async function startMultipart(
  permit: Permit,
  principal: Principal,
  request: UploadRequest,
  item: UploadItem,
  now: Date,
) {
  const { origin } = permit
  if (origin.type !== 's3') throw new Error('uploadFits lets S3 origins only through')
  // The schema requires it for multipart.
  const contentLength = item.contentLength ?? 0
  const partSize = choosePartSize(contentLength, request.partSize)
  const partCount = partCountOf(contentLength, partSize)
  if (partCount > MAX_PARTS) {
    throw invalid([
      { path: 'partSize', message: `makes ${partCount} parts; S3 allows ${MAX_PARTS}` },
    ])
  }
  const uploadId = await createMultipartUpload(origin, item.key, {
    contentType: item.contentType,
    metadata: item.metadata,
  })
  const first = Array.from({ length: Math.min(partCount, FIRST_PART_URLS) }, (_, i) => i + 1)
  const { parts, expiresAt } = await partUploadUrls(permit, { uploadId, partSize }, first, now)
  const handle = await sealHandle(origin, principal, item.key, {
    uploadId,
    contentLength,
    partSize,
    contentType: item.contentType,
    createdAt: epochSeconds(now),
  })
  return {
    mode: 'multipart' as const,
    method: 'MULTIPART' as const,
    key: item.key,
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

/** The parts an upload in progress holds, and its plan: what a client resuming it needs. */
export async function uploadedParts(config: Config, principal: Principal, request: UploadRef) {
  const { handle, origin } = await authorizeFollowUp(config, principal, request)
  const parts = await listParts(origin, request.key, handle.uploadId)
  return {
    key: request.key,
    contentLength: handle.contentLength,
    contentType: handle.contentType,
    partSize: handle.partSize,
    partCount: partCountOf(handle.contentLength, handle.partSize),
    parts: parts.map(({ partNumber, etag, size }) => ({ partNumber, etag, size })),
  }
}

/**
 * Completes an upload once what the store holds is checked against what was signed: the caller's
 * parts, or without them every part of the plan as the store lists it.
 */
export async function completeUpload(
  config: Config,
  principal: Principal,
  request: UploadRef & { parts?: CompletedPart[] | undefined },
): Promise<{ object: CompletedObject; storeUploadId: string }> {
  const { handle, origin } = await authorizeFollowUp(config, principal, request)
  const object = (etag: string) => ({
    origin: origin.name,
    key: request.key,
    size: handle.contentLength,
    contentType: handle.contentType,
    etag,
  })
  try {
    const uploaded = await storedPartsOf(origin, request.key, handle)
    const parts = request.parts ?? planParts(uploaded, handle)
    checkParts(uploaded, handle, parts)
    const { etag } = await completeMultipartUpload(origin, request.key, handle.uploadId, parts)
    return { object: object(etag), storeUploadId: handle.uploadId }
  } catch (error) {
    if (!(error instanceof WaybillError) || error.code !== 'not_found') throw error
    // The store knows the upload no more: completed already (a retry after a lost answer), or
    // aborted. Completed when the key holds what this upload made, stored since it was created.
    const head = await headObject(origin, request.key)
    if (head === undefined || !isCompletedUpload(head, handle)) throw error
    return { object: object(head.etag), storeUploadId: handle.uploadId }
  }
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
 * Whether a stored object is this upload, completed: its size and type, the ETag S3 gives an
 * object of the plan's number of parts (`"<md5 of the parts' md5s>-<count>"`, which no single PUT
 * has), stored no earlier than the upload was created.
 */
function isCompletedUpload(head: ObjectHead, handle: UploadHandle): boolean {
  const partCount = partCountOf(handle.contentLength, handle.partSize)
  return (
    head.size === handle.contentLength &&
    essence(head.contentType) === essence(handle.contentType) &&
    bareEtag(head.etag).endsWith(`-${partCount}`) &&
    storedSince(head, handle.createdAt)
  )
}

/** Whether the store wrote the object at `epochS` or later (allowing for its clock). */
function storedSince(head: ObjectHead, epochS: number): boolean {
  const stored = Date.parse(head.lastModified)
  return Number.isFinite(stored) && stored / 1000 >= epochS - STORE_CLOCK_SKEW_S
}

/** The parts the store holds for an upload, by part number. */
type StoredParts = ReadonlyMap<number, { etag: string; size: number }>

async function storedPartsOf(
  origin: S3Origin,
  key: string,
  handle: UploadHandle,
): Promise<StoredParts> {
  return new Map((await listParts(origin, key, handle.uploadId)).map((p) => [p.partNumber, p]))
}

/** Every part of the plan as the store lists it; a part missing is the caller's to upload. */
function planParts(listed: StoredParts, handle: UploadHandle): CompletedPart[] {
  const count = partCountOf(handle.contentLength, handle.partSize)
  const missing: number[] = []
  const parts: CompletedPart[] = []
  for (let n = 1; n <= count; n++) {
    const part = listed.get(n)
    if (part === undefined) missing.push(n)
    else parts.push({ partNumber: n, etag: part.etag })
  }
  if (missing.length > 0) {
    const shown = missing.slice(0, 10).join(', ')
    throw invalid([
      {
        path: 'parts',
        message: `part${missing.length === 1 ? '' : 's'} ${shown}${missing.length > 10 ? ', …' : ''} of ${count} ${missing.length === 1 ? 'has' : 'have'} not been uploaded`,
      },
    ])
  }
  return parts
}

/** A PUT or POST upload's completion: what the store holds, checked against its receipt. */
export interface CheckRequest {
  origin: string
  key: string
  receipt: string
}

/** Media type essence, for comparing what was signed with what the store answers. */

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
  const family = receipt.contentType.endsWith('/*')
  const stored = essence(head.contentType)
  const signed = essence(receipt.contentType)
  if (family ? !stored.startsWith(signed.slice(0, -1)) : stored !== signed) {
    errors.push({
      path: 'contentType',
      message: `is "${head.contentType}"; the upload was signed for ${family ? 'a type in ' : ''}"${receipt.contentType}"`,
    })
  }
  if (receipt.checksumSha256 !== undefined && head.checksumSha256 !== receipt.checksumSha256) {
    errors.push({
      path: 'checksumSha256',
      message:
        head.checksumSha256 === undefined
          ? 'was signed, but the store keeps no SHA-256 checksum for the object'
          : 'is not the checksum the upload was signed with',
    })
  }
  return errors
}

/**
 * Checks that a PUT or POST upload finished and is what was signed (size, type, checksum), and
 * answers the object. A mismatch is a 422 naming each difference; when a grant covering the key
 * says `deleteMismatched`, the object is deleted first.
 */
export async function checkUpload(config: Config, principal: Principal, request: CheckRequest) {
  const origin = grantedOrigin(config, principal, request.origin, 'write')
  const notOurs = () =>
    new WaybillError('forbidden', 'This receipt was not issued to this caller.', {
      errors: [{ path: 'receipt', message: 'was not issued to this caller on this origin' }],
    })
  if (origin.type !== 's3') throw notOurs()
  const receipt = await unseal(
    origin,
    RECEIPT_PURPOSE,
    request.receipt,
    principalName(principal),
    Receipt,
  )
  if (receipt === undefined) throw notOurs()
  const fits = receipt.keyIsPrefix
    ? request.key.startsWith(receipt.key)
    : request.key === receipt.key
  if (!fits) {
    throw invalid([
      {
        path: 'key',
        message: receipt.keyIsPrefix
          ? 'must start with the keyPrefix this receipt was issued for'
          : 'is not the key this receipt was issued for',
      },
    ])
  }
  // The caller must still hold a grant admitting what was signed.
  authorize(config, principal, {
    origin: request.origin,
    action: 'write',
    items: [{ key: request.key }],
    itemPath: () => 'key',
    content: {
      type: {
        value: receipt.contentType,
        family: receipt.contentType.endsWith('/*'),
        path: 'receipt',
      },
      length:
        receipt.exact !== undefined
          ? { exact: receipt.exact }
          : receipt.atMost !== undefined
            ? { atMost: receipt.atMost }
            : undefined,
      lengthPath: 'receipt',
    },
  })
  const head = await headObject(origin, request.key)
  if (head === undefined) {
    throw new WaybillError('not_found', 'Nothing has been uploaded at this key yet.', {
      errors: [{ path: 'key', message: 'has no object' }],
    })
  }
  // An object stored before the receipt was issued is someone else's upload (or an earlier one):
  // not this upload's to pass, nor to delete.
  if (!storedSince(head, receipt.issuedAt)) {
    throw new WaybillError(
      'not_found',
      'Nothing has been uploaded at this key since this receipt was issued.',
      { errors: [{ path: 'key', message: 'has no object stored since the receipt was issued' }] },
    )
  }
  const errors = differences(receipt, head)
  if (errors.length > 0) {
    const deleted = deletesMismatched(config, principal, origin, request.key)
    if (deleted) await deleteObject(origin, request.key)
    throw new WaybillError(
      'upload_mismatch',
      `The object at this key is not what was signed: ${errors[0]!.path} ${errors[0]!.message}.${deleted ? ' It has been deleted.' : ''}`,
      { errors },
    )
  }
  return {
    origin: origin.name,
    key: request.key,
    size: head.size,
    contentType: head.contentType,
    etag: head.etag,
    lastModified: head.lastModified,
    ...(head.checksumSha256 === undefined ? {} : { checksumSha256: head.checksumSha256 }),
    mode: receipt.mode,
  }
}

/** Aborts an upload, its parts with it. */
export async function abortUpload(config: Config, principal: Principal, request: UploadRef) {
  const { handle, origin } = await authorizeFollowUp(config, principal, request)
  await abortMultipartUpload(origin, request.key, handle.uploadId)
}
