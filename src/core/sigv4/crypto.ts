// SigV4 signing keys. The key is derived with Web Crypto (the home of key material) once per
// (secret, day, region, service) and cached per isolate, so a batch, and every later request on the
// same day, pays the four-step HMAC derivation once. Per-URL hashing then runs synchronously on the
// derived key's precomputed HMAC states (./sha256.ts).
// https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html#derive-signing-key

import { BoundedCache } from '../cache'
import { SIGNING_KEY_CACHE_ENTRIES } from '../limits'
import { HmacSha256 } from './sha256'

const encoder = new TextEncoder()
const HMAC_SHA256 = { name: 'HMAC', hash: 'SHA-256' } as const

async function hmac(key: BufferSource, data: string): Promise<ArrayBuffer> {
  const imported = await crypto.subtle.importKey('raw', key, HMAC_SHA256, false, ['sign'])
  return crypto.subtle.sign('HMAC', imported, encoder.encode(data))
}

const signingKeys = new BoundedCache<string, Promise<HmacSha256>>(SIGNING_KEY_CACHE_ENTRIES)

/**
 * The SigV4 signing key for (secret, day, region, service), ready to sign, derived once and cached
 * per isolate.
 */
export function signingKey(
  secretAccessKey: string,
  shortDate: string,
  region: string,
  service: string,
): Promise<HmacSha256> {
  const id = `${shortDate}\n${region}\n${service}\n${secretAccessKey}`
  const cached = signingKeys.get(id)
  if (cached !== undefined) return cached
  const derived = (async () => {
    const kDate = await hmac(encoder.encode('AWS4' + secretAccessKey), shortDate)
    const kRegion = await hmac(kDate, region)
    const kService = await hmac(kRegion, service)
    const kSigning = await hmac(kService, 'aws4_request')
    return new HmacSha256(new Uint8Array(kSigning))
  })()
  // A failed derivation must not poison the cache.
  derived.catch(() => signingKeys.delete(id))
  signingKeys.set(id, derived)
  return derived
}
