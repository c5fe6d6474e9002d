// Between the routes and the pure cores: turns a permit into what it permits, whatever the origin's
// type. Every function here takes a `Permit` from `authorize` and signs exactly its items, patterns,
// lifetime and upload limits, so nothing reaches a signature without passing every grant field.
// Everything per batch is prepared once here.

import { actionFor, isPermit, type Permit } from '../auth/policy'
import { activeKey } from '../config/keys'
import type { CloudFrontOrigin, S3Origin } from '../config'
import { CLOUDFRONT_SIGN_CHUNK, MAX_PUT_BYTES } from '../limits'
import {
  cannedPolicy,
  customPolicy,
  customPolicyParams,
  objectUrl,
  signCannedUrl,
  signCookies,
  withParams,
  type SignedCookies,
} from '../core/cloudfront/sign'
import { encodeKeyPath } from '../core/sigv4/encoding'
import { signPostPolicy, type PostPolicy } from '../core/s3/post-policy'
import { partSizeOf } from '../core/s3/parts'
import { cachedS3Presign } from '../core/s3/presign-cache'
import { responseQuery, type PresignItem, type PresignMethod } from '../core/s3/presign'
import { sha256AsciiHex } from '../core/sigv4/sha256'
import { epochSeconds } from '../core/sigv4/time'
import { signingTime, type SigningTime } from '../core/window'

/** Signs the items of one permit, in order. */
export interface BatchSigner {
  readonly expiresAt: Date
  /** The signing time (the start of the signing window when there is one). */
  readonly signedAt: Date
  /** URLs for the permit's items `from` to `to` (default: all of them). */
  sign(from?: number, to?: number): Promise<string[]>
  /** What was signed for an item, for a caller chasing SignatureDoesNotMatch. Never key material. */
  explain(item: PresignItem): SigningSteps
}

/** S3: the canonical request and string to sign. CloudFront: the policy signed. */
type SigningSteps = { canonicalRequest: string; stringToSign: string } | { policy: string }

/** Refuses anything but a permit `authorize` made for this action: a bug, never a caller's fault. */
function checked(permit: Permit, action: Permit['action']): Permit {
  if (!isPermit(permit) || permit.action !== action) {
    throw new Error(`signing needs a permit to ${action}`)
  }
  return permit
}

function s3Origin(permit: Permit): S3Origin {
  if (permit.origin.type !== 's3') throw new Error('this artifact needs an S3 origin')
  return permit.origin
}

/** A presigner for one batch on an S3 origin: the one the last request like it used, if any. */
function presignerFor(
  origin: S3Origin,
  method: PresignMethod,
  expiresIn: number,
  now: Date,
  headers?: Readonly<Record<string, string>>,
) {
  const { endpoint, region, credentials } = origin
  return cachedS3Presign({ endpoint, region, credentials, method, expiresIn, now, headers })
}

/** Runs `fn` over `items` concurrently, `size` at a time, keeping order. */
async function inChunks<T, R>(
  items: readonly T[],
  size: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += size) {
    out.push(...(await Promise.all(items.slice(i, i + size).map(fn))))
  }
  return out
}

function cloudFrontSigner(
  origin: CloudFrontOrigin,
  permit: Permit,
  time: SigningTime,
): BatchSigner {
  const key = activeKey(origin)
  const expires = epochSeconds(time.expiresAt)
  const { expiresAt, signedAt } = time
  const { items } = permit
  // The object's URL with its response-* overrides, for the S3 origin behind the distribution.
  const urlOf = (item: PresignItem) => {
    const url = objectUrl(origin.baseUrl, item.key)
    return item.response === undefined ? url : `${url}?${responseQuery(item.response).slice(1)}`
  }
  const wildcard = permit.under[0]
  if (wildcard !== undefined) {
    const resource = `${origin.baseUrl}${encodeKeyPath(wildcard)}*`
    // One signature for the whole batch, made on first use.
    let params: Promise<string> | undefined
    return {
      expiresAt,
      signedAt,
      explain: () => ({ policy: customPolicy({ resource, dateLessThan: expires }) }),
      async sign(from = 0, to = items.length) {
        params ??= customPolicyParams(key, customPolicy({ resource, dateLessThan: expires }))
        const query = await params
        return items.slice(from, to).map((item) => withParams(urlOf(item), query))
      },
    }
  }
  return {
    expiresAt,
    signedAt,
    explain: (item) => ({ policy: cannedPolicy(urlOf(item), expires) }),
    sign: (from = 0, to = items.length) =>
      inChunks(items.slice(from, to), CLOUDFRONT_SIGN_CHUNK, (item) =>
        signCannedUrl(key, urlOf(item), expires),
      ),
  }
}

/**
 * A signer for the URLs a permit allows: presigned S3 URLs for `method`, or CloudFront URLs (one
 * wildcard policy when the permit reaches a pattern, canned policies otherwise).
 *
 * @example
 * const signer = batchSigner(permit, { method: 'GET', now: new Date() })
 * const urls = await signer.sign()
 */
export function batchSigner(
  permit: Permit,
  options: { method: PresignMethod; now: Date },
): BatchSigner {
  const { origin, items } = checked(permit, actionFor(options.method))
  const time = signingTime(options.now, permit.expiresIn, permit.window, permit.maxLifetime)
  if (origin.type === 'cloudfront') return cloudFrontSigner(origin, permit, time)
  if (permit.under.length > 0) throw new Error('S3 URLs name exact keys only')
  const presigner = presignerFor(origin, options.method, time.lifetime, time.signedAt)
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
}

/**
 * A PUT URL for the permit's one key that signs what the permit's content says: its type, its
 * exact length, its SHA-256 and, unless the permit may replace an object, `If-None-Match: *`, so a
 * body of another type, size or content fails at the store, as does a key already taken.
 * `headers` is what to send; `metadata` (x-amz-meta-*) is signed too.
 */
export async function putUploadUrl(
  permit: Permit,
  metadata: Readonly<Record<string, string>>,
  now: Date,
): Promise<{ url: string; headers: Record<string, string>; expiresAt: Date }> {
  const origin = s3Origin(checked(permit, 'write'))
  const { content } = permit
  const headers: Record<string, string> = {}
  if (content?.type !== undefined) headers['content-type'] = content.type.value
  if (content?.length !== undefined && 'exact' in content.length) {
    headers['content-length'] = String(content.length.exact)
  }
  if (content?.checksumSha256 !== undefined) {
    headers['x-amz-checksum-sha256'] = content.checksumSha256
  }
  if (content?.overwrite === undefined) headers['if-none-match'] = '*'
  for (const [name, value] of Object.entries(metadata)) headers[`x-amz-meta-${name}`] = value
  const presigner = presignerFor(origin, 'PUT', permit.expiresIn, now, headers)
  const [url] = await presigner.presignAll(permit.items)
  return { url: url!, headers, expiresAt: presigner.expiresAt }
}

/**
 * A POST policy for the permit's key (or its one key pattern, as `starts-with`), its exact content
 * type, its length (exact, or up to the permit's limit) and its SHA-256 when it has one. A POST
 * form cannot refuse to replace an existing object; `authorize` lets only grants with `overwrite`
 * cover one.
 */
export function postUploadPolicy(
  permit: Permit,
  extras: {
    metadata?: Readonly<Record<string, string>> | undefined
    successActionStatus?: 200 | 201 | 204 | undefined
  },
  now: Date,
): Promise<PostPolicy> {
  const origin = s3Origin(checked(permit, 'write'))
  const { content } = permit
  const type = content?.type
  if (type === undefined) throw new Error('a POST policy needs a signed content type')
  const pattern = permit.under[0]
  const length = content?.length
  const exact = length !== undefined && 'exact' in length ? length.exact : undefined
  return signPostPolicy({
    endpoint: origin.endpoint,
    bucket: origin.bucket,
    region: origin.region,
    credentials: origin.credentials,
    now,
    expiresIn: permit.expiresIn,
    key: pattern !== undefined ? { startsWith: pattern } : { eq: permit.items[0]!.key },
    contentType: type.value,
    contentLength: { min: exact ?? 0, max: permit.maxContentLength ?? MAX_PUT_BYTES },
    checksumSha256: content?.checksumSha256,
    metadata: extras.metadata,
    successActionStatus: extras.successActionStatus,
  })
}

/** How a multipart upload is cut: every part `partSize` bytes but the last. */
export interface PartPlan {
  uploadId: string
  partSize: number
}

/**
 * UploadPart URLs for the permit's key, each pinning its part's exact size as cut from the permit's
 * exact length (so the parts can only add up to what was authorized) and, when given, its SHA-256
 * (so a part cut off mid-transfer, or any other bytes, is refused by the store).
 */
export async function partUploadUrls(
  permit: Permit,
  plan: PartPlan,
  parts: readonly { partNumber: number; checksumSha256?: string | undefined }[],
  now: Date,
): Promise<{ parts: { partNumber: number; url: string }[]; expiresAt: Date }> {
  const origin = s3Origin(checked(permit, 'write'))
  const length = permit.content?.length
  if (length === undefined || !('exact' in length)) {
    throw new Error('part URLs need an exact upload length')
  }
  const key = permit.items[0]!.key
  // One presigner per distinct set of signed headers: every full part and the last one, or each
  // part when each signs its own checksum.
  const groups = new Map<string, { headers: Record<string, string>; numbers: number[] }>()
  for (const { partNumber, checksumSha256 } of parts) {
    const headers: Record<string, string> = {
      'content-length': String(partSizeOf(length.exact, plan.partSize, partNumber)),
    }
    if (checksumSha256 !== undefined) headers['x-amz-checksum-sha256'] = checksumSha256
    const id = `${headers['content-length']} ${checksumSha256 ?? ''}`
    const group = groups.get(id)
    if (group === undefined) groups.set(id, { headers, numbers: [partNumber] })
    else group.numbers.push(partNumber)
  }
  const urls = new Map<number, string>()
  let expiresAt = now
  for (const { headers, numbers } of groups.values()) {
    const presigner = presignerFor(origin, 'PUT', permit.expiresIn, now, headers)
    const signed = await presigner.presignAll(
      numbers.map((partNumber) => ({ key, partNumber, uploadId: plan.uploadId })),
    )
    numbers.forEach((n, i) => urls.set(n, signed[i]!))
    expiresAt = presigner.expiresAt
  }
  return {
    parts: parts.map(({ partNumber }) => ({ partNumber, url: urls.get(partNumber)! })),
    expiresAt,
  }
}

/** CloudFront signed cookies for the permit's one key pattern. */
export async function cloudFrontCookies(
  permit: Permit,
  now: Date,
): Promise<{
  origin: CloudFrontOrigin
  resource: string
  expiresAt: Date
  cookies: SignedCookies
}> {
  const { origin } = checked(permit, 'read')
  const pattern = permit.under[0]
  if (origin.type !== 'cloudfront' || pattern === undefined) {
    throw new Error('cookies need a CloudFront origin and a key pattern')
  }
  const expires = epochSeconds(now) + permit.expiresIn
  const resource = `${origin.baseUrl}${encodeKeyPath(pattern)}*`
  const cookies = await signCookies(
    activeKey(origin),
    customPolicy({ resource, dateLessThan: expires }),
  )
  return { origin, resource, expiresAt: new Date(expires * 1000), cookies }
}
