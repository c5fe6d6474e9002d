// Bytes, in one place: base64 (RFC 4648 §4: POST policies, PEM bodies, webhook secrets and
// signatures, CloudFront's variant of it), base64url without padding (§5), the one encoding of every
// token waybill hands out, and comparison in constant time. Decoding is strict: only the canonical
// spelling of some bytes decodes, so a token has exactly one text. (A last character also carries
// bits past the end; any but zeros there is refused.)
//
// Pure.

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

/** Each base64url character's six bits, by char code; 64 (not a sextet) for any other below 128. */
const SEXTETS = new Uint8Array(128).fill(64)
for (let i = 0; i < 64; i++) {
  SEXTETS['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.charCodeAt(i)] = i
}

/** The six bits of the character at `i`: 64 for one outside the alphabet, 0 past the end. */
function sextet(text: string, i: number): number {
  if (i >= text.length) return 0
  const code = text.charCodeAt(i)
  return code < 128 ? SEXTETS[code]! : 64
}

/**
 * The bytes `text` is the canonical base64url (no padding) of, or undefined: a character outside
 * the alphabet, a length of 4n + 1 or stray bits past the last byte refuse it. Written out here
 * rather than through the runtime's `Uint8Array.fromBase64`, which lets whitespace and padding by
 * and, in workerd, costs a fixed half microsecond a call: a token's tag and concealed issuer are
 * 22 and ~27 characters.
 *
 * @example
 * base64UrlDecode('AQ') // Uint8Array [1]
 * base64UrlDecode('AR') // undefined: 'AR' is not how [1] is written
 */
export function base64UrlDecode(text: string): Uint8Array | undefined {
  const length = text.length
  const out = new Uint8Array((length * 3) >> 2)
  let bad = 0
  let group = 0
  for (let i = 0, o = 0; i < length; i += 4, o += 3) {
    const a = sextet(text, i)
    const b = sextet(text, i + 1)
    const c = sextet(text, i + 2)
    const d = sextet(text, i + 3)
    bad |= a | b | c | d
    group = (a << 18) | (b << 12) | (c << 6) | d
    // A typed array drops what is written past its end (a short last group's), and keeps the low
    // byte of the rest.
    out[o] = group >> 16
    out[o + 1] = group >> 8
    out[o + 2] = group
  }
  // A last group of 2 or 3 characters holds 1 or 2 bytes; the bits past them must be zeros.
  const rest = length & 3
  const stray = rest === 2 ? group & 0xffff : rest === 3 ? group & 0xff : 0
  return rest === 1 || (bad & 64) !== 0 || stray !== 0 ? undefined : out
}

const ASCII = /^[\x00-\x7f]*$/

/** Whether `text` is ASCII: its UTF-8 is its char codes, so it may be hashed or signed as it is. */
export const isAscii = (text: string): boolean => ASCII.test(text)

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
