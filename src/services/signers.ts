// Between the routes and the origins' drivers: turns a permit into what it permits, whatever the
// origin. Every function here takes a `Permit` from `authorize` and has the origin's driver sign
// exactly its items, patterns, lifetime and upload terms, so nothing reaches a signature without
// passing every grant field. Everything per batch is prepared once here.

import { actionFor, isPermit, type Permit } from '../auth/policy'
import { partSizeOf } from '../core/s3/parts'
import { signingTime } from '../core/window'
import type {
  BatchSigner,
  Minting,
  SignedCookies,
  UploadTerms,
  Uploads,
  UrlMethod,
  Wildcards,
} from '../origins/types'

export type { BatchSigner, Minting }

/** Refuses anything but a permit `authorize` made for this action: a bug, never a caller's fault. */
function checked(permit: Permit, action: Permit['action']): Permit {
  if (!isPermit(permit) || permit.action !== action) {
    throw new Error(`signing needs a permit to ${action}`)
  }
  return permit
}

/** The origin's uploads: `authorize` lets an upload reach only an origin that has them. */
function uploadsOf(permit: Permit): Uploads {
  const uploads = checked(permit, 'write').origin.uploads
  if (uploads === undefined) throw new Error('this permit is for an origin that takes no uploads')
  return uploads
}

/** The origin's wildcard policies: `authorize` lets a pattern reach only an origin that has them. */
function wildcardsOf(permit: Permit): Wildcards {
  const wildcards = permit.origin.wildcards
  if (wildcards === undefined) throw new Error('this permit is for an origin without wildcards')
  return wildcards
}

/**
 * A signer for the URLs a permit allows: one URL per item for `method`, or, when the permit reaches
 * a pattern, one wildcard policy for them all.
 *
 * @example
 * const signer = batchSigner(permit, { method: 'GET', now: new Date(), minting })
 * const urls = await signer.sign()
 */
export function batchSigner(
  permit: Permit,
  options: { method: UrlMethod; now: Date; minting: Minting },
): BatchSigner {
  const { origin, items } = checked(permit, actionFor(options.method))
  const time = signingTime(options.now, permit.expiresIn, permit.window, permit.maxLifetime)
  const pattern = permit.under[0]
  if (pattern !== undefined) return wildcardsOf(permit).signer(pattern, items, time)
  return origin.urls.signer(items, options.method, time, options.minting)
}

/** The terms an upload permit pins: its key (or pattern), content, and `metadata`. */
function termsOf(
  permit: Permit,
  metadata: Readonly<Record<string, string>>,
  now: Date,
  minting: Minting,
) {
  const { content } = permit
  const type = content?.type
  if (type === undefined) throw new Error('an upload needs a signed content type')
  const pattern = permit.under[0]
  const length = content?.length
  return {
    key: pattern ?? permit.items[0]!.key,
    keyIsPrefix: pattern !== undefined,
    contentType: type.value,
    length:
      length === undefined
        ? undefined
        : 'exact' in length
          ? { exact: length.exact }
          : permit.maxContentLength === undefined
            ? undefined
            : { atMost: permit.maxContentLength },
    checksumSha256: content?.checksumSha256,
    overwrite: content?.overwrite !== undefined,
    metadata,
    expiresIn: permit.expiresIn,
    now,
    minting,
  } satisfies UploadTerms
}

/**
 * A PUT URL for the permit's one key that signs what the permit's content says: its type, its
 * exact length, its SHA-256 and, unless the permit may replace an object, that it may not. The
 * answer's `headers` are what to send; `metadata` is signed too.
 */
export function putUploadUrl(
  permit: Permit,
  metadata: Readonly<Record<string, string>>,
  now: Date,
  minting: Minting,
): Promise<{ url: string; headers: Record<string, string>; expiresAt: Date }> {
  return uploadsOf(permit).putUrl(termsOf(permit, metadata, now, minting))
}

/**
 * A browser form for the permit's key (or its one key pattern): its exact content type, its length
 * (exact, or up to the permit's limit) and its SHA-256 when it has one. A form cannot refuse to
 * replace an existing object; `authorize` lets only a request and a grant that say `overwrite`
 * have one.
 */
export function postUploadPolicy(
  permit: Permit,
  extras: {
    metadata: Readonly<Record<string, string>>
    successActionStatus?: 200 | 201 | 204 | undefined
  },
  now: Date,
  minting: Minting,
): Promise<{ url: string; fields: Record<string, string>; expiresAt: Date }> {
  return uploadsOf(permit).postForm({
    ...termsOf(permit, extras.metadata, now, minting),
    successActionStatus: extras.successActionStatus,
  })
}

/** How a multipart upload is cut: every part `partSize` bytes but the last. */
export interface PartPlan {
  uploadId: string
  partSize: number
}

/**
 * Part URLs for the permit's key, each pinning its part's exact size as cut from the permit's exact
 * length (so the parts can only add up to what was authorized) and, when given, its SHA-256 (so a
 * part cut off mid-transfer, or any other bytes, is refused by the store).
 */
export function partUploadUrls(
  permit: Permit,
  plan: PartPlan,
  parts: readonly { partNumber: number; checksumSha256?: string | undefined }[],
  now: Date,
  minting: Minting,
): Promise<{ parts: { partNumber: number; url: string }[]; expiresAt: Date }> {
  const uploads = uploadsOf(permit)
  const length = permit.content?.length
  if (length === undefined || !('exact' in length)) {
    throw new Error('part URLs need an exact upload length')
  }
  return uploads.partUrls(
    permit.items[0]!.key,
    plan.uploadId,
    parts.map(({ partNumber, checksumSha256 }) => ({
      partNumber,
      size: partSizeOf(length.exact, plan.partSize, partNumber),
      checksumSha256,
    })),
    permit.expiresIn,
    now,
    minting,
  )
}

/** Signed cookies for the permit's one key pattern: a wildcard policy, carried by cookies. */
export async function wildcardCookies(
  permit: Permit,
  now: Date,
): Promise<SignedCookies & { expiresAt: Date }> {
  const pattern = checked(permit, 'read').under[0]
  if (pattern === undefined) throw new Error('cookies need a key pattern')
  const expiresAt = new Date((Math.floor(now.getTime() / 1000) + permit.expiresIn) * 1000)
  return { ...(await wildcardsOf(permit).cookies(pattern, expiresAt)), expiresAt }
}
