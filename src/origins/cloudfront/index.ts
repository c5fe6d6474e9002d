// The CloudFront driver: a distribution whose key group holds waybill's public keys. Canned-policy
// URLs (one RSA or ECDSA signature each), one custom wildcard policy for everything under a prefix
// (batches and signed cookies), and listing through the S3 origin over its bucket (`listFrom`).
// GET and HEAD only: a distribution takes no uploads through waybill.

import { responseQuery } from '../../core/s3/presign'
import {
  cannedPolicy,
  customPolicy,
  customPolicyParams,
  objectUrl,
  signCannedUrl,
  signCookies,
  withParams,
} from '../../core/cloudfront/sign'
import { encodeKeyPath } from '../../core/sigv4/encoding'
import { epochSeconds } from '../../core/sigv4/time'
import { CLOUDFRONT_SIGN_CHUNK } from '../../limits'
import type { BatchSigner, ObjectItem, Origin, OriginDriver, Urls, Wildcards } from '../types'
import { activeKey, prepareKeys } from './keys'
import { cloudFrontSettings, type CloudFrontSettings } from './settings'

/** A CloudFront origin: what every origin is, and its distribution's settings. */
export type CloudFrontOrigin = Origin & CloudFrontSettings

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

/** The object's URL with its response-* overrides, for the S3 origin behind the distribution. */
function urlOf(settings: CloudFrontSettings, item: ObjectItem): string {
  const url = objectUrl(settings.baseUrl, item.key)
  return item.response === undefined ? url : `${url}?${responseQuery(item.response).slice(1)}`
}

export const cloudfront: OriginDriver<CloudFrontSettings> = {
  type: 'cloudfront',
  schema: cloudFrontSettings,
  create(name, settings, others): CloudFrontOrigin {
    const key = () => activeKey(name, settings)
    const resourceOf = (prefix: string) => `${settings.baseUrl}${encodeKeyPath(prefix)}*`
    let resolving = false
    const urls: Urls = {
      methods: ['GET', 'HEAD'],
      versions: false,
      overrides: settings.responseOverrides,
      // A canned URL is one signature; only RSA's are costly enough to count.
      rsaSignatures: settings.signingKeys[0]!.parsed.kind === 'rsa' ? 1 : 0,
      signer(items, _method, time): BatchSigner {
        const expires = epochSeconds(time.expiresAt)
        return {
          expiresAt: time.expiresAt,
          signedAt: time.signedAt,
          explain: (item) => ({ policy: cannedPolicy(urlOf(settings, item), expires) }),
          sign: (from = 0, to = items.length) =>
            inChunks(items.slice(from, to), CLOUDFRONT_SIGN_CHUNK, (item) =>
              signCannedUrl(key(), urlOf(settings, item), expires),
            ),
        }
      },
    }
    const wildcards: Wildcards = {
      signer(prefix, items, time): BatchSigner {
        const policy = customPolicy({
          resource: resourceOf(prefix),
          dateLessThan: epochSeconds(time.expiresAt),
        })
        // One signature for the whole batch, made on first use.
        let params: Promise<string> | undefined
        return {
          expiresAt: time.expiresAt,
          signedAt: time.signedAt,
          explain: () => ({ policy }),
          async sign(from = 0, to = items.length) {
            params ??= customPolicyParams(key(), policy)
            const query = await params
            return items.slice(from, to).map((item) => withParams(urlOf(settings, item), query))
          },
        }
      },
      async cookies(prefix, expiresAt) {
        const resource = resourceOf(prefix)
        const policy = customPolicy({ resource, dateLessThan: epochSeconds(expiresAt) })
        const values = await signCookies(key(), policy)
        return { resource, values, settings: settings.cookie }
      },
    }
    return Object.freeze({
      ...settings,
      name,
      urls: Object.freeze(urls),
      wildcards: Object.freeze(wildcards),
      // The bucket behind the distribution, when one is named: its pages, CloudFront's URLs. (A
      // name that leads back here lists nothing, and the configuration says so.)
      get listing() {
        if (settings.listFrom === undefined || resolving) return undefined
        resolving = true
        try {
          return others(settings.listFrom)?.listing
        } finally {
          resolving = false
        }
      },
      grantProblem: (grant: { wildcard: boolean }) =>
        grant.wildcard && settings.responseOverrides
          ? {
              path: 'wildcard',
              message: `cannot be true on origin "${name}", which has responseOverrides: any holder of a wildcard URL or cookie could add response-* parameters (such as response-content-type=text/html) that its policy does not pin`,
            }
          : undefined,
      prepare: () => prepareKeys(name, settings),
    })
  },
  check(settings, others) {
    if (settings.listFrom === undefined || others(settings.listFrom)?.listing !== undefined) {
      return []
    }
    return [
      {
        path: 'listFrom',
        message: 'must name an origin defined in WAYBILL_ORIGINS that can be listed',
      },
    ]
  },
}
