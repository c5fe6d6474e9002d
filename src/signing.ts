// Between the routes and the pure cores: turns an authorized request for an origin into URLs,
// whatever the origin's type. Everything per batch is prepared once here.

import { activeKey } from './config/keys'
import type { CloudFrontOrigin, Origin } from './config'
import { CLOUDFRONT_SIGN_CHUNK } from './constants'
import {
  cannedPolicy,
  customPolicy,
  customPolicyParams,
  objectUrl,
  signCannedUrl,
  withParams,
} from './core/cloudfront/sign'
import { encodeKeyPath } from './core/sigv4/encoding'
import { prepareS3Presign, type PresignItem, type PresignMethod } from './core/s3/presign'
import { sha256AsciiHex } from './core/sigv4/sha256'
import { signingTime, type SigningTime } from './core/window'

export type PolicyKind = 'canned' | 'wildcard'

/** Signs the items of one batch, in input order. */
export interface BatchSigner {
  readonly expiresAt: Date
  /** The signing time (the start of the signing window when there is one). */
  readonly signedAt: Date
  signAll(items: readonly PresignItem[]): Promise<string[]>
  /** What was signed for an item, for a caller chasing SignatureDoesNotMatch. Never key material. */
  explain(item: PresignItem): SigningSteps
}

/** S3: the canonical request and string to sign. CloudFront: the policy signed. */
export type SigningSteps = { canonicalRequest: string; stringToSign: string } | { policy: string }

export interface BatchOptions {
  method: PresignMethod
  /** The least life every URL must have from `now`. */
  expiresIn: number
  now: Date
  /** Signing window in seconds (0: sign at `now`); shortened so no URL outlives `maxLifetime`. */
  window?: number | undefined
  maxLifetime?: number | undefined
  /** Headers the URL's user must send (S3 uploads). */
  headers?: Readonly<Record<string, string>> | undefined
  /** CloudFront only: `wildcard` signs one custom policy for `<base><wildcardPrefix>*`. */
  policy?: PolicyKind | undefined
  wildcardPrefix?: string | undefined
}

function epochSeconds(now: Date): number {
  return Math.floor(now.getTime() / 1000)
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
  options: BatchOptions,
  time: SigningTime,
): BatchSigner {
  const key = activeKey(origin)
  const expires = epochSeconds(time.expiresAt)
  const { expiresAt, signedAt } = time
  if (options.policy === 'wildcard') {
    const resource = `${origin.baseUrl}${encodeKeyPath(options.wildcardPrefix ?? '')}*`
    // One signature for the whole batch, made on first use.
    let params: Promise<string> | undefined
    return {
      expiresAt,
      signedAt,
      explain: () => ({ policy: customPolicy({ resource, dateLessThan: expires }) }),
      async signAll(items) {
        params ??= customPolicyParams(key, customPolicy({ resource, dateLessThan: expires }))
        const query = await params
        return items.map((item) => withParams(objectUrl(origin.baseUrl, item.key), query))
      },
    }
  }
  return {
    expiresAt,
    signedAt,
    explain: (item) => ({ policy: cannedPolicy(objectUrl(origin.baseUrl, item.key), expires) }),
    signAll: (items) =>
      inChunks(items, CLOUDFRONT_SIGN_CHUNK, (item) =>
        signCannedUrl(key, objectUrl(origin.baseUrl, item.key), expires),
      ),
  }
}

/**
 * A signer for one authorized batch on `origin`.
 *
 * @example
 * const signer = batchSigner(origin, { method: 'GET', expiresIn: 900, now: new Date() })
 * const urls = await signer.signAll([{ key: 'a.jpg' }])
 */
export function batchSigner(origin: Origin, options: BatchOptions): BatchSigner {
  const time = signingTime(options.now, options.expiresIn, options.window ?? 0, options.maxLifetime)
  if (origin.type === 'cloudfront') return cloudFrontSigner(origin, options, time)
  const presigner = prepareS3Presign({
    endpoint: origin.endpoint,
    region: origin.region,
    credentials: origin.credentials,
    method: options.method,
    expiresIn: time.lifetime,
    now: time.signedAt,
    headers: options.headers,
  })
  return {
    expiresAt: presigner.expiresAt,
    signedAt: time.signedAt,
    signAll: (items) => presigner.presignAll(items),
    explain(item) {
      const canonicalRequest = presigner.canonicalRequest(item)
      return {
        canonicalRequest,
        stringToSign: presigner.stringToSign(sha256AsciiHex(canonicalRequest)),
      }
    },
  }
}
