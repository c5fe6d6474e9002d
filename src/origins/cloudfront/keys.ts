// CloudFront private keys, imported into Web Crypto once per isolate: an origin's `prepare` runs on
// the first request of a config (the config middleware awaits it) and every later request reuses
// the CryptoKeys. A key Web Crypto refuses is a config error naming the origin, not a 500 per
// request.

import type { CloudFrontKey } from '../../core/cloudfront/sign'
import { importAlgorithm } from '../../core/cloudfront/sign'
import type { FieldError } from '../../errors'
import type { CloudFrontKeyConfig, CloudFrontSettings } from './settings'

const imported = new WeakMap<CloudFrontKeyConfig, CryptoKey>()
const prepared = new WeakMap<CloudFrontSettings, Promise<readonly FieldError[]>>()

async function importOne(
  name: string,
  origin: CloudFrontSettings,
  key: CloudFrontKeyConfig,
): Promise<FieldError | undefined> {
  try {
    const cryptoKey = await crypto.subtle.importKey(
      'pkcs8',
      key.parsed.pkcs8,
      importAlgorithm(key.parsed.kind, origin.hash),
      false,
      ['sign'],
    )
    imported.set(key, cryptoKey)
    return undefined
  } catch {
    return {
      path: key.secret,
      message: `the key for WAYBILL_ORIGINS.${name} (${key.keyPairId}) could not be imported`,
    }
  }
}

/** Imports every key of origin `name`, once; resolves to the problems found (none: ready). */
export function prepareKeys(
  name: string,
  origin: CloudFrontSettings,
): Promise<readonly FieldError[]> {
  let done = prepared.get(origin)
  if (done === undefined) {
    done = Promise.all(origin.signingKeys.map((key) => importOne(name, origin, key))).then(
      (problems) => problems.filter((e): e is FieldError => e !== undefined),
    )
    prepared.set(origin, done)
  }
  return done
}

/** The key an origin signs with. Only valid after `prepareKeys` resolved without problems. */
export function activeKey(name: string, origin: CloudFrontSettings): CloudFrontKey {
  const config = origin.signingKeys[0]!
  const key = imported.get(config)
  if (key === undefined) throw new Error(`CloudFront key for ${name} used before prepareKeys`)
  return { keyPairId: config.keyPairId, kind: config.parsed.kind, hash: origin.hash, key }
}
