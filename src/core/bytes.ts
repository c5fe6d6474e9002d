// Bytes, in one place: base64 (RFC 4648 §4: POST policies, PEM bodies, webhook secrets and
// signatures, CloudFront's variant of it), base64url without padding (§5), the one encoding of every
// token waybill hands out, and comparison in constant time. Decoding is strict: only the canonical
// spelling of some bytes decodes, so a token has exactly one text. (A last character also carries
// bits past the end; any but zeros there is refused.)
//
// Pure.

const ALPHABET = /^[A-Za-z0-9_-]*$/
// The characters whose low bits are zero, for a last character carrying 2 or 4 leftover bits.
const ZERO_LOW_4 = /[AQgw]$/
const ZERO_LOW_2 = /[AEIMQUYcgkosw048]$/

/**
 * The runtime's own encoder (TC39's Uint8Array.prototype.toBase64: workerd has it, Node 24 does
 * not): one call for what is otherwise a binary string, btoa and, for base64url, three replaces.
 * Every sealed token, link, tag and policy is written through it.
 */
const toBase64 = (
  Uint8Array.prototype as {
    toBase64?: (
      this: Uint8Array,
      options?: { alphabet: 'base64url'; omitPadding: boolean },
    ) => string
  }
).toBase64
const BASE64URL_UNPADDED = { alphabet: 'base64url', omitPadding: true } as const

/** `bytes` as base64, padded. */
export function base64Encode(bytes: Uint8Array): string {
  if (toBase64 !== undefined) return toBase64.call(bytes)
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  }
  return btoa(binary)
}

/** The bytes base64 `text` (padded or not; no other character) names, or undefined. */
export function base64Decode(text: string): Uint8Array | undefined {
  let binary: string
  try {
    binary = atob(text)
  } catch {
    return undefined
  }
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
  return out
}

/** `bytes` as base64url without padding. */
export function base64UrlEncode(bytes: Uint8Array): string {
  return toBase64 === undefined
    ? base64Encode(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
    : toBase64.call(bytes, BASE64URL_UNPADDED)
}

/**
 * The bytes `text` is the canonical base64url (no padding) of, or undefined.
 *
 * @example
 * base64UrlDecode('AQ') // Uint8Array [1]
 * base64UrlDecode('AR') // undefined: 'AR' is not how [1] is written
 */
export function base64UrlDecode(text: string): Uint8Array | undefined {
  if (!ALPHABET.test(text)) return undefined
  const rest = text.length % 4
  if (rest === 1) return undefined
  if ((rest === 2 && !ZERO_LOW_4.test(text)) || (rest === 3 && !ZERO_LOW_2.test(text))) {
    return undefined
  }
  return fromBase64Url === undefined
    ? base64Decode(text.replace(/-/g, '+').replace(/_/g, '/'))
    : fromBase64Url(text, BASE64URL)
}

/**
 * The runtime's own decoder (TC39's Uint8Array.fromBase64: workerd has it, Node 24 does not), for
 * text the checks above have found canonical: no atob, no copy through a binary string.
 */
const fromBase64Url = (
  Uint8Array as { fromBase64?: (text: string, options: { alphabet: 'base64url' }) => Uint8Array }
).fromBase64?.bind(Uint8Array)
const BASE64URL = { alphabet: 'base64url' } as const

/** Byte equality whose running time depends only on the length. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

/**
 * Whether two texts are equal, in time that depends on their length only (for signatures in
 * hex, compared as sent: no decoding).
 */
export function constantTimeEqualText(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

/** `bytes` as lower-case hex. */
export function hexEncode(bytes: Uint8Array): string {
  let hex = ''
  for (let i = 0; i < bytes.length; i++) hex += HEX[bytes[i]!]!
  return hex
}

/** The bytes of even-length hex `text`, which the caller has checked is hex. */
export function hexDecode(text: string): Uint8Array {
  return Uint8Array.from({ length: text.length / 2 }, (_, i) =>
    parseInt(text.slice(2 * i, 2 * i + 2), 16),
  )
}
