// POST /v1/uploads: permission to upload straight to the bucket. Exact PUT URLs and POST policies
// (one, or a batch), each with the receipt its completion check takes, or a multipart upload the
// Worker starts, with its sealed handle and first part URLs.

import { uploadKeyFor, type Content, type Permit } from '../../auth/policy'
import type { Principal } from '../../principal'
import type { Config, Origin } from '../../config'
import {
  FIRST_PART_URLS,
  MAX_PARTS,
  MAX_REPORTED_ERRORS,
  QUOTA_HOLD_MARGIN_S,
  RECEIPT_GRACE_S,
} from '../../limits'
import { choosePartSize, partCountOf } from '../../core/s3/parts'
import { epochSeconds } from '../../core/sigv4/time'
import { conflict, invalid, WaybillError, type FieldError } from '../../errors'
import type { UploadItem, UploadRequest } from '../../schemas/uploads'
import { mintingFor, originFor, permitFor } from '../permits'
import type { Minting } from '../../origins/types'
import { partUploadUrls, postUploadPolicy, putUploadUrl } from '../signers'
import { releaseUploads, reserveUploads, type Reservation } from '../quotas'
import { UPLOAD_TAG } from '../../schemas/fields'
import { newUploadTag, sealHandle, sealReceipt } from './sealed'

/** What an origin without uploads cannot serve at all (a 403, as an origin without a grant). */
function uploadFits(origin: Origin) {
  return origin.uploads !== undefined
    ? []
    : [{ path: 'origin', message: `origin "${origin.name}" takes no uploads` }]
}

/**
 * What the origin's settings refuse for this upload (a 400: a client falls back from "post" to
 * "put" when it names `mode`), once a grant is known.
 */
function uploadSettings(
  origin: Origin,
  request: Pick<UploadRequest, 'mode' | 'partSize'>,
  item: UploadItem,
  at: string,
) {
  const { mode } = request
  const modes = origin.uploads?.modes ?? []
  if (!modes.includes(mode)) {
    return [
      {
        path: 'mode',
        message: `this origin's store does not accept "${mode}" uploads; use ${modes.map((m) => `"${m}"`).join(' or ')}`,
      },
    ]
  }
  if (item.keyIsPrefix && origin.keys === 'safe' && origin.uploads?.checksFormKeys !== true) {
    // A store can only say starts-with: a form could send "<prefix>../x", which some stores store
    // as "x". Nothing in a POST policy can refuse that, so on a safe origin the key must be exact.
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

/**
 * What is larger than the origin takes in one request (a 403, as what an origin cannot serve at
 * all): an upload through the Worker is one request per PUT, form or part.
 */
function uploadSize(
  origin: Origin,
  request: Pick<UploadRequest, 'mode' | 'partSize'>,
  item: UploadItem,
  at: string,
) {
  const most = origin.uploads?.maxBodyBytes
  if (most === undefined) return []
  const whole = request.mode !== 'multipart' && (item.contentLength ?? 0) > most
  if (!whole && !(request.mode === 'multipart' && (request.partSize ?? 0) > most)) return []
  return [
    {
      path: whole ? `${at}contentLength` : 'partSize',
      message: `must be at most ${most} on this origin: its uploads go through the Worker, which takes no larger request${whole ? '; send a larger file as a multipart upload' : ''}`,
    },
  ]
}

/** What an upload's signature enforces: type, length, checksum, and whether it may replace. */
function contentOf(mode: UploadRequest['mode'], item: UploadItem, at: string): Content {
  const exact = item.contentLength
  return {
    type: { value: item.contentType, path: `${at}contentType` },
    // A PUT without a length signs none; a POST policy then signs the grant's own limit.
    length: exact !== undefined ? { exact } : mode === 'post' ? { atMost: 'grant' } : undefined,
    lengthPath: `${at}contentLength`,
    checksumSha256: item.checksumSha256,
    // A PUT or a multipart complete refuses to replace an object unless asked; a POST form cannot
    // refuse, so its request must ask (the schema requires it), and a grant that refuses is told
    // at `mode`: "put" is the way that does not replace.
    overwrite: item.overwrite ? { path: mode === 'post' ? 'mode' : `${at}overwrite` } : undefined,
  }
}

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
 * Authorizes each upload of a request (one grant must allow each upload's key, type, size,
 * overwrite and lifetime, every limit signed; a `filename` gets its key from the grant's
 * `uploadKey`): each upload's permit and item with its key, or the one problem for them all (a
 * batch is all or nothing). What POST /v1/uploads judges before a quota counts anything; explain
 * (src/bridge/) asks the same.
 */
export function authorizeUploads(
  config: Config,
  principal: Principal,
  request: UploadRequest,
  newUuid: () => string,
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
      const path = `${at(i)}${item.keyIsPrefix ? 'keyPrefix' : item.filename === undefined ? 'key' : 'filename'}`
      const permit = permitFor(config, principal, {
        kind: 'upload',
        origin: request.origin,
        target: item.keyIsPrefix
          ? { keyPrefix: key, path }
          : { key, path, chosen: item.filename !== undefined },
        count: request.batch ? { n: items.length, path: 'items' } : undefined,
        expiresIn: request.expiresIn,
        content: contentOf(mode, item, at(i)),
        fits: uploadFits,
      })
      const unfit = uploadSettings(permit.origin, request, item, at(i))
      if (unfit.length > 0) throw invalid(unfit)
      const tooLarge = uploadSize(permit.origin, request, item, at(i))
      if (tooLarge.length > 0) {
        throw new WaybillError(
          'forbidden',
          `Origin "${permit.origin.name}" cannot serve this request.`,
          {
            errors: tooLarge,
          },
        )
      }
      return [{ permit, item: { ...item, key } }]
    } catch (error) {
      if (!(error instanceof WaybillError)) throw error
      failures.push(error)
      return []
    }
  })
  if (failures.length > 0) throw refused(failures)
  return permits
}

/**
 * Authorizes each upload of a request (`authorizeUploads`) and issues them: PUT URLs, POST
 * policies, or a multipart upload with its first part URLs. A batch is all or nothing.
 */
export async function issueUpload(
  config: Config,
  principal: Principal,
  request: UploadRequest,
  now: Date,
  base: string,
  newUuid: () => string = () => crypto.randomUUID(),
) {
  const minting = mintingFor(config, principal, base)
  const { mode } = request
  const at = (i: number) => (request.batch ? `items.${i}.` : '')
  const permits = authorizeUploads(config, principal, request, newUuid)
  // Reserved against the caller's quota, if one counts them, before anything is signed: at the
  // size each signature admits (a POST policy's most, when no length is given), for as long as
  // the store may accept its URL or policy (a multipart upload ends when completed or aborted).
  const reservations = await reserveUploads(
    config,
    principal,
    request.origin,
    permits.map(({ permit, item }, i) => ({
      bytes: item.contentLength ?? (mode === 'post' ? permit.maxContentLength : undefined),
      path: `${at(i)}contentLength`,
      heldUntil:
        mode === 'multipart' ? 0 : now.getTime() + (permit.expiresIn + QUOTA_HOLD_MARGIN_S) * 1000,
      unbounded: item.keyIsPrefix ? `${at(i)}keyPrefix` : undefined,
    })),
    now,
  )
  try {
    if (mode === 'multipart') {
      const { permit, item } = permits[0]!
      const quota = reservations?.[0]
      return await startMultipart({
        config,
        permit,
        principal,
        request,
        item,
        now,
        minting,
        quota,
      })
    }
    const uploads = await Promise.all(
      permits.map(({ permit, item }, i) =>
        issueOne({
          config,
          permit,
          principal,
          request,
          item,
          now,
          minting,
          quota: reservations?.[i],
        }),
      ),
    )
    return request.batch ? { uploads } : uploads[0]!
  } catch (error) {
    // Nothing was signed (the store refused to start a multipart upload, say): the room comes back.
    await releaseUploads(config, principal, reservations, now, true)
    throw error
  }
}

/**
 * The origin, when the caller holds a grant there and it takes uploads; otherwise the 403 an
 * upload there gets (an origin without uploads takes none, whatever the key: the permit’s own).
 */
export function uploadOrigin(config: Config, principal: Principal, originName: string): Origin {
  const origin = originFor(config, principal, originName, 'write')
  const unfit = uploadFits(origin)
  if (unfit.length > 0) {
    throw new WaybillError('forbidden', `Origin "${origin.name}" cannot serve this request.`, {
      errors: unfit,
    })
  }
  return origin
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
  const origin = uploadOrigin(config, principal, originName)
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

/** One authorized upload of a request, to issue, with its reservation when a quota counts it. */
interface Authorized {
  readonly config: Config
  readonly permit: Permit
  readonly principal: Principal
  readonly request: UploadRequest
  readonly item: UploadItem
  readonly now: Date
  readonly minting: Minting
  readonly quota: Reservation | undefined
}

/** The caller's metadata and the upload's tag, which its artifact signs (see ./sealed.ts). */
const tagged = (item: UploadItem, tag: string) => ({ ...item.metadata, [UPLOAD_TAG]: tag })

/** One PUT URL or POST policy, with the receipt its completion check takes. */
async function issueOne(authorized: Authorized) {
  const { config, permit, principal, request, item, now, minting, quota } = authorized
  const { origin } = permit
  const named = item.keyIsPrefix ? { keyPrefix: item.key } : { key: item.key }
  const tag = newUploadTag()
  const metadata = tagged(item, tag)
  const signed =
    request.mode === 'post'
      ? await postUploadPolicy(
          permit,
          { metadata, successActionStatus: request.successActionStatus },
          now,
          minting,
        )
      : await putUploadUrl(permit, metadata, now, minting)
  const receipt = sealReceipt(config, origin, principal, {
    key: item.key,
    keyIsPrefix: item.keyIsPrefix,
    mode: request.mode === 'post' ? 'post' : 'put',
    contentType: item.contentType,
    exact: item.contentLength,
    atMost: item.contentLength === undefined ? permit.maxContentLength : undefined,
    checksumSha256: item.checksumSha256,
    overwrite: permit.content?.overwrite !== undefined,
    tag,
    expiresAt: epochSeconds(signed.expiresAt) + RECEIPT_GRACE_S,
    quota,
  })
  const expiresAt = signed.expiresAt.toISOString()
  if ('fields' in signed) {
    return {
      mode: 'post' as const,
      method: 'POST' as const,
      ...named,
      url: signed.url,
      fields: signed.fields,
      receipt,
      expiresAt,
    }
  }
  return {
    mode: 'put' as const,
    method: 'PUT' as const,
    ...named,
    url: signed.url,
    headers: signed.headers,
    receipt,
    expiresAt,
  }
}

/** Starts a multipart upload at the store and signs its first part URLs. */
async function startMultipart({
  config,
  permit,
  principal,
  request,
  item,
  now,
  minting,
  quota,
}: Authorized) {
  const { origin } = permit
  const uploads = origin.uploads!
  // The schema requires it for multipart.
  const contentLength = item.contentLength ?? 0
  const partSize = choosePartSize(contentLength, request.partSize)
  const partCount = partCountOf(contentLength, partSize)
  if (partCount > MAX_PARTS) {
    throw invalid([
      { path: 'partSize', message: `makes ${partCount} parts; S3 allows ${MAX_PARTS}` },
    ])
  }
  const checksums = request.partChecksums
  // More checksums than the plan has parts: the document cannot relate the three fields, so this
  // is a conflict with the plan (409), not a 400 for a request it allows.
  if (checksums !== undefined && checksums.length > partCount) {
    throw conflict([
      {
        path: 'partChecksums',
        message: `lists ${checksums.length} parts; ${contentLength} bytes in parts of ${partSize} make ${partCount}`,
      },
    ])
  }
  const tag = newUploadTag()
  const uploadId = await uploads.createMultipart(item.key, {
    contentType: item.contentType,
    metadata: tagged(item, tag),
    checksums: checksums !== undefined,
  })
  // With checksums, the parts whose SHA-256 is known; without, the first of the plan.
  const first = Array.from(
    { length: Math.min(checksums?.length ?? partCount, FIRST_PART_URLS) },
    (_, i) => ({ partNumber: i + 1, checksumSha256: checksums?.[i] }),
  )
  const { parts, expiresAt } = await partUploadUrls(
    permit,
    { uploadId, partSize },
    first,
    now,
    minting,
  )
  const handle = sealHandle(config, origin, principal, item.key, {
    uploadId,
    contentLength,
    partSize,
    contentType: item.contentType,
    checksums: checksums !== undefined,
    overwrite: permit.content?.overwrite !== undefined,
    tag,
    quota,
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
