import { JWS_ALGORITHMS } from './algorithms'

const keys = new WeakMap<Uint8Array, Promise<CryptoKey>>()

/**
 * The HS256 verification key for a shared `secret`, imported once per secret and isolate (by
 * identity: pass the same bytes each time, such as the parsed config's).
 *
 * @example
 * const resolveKey = () => hmacKey(config.hs256Secret)
 */
export function hmacKey(secret: Uint8Array): Promise<CryptoKey> {
  let key = keys.get(secret)
  if (key === undefined) {
    const { key: algorithm } = JWS_ALGORITHMS.get('HS256')!
    key = crypto.subtle.importKey('raw', secret, algorithm, false, ['verify'])
    // A failed import is not kept: the next token tries again.
    key.catch(() => keys.delete(secret))
    keys.set(secret, key)
  }
  return key
}
