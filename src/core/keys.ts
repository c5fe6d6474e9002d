// Object keys as S3 takes them: what may be one, and the longest prefix a batch of them shares.
//
// Pure.

import { MAX_KEY_BYTES } from './limits'
import { isWellFormedKey, utf8Length } from './sigv4/encoding'

/** Why `key` cannot be an S3 object key, or `undefined` when it can. */
export function checkObjectKey(key: string): string | undefined {
  if (key.length === 0) return 'must not be empty'
  if (!isWellFormedKey(key)) return 'must be valid Unicode (it contains a lone surrogate)'
  // A UTF-16 code unit is at most 3 bytes of UTF-8, so a short key needs no count.
  if (key.length * 3 > MAX_KEY_BYTES && utf8Length(key) > MAX_KEY_BYTES) {
    return `must be at most ${MAX_KEY_BYTES} bytes of UTF-8`
  }
  return undefined
}

/**
 * The longest common prefix of object keys, whole code points only. Encoding is per code point, so
 * the encoded prefix is a prefix of every encoded key and `<base><encoded prefix>*` covers them all.
 */
export function commonKeyPrefix(keys: readonly string[]): string {
  if (keys.length === 0) return ''
  let prefix = keys[0]!
  for (const key of keys) {
    let i = 0
    while (i < prefix.length && i < key.length && prefix[i] === key[i]) i++
    // Do not split a surrogate pair.
    if (i > 0 && i < prefix.length && (prefix.charCodeAt(i - 1) & 0xfc00) === 0xd800) i--
    prefix = prefix.slice(0, i)
    if (prefix === '') break
  }
  return prefix
}
