// The JWS algorithms waybill verifies (RFC 7518 §3, RFC 8037 §3.1), each with the keys it takes
// and the Web Crypto parameters it verifies with. Anything not listed here is never verified.

import { MIN_RSA_MODULUS_BITS } from '../limits'
import { JwtError } from './errors'

export interface JwsAlgorithm {
  readonly name: string
  /** The JWK `kty`, and `crv` where the type has curves, of the keys it takes. */
  readonly kty: 'RSA' | 'EC' | 'OKP' | 'oct'
  readonly crv?: string
  /** How its keys are imported, and what an imported key's `algorithm` must say. */
  readonly key: { readonly name: string; readonly hash?: string; readonly namedCurve?: string }
  /** What `crypto.subtle.verify` takes. */
  readonly verify: { readonly name: string; readonly hash?: string; readonly saltLength?: number }
  /** A shared secret (HMAC), not a public key. */
  readonly secret: boolean
}

const RS256 = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }
const PS256 = { name: 'RSA-PSS', hash: 'SHA-256' }
const HS256 = { name: 'HMAC', hash: 'SHA-256' }

const ALGORITHMS: readonly JwsAlgorithm[] = [
  { name: 'RS256', kty: 'RSA', key: RS256, verify: RS256, secret: false },
  // RFC 7518 §3.5: the salt is as long as the hash.
  { name: 'PS256', kty: 'RSA', key: PS256, verify: { ...PS256, saltLength: 32 }, secret: false },
  {
    name: 'ES256',
    kty: 'EC',
    crv: 'P-256',
    key: { name: 'ECDSA', namedCurve: 'P-256' },
    // Web Crypto takes the signature as r || s, the form RFC 7518 §3.4 sends.
    verify: { name: 'ECDSA', hash: 'SHA-256' },
    secret: false,
  },
  {
    name: 'EdDSA',
    kty: 'OKP',
    crv: 'Ed25519',
    key: { name: 'Ed25519' },
    verify: { name: 'Ed25519' },
    secret: false,
  },
  { name: 'HS256', kty: 'oct', key: HS256, verify: HS256, secret: true },
]

/** Every JWS algorithm waybill verifies, by `alg`. */
export const JWS_ALGORITHMS: ReadonlyMap<string, JwsAlgorithm> = new Map(
  ALGORITHMS.map((algorithm) => [algorithm.name, algorithm]),
)

interface KeyAlgorithmSeen {
  readonly name: string
  readonly hash?: { readonly name?: string }
  readonly namedCurve?: string
  readonly modulusLength?: number
}

/**
 * Throws unless `key` verifies `algorithm` and nothing else: its type (secret or public), its
 * Web Crypto algorithm, hash and curve, its `verify` usage, and an RSA modulus of at least
 * MIN_RSA_MODULUS_BITS. A token's `alg` picks `algorithm`, so this is what stops a key meant for one
 * algorithm verifying another (an RSA public key as an HMAC secret, RS256 for PS256).
 */
export function checkKey(algorithm: JwsAlgorithm, key: CryptoKey): void {
  const seen = key.algorithm as KeyAlgorithmSeen
  const { name, hash, namedCurve } = algorithm.key
  const fits =
    key.type === (algorithm.secret ? 'secret' : 'public') &&
    seen.name === name &&
    (hash === undefined || seen.hash?.name === hash) &&
    (namedCurve === undefined || seen.namedCurve === namedCurve) &&
    key.usages.includes('verify') &&
    (algorithm.kty !== 'RSA' ||
      (typeof seen.modulusLength === 'number' && seen.modulusLength >= MIN_RSA_MODULUS_BITS))
  if (!fits) throw new JwtError('invalid_key', `the key is not one that verifies ${algorithm.name}`)
}
