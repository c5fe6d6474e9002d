// Key selection from a JWK Set as jose's createLocalJWKSet does it (jwks/local.js): the keys that
// fit the header's `kid` and `alg`, and are for verifying; exactly one, or the token is refused.
// Each key is imported once per set and algorithm, on first use.

import { JWS_ALGORITHMS, type JwsAlgorithm } from './algorithms'
import { JwtError } from './errors'
import type { Jwk, JwkSet, JwsHeader, KeyResolver } from './types'

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Whether `jwk` may verify `alg` for a token that names key `kid` (or none). */
function fits(jwk: Jwk, algorithm: JwsAlgorithm, kid: unknown): boolean {
  const { kty, key_ops: ops, ext, kid: jwkKid, alg, use, crv } = jwk
  return (
    (ext === undefined || typeof ext === 'boolean') &&
    (ops === undefined ||
      (Array.isArray(ops) &&
        ops.every((op, i) => typeof op === 'string' && ops.indexOf(op) === i) &&
        ops.includes('verify'))) &&
    kty === algorithm.kty &&
    (kid === undefined || (typeof kid === 'string' && kid === jwkKid)) &&
    (alg === undefined || alg === algorithm.name) &&
    (use === undefined || use === 'sig') &&
    (algorithm.crv === undefined || crv === algorithm.crv)
  )
}

async function importJwk(jwk: Jwk, algorithm: JwsAlgorithm): Promise<CryptoKey> {
  // Web Crypto reads `alg` with its own names (not JOSE's for Ed25519) and knows no `use`.
  // (`kty` is the algorithm's: the key was chosen for it.)
  const keyData = { ...jwk, kty: algorithm.kty } as JsonWebKey
  delete keyData.alg
  delete keyData.use
  let key: CryptoKey
  try {
    // The JWK's `key_ops` are the usages it allows: a key that allows more than a public key can
    // do does not import.
    const usages = jwk.key_ops ?? ['verify']
    key = await crypto.subtle.importKey('jwk', keyData, algorithm.key, false, [...usages])
  } catch {
    throw new JwtError('invalid_key', `a key of the set does not import for ${algorithm.name}`)
  }
  // A secret or private JWK imports too: only a public key is taken.
  if (key.type === 'public') return key
  throw new JwtError('invalid_key', 'a JWK set holds public keys only')
}

/**
 * A key resolver over a JWK Set: the one key that fits a token's header (`no_matching_key`
 * when none does, `multiple_matching_keys` when more than one does). `jwks` is copied: later
 * changes to it change nothing. HMAC algorithms are not taken from a set.
 *
 * @example
 * const resolveKey = createLocalJwkSet({ keys: [publicJwk] })
 * await jwtVerify(token, resolveKey, options)
 */
export function createLocalJwkSet(jwks: JwkSet): KeyResolver {
  let set: unknown
  try {
    set = structuredClone(jwks)
  } catch {
    throw new JwtError('invalid_key_set', 'not a JWK set')
  }
  if (!isObject(set) || !Array.isArray(set.keys) || !set.keys.every(isObject)) {
    throw new JwtError('invalid_key_set', 'not a JWK set')
  }
  const keys = set.keys as readonly Jwk[]
  const imported = new WeakMap<Jwk, Map<string, Promise<CryptoKey>>>()

  const importOnce = (jwk: Jwk, algorithm: JwsAlgorithm): Promise<CryptoKey> => {
    let byAlg = imported.get(jwk)
    if (byAlg === undefined) imported.set(jwk, (byAlg = new Map<string, Promise<CryptoKey>>()))
    let key = byAlg.get(algorithm.name)
    if (key === undefined) {
      key = importJwk(jwk, algorithm)
      // A failed import is not kept: the next token tries again.
      key.catch(() => byAlg.delete(algorithm.name))
      byAlg.set(algorithm.name, key)
    }
    return key
  }

  return async ({ alg, kid }: JwsHeader) => {
    const algorithm = JWS_ALGORITHMS.get(alg)
    if (algorithm === undefined || algorithm.secret) {
      throw new JwtError('unsupported', 'a JWK set has no keys for this "alg"')
    }
    const candidates = keys.filter((jwk) => fits(jwk, algorithm, kid))
    if (candidates.length === 0) throw new JwtError('no_matching_key', 'no key of the set fits')
    if (candidates.length > 1) {
      throw new JwtError('multiple_matching_keys', 'more than one key of the set fits')
    }
    return importOnce(candidates[0]!, algorithm)
  }
}
