// CloudFront private keys, imported into Web Crypto once per isolate: `prepareKeys` runs on the
// first request of a config (the config middleware awaits it) and every later request reuses the
// CryptoKeys. A key Web Crypto refuses is a config error naming the origin, not a 500 per request.

import type { CloudFrontKey } from '../core/cloudfront/sign'
import { importAlgorithm } from '../core/cloudfront/sign'
import type { FieldError } from '../errors'
import type { CloudFrontKeyConfig, CloudFrontOrigin, Config } from './types'

const imported = new WeakMap<CloudFrontKeyConfig, CryptoKey>()
const prepared = new WeakMap<Config, Promise<readonly FieldError[]>>()

async function importOne(
  origin: CloudFrontOrigin,
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
      message: `the key for WAYBILL_ORIGINS.${origin.name} (${key.keyPairId}) could not be imported`,
    }
  }
}

/** Imports every CloudFront key of `config`, once; resolves to the problems found (none: ready). */
export function prepareKeys(config: Config): Promise<readonly FieldError[]> {
  let done = prepared.get(config)
  if (done === undefined) {
    done = (async () => {
      const jobs: Promise<FieldError | undefined>[] = []
      for (const origin of config.origins.values()) {
        if (origin.type !== 'cloudfront') continue
        for (const key of origin.signingKeys) jobs.push(importOne(origin, key))
      }
      return (await Promise.all(jobs)).filter((e): e is FieldError => e !== undefined)
    })()
    prepared.set(config, done)
  }
  return done
}

/** The key an origin signs with. Only valid after `prepareKeys` resolved without problems. */
export function activeKey(origin: CloudFrontOrigin): CloudFrontKey {
  const config = origin.signingKeys[0]!
  const key = imported.get(config)
  if (key === undefined)
    throw new Error(`CloudFront key for ${origin.name} used before prepareKeys`)
  return { keyPairId: config.keyPairId, kind: config.parsed.kind, hash: origin.hash, key }
}
