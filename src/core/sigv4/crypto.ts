// Web Crypto helpers for SigV4. The derived signing key is cached per isolate so a batch (and every
// later request on the same day) pays the four-step HMAC derivation once, not per URL.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html#derive-signing-key

import { SIGNING_KEY_CACHE_ENTRIES } from '../../constants'
import { toHex } from './hex'

const encoder = new TextEncoder()
const HMAC_SHA256 = { name: 'HMAC', hash: 'SHA-256' } as const

function importHmacKey(raw: BufferSource): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', raw, HMAC_SHA256, false, ['sign'])
}

async function hmac(key: BufferSource, data: string): Promise<ArrayBuffer> {
  return crypto.subtle.sign('HMAC', await importHmacKey(key), encoder.encode(data))
}

// Map keeps insertion order, so deleting the first entry evicts the oldest.
const signingKeys = new Map<string, Promise<CryptoKey>>()

/**
 * The SigV4 signing key for (secret, day, region, service) as an imported HMAC key, derived once
 * and cached per isolate.
 */
export function signingKey(
  secretAccessKey: string,
  shortDate: string,
  region: string,
  service: string,
): Promise<CryptoKey> {
  const id = `${shortDate}\n${region}\n${service}\n${secretAccessKey}`
  const cached = signingKeys.get(id)
  if (cached !== undefined) return cached
  const derived = (async () => {
    const kDate = await hmac(encoder.encode('AWS4' + secretAccessKey), shortDate)
    const kRegion = await hmac(kDate, region)
    const kService = await hmac(kRegion, service)
    const kSigning = await hmac(kService, 'aws4_request')
    return importHmacKey(kSigning)
  })()
  // A failed derivation must not poison the cache.
  derived.catch(() => signingKeys.delete(id))
  if (signingKeys.size >= SIGNING_KEY_CACHE_ENTRIES) {
    const oldest = signingKeys.keys().next().value
    if (oldest !== undefined) signingKeys.delete(oldest)
  }
  signingKeys.set(id, derived)
  return derived
}

export async function sha256Hex(data: string): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', encoder.encode(data)))
}

export async function hmacHex(key: CryptoKey, data: string): Promise<string> {
  return toHex(await crypto.subtle.sign('HMAC', key, encoder.encode(data)))
}
