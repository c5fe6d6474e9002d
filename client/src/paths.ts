// URLs of waybill's own that carry an object key in their path.

import { WaybillError } from './errors.ts'

// The WHATWG URL parser resolves these segments before a request leaves. (A key's own "%2e" is
// sent as "%252e", which is no dot segment.)
const DOT_SEGMENT = /^\.{1,2}$/

/**
 * `key` as a URL path: each `/`-separated segment percent-encoded once, so the server, which
 * decodes the path once, gets the key back byte for byte (`%` → `%25`, `?` → `%3F`, `#` → `%23`,
 * spaces → `%20`).
 *
 * @example
 * keyPath('photos/cat picture (1).png') // 'photos/cat%20picture%20(1).png'
 */
export function keyPath(key: string): string {
  if (key === '') throw new WaybillError('invalid_argument', 'The key is empty.')
  const segments = key.split('/')
  if (segments.some((segment) => DOT_SEGMENT.test(segment))) {
    throw new WaybillError(
      'invalid_argument',
      'A key with "." or ".." segments cannot travel in a URL path (clients resolve them away); sign it with sign() instead.',
    )
  }
  try {
    return segments.map(encodeURIComponent).join('/')
  } catch {
    // URIError: a lone surrogate, which no key may hold.
    throw new WaybillError('invalid_argument', 'The key is not valid Unicode (a lone surrogate).')
  }
}
