// Between the routes and the pure cores: turns an authorized request for an origin into URLs,
// whatever the origin's type. Everything per batch is prepared once here.

import { activeKey } from './config/keys'
import type { CloudFrontOrigin, Origin } from './config'
import { CLOUDFRONT_SIGN_CHUNK } from './constants'
import {
  customPolicy,
  customPolicyParams,
  objectUrl,
  signCannedUrl,
  withParams,
} from './core/cloudfront/sign'
import { encodeKeyPath } from './core/sigv4/encoding'
import { prepareS3Presign, type PresignItem, type PresignMethod } from './core/s3/presign'

export type PolicyKind = 'canned' | 'wildcard'

/** Signs the items of one batch, in input order. */
export interface BatchSigner {
  readonly expiresAt: Date
  signAll(items: readonly PresignItem[]): Promise<string[]>
}

export interface BatchOptions {
  method: PresignMethod
  expiresIn: number
  now: Date
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

function cloudFrontSigner(origin: CloudFrontOrigin, options: BatchOptions): BatchSigner {
  const key = activeKey(origin)
  const expires = epochSeconds(options.now) + options.expiresIn
  const expiresAt = new Date(expires * 1000)
  if (options.policy === 'wildcard') {
    const resource = `${origin.baseUrl}${encodeKeyPath(options.wildcardPrefix ?? '')}*`
    // One signature for the whole batch, made on first use.
    let params: Promise<string> | undefined
    return {
      expiresAt,
      async signAll(items) {
        params ??= customPolicyParams(key, customPolicy({ resource, dateLessThan: expires }))
        const query = await params
        return items.map((item) => withParams(objectUrl(origin.baseUrl, item.key), query))
      },
    }
  }
  return {
    expiresAt,
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
  if (origin.type === 'cloudfront') return cloudFrontSigner(origin, options)
  const presigner = prepareS3Presign({
    endpoint: origin.endpoint,
    region: origin.region,
    credentials: origin.credentials,
    method: options.method,
    expiresIn: options.expiresIn,
    now: options.now,
  })
  return { expiresAt: presigner.expiresAt, signAll: (items) => presigner.presignAll(items) }
}
