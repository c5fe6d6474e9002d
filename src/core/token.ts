// Sealed tokens: values waybill hands out and must get back unchanged — signed links, upload
// handles and receipts, listing cursors. One format, one key list, one HMAC:
//
//   <secret id>.<base64url JSON payload>.<base64url tag>
//
// The tag is the first 16 bytes of HMAC-SHA256, under the secret the id names, over
// `waybill-<purpose>-v2.<id>.<payload>`, then `\n<binding>` when the token is bound to something it
// does not carry (a caller, a key, an origin). A token made for one purpose, binding or secret
// never opens as another. The first secret seals; every listed one opens, so secrets rotate by adding a
// new first one. The HMAC is the SigV4 hasher's (./sigv4/sha256.ts), synchronous, with each
// secret's pad blocks computed once per isolate. Decoding accepts one spelling only (./bytes.ts).
//
// Pure: no I/O, no clock.

import { base64UrlDecode, base64UrlEncode, constantTimeEqual, isAscii } from './bytes'
import { HmacSha256 } from './sigv4/sha256'

/** A secret that seals and opens tokens, named by the id its tokens carry. */
export interface TokenSecret {
  readonly id: string
  readonly secret: string
}

/** Why a text is not a token to open. */
export type TokenFault = 'malformed' | 'unknown_secret' | 'tampered'

const TAG_BYTES = 16
/** The longest payload a token carries: 8 KiB of base64url. */
const MAX_PAYLOAD_CHARS = 8192
/** A token's shape: an id, a payload of at most MAX_PAYLOAD_CHARS of base64url, a 16-byte tag. */
export const TOKEN_PATTERN = new RegExp(
  `^[A-Za-z0-9_-]{1,16}\\.[A-Za-z0-9_-]{1,${MAX_PAYLOAD_CHARS}}\\.[A-Za-z0-9_-]{22}$`,
)
const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })
const macs = new WeakMap<TokenSecret, HmacSha256>()

function macOf(secret: TokenSecret): HmacSha256 {
  let mac = macs.get(secret)
  if (mac === undefined) macs.set(secret, (mac = new HmacSha256(encoder.encode(secret.secret))))
  return mac
}

function tag(secret: TokenSecret, purpose: string, body: string, binding: string): Uint8Array {
  const mac = macOf(secret)
  const message = `waybill-${purpose}-v2.${body}${binding === '' ? '' : `\n${binding}`}`
  // Past the id (the config's are ASCII), the body is base64url, as ASCII as the purpose. A binding
  // (a caller, a key) may not be, and the message is then hashed as UTF-8.
  const ascii = isAscii(secret.id) && (binding === '' || isAscii(binding))
  return (ascii ? mac.signAscii(message) : mac.signBytes(encoder.encode(message))).subarray(
    0,
    TAG_BYTES,
  )
}

/**
 * `value` (as JSON) sealed for `purpose` with the first of `secrets`, bound to `binding`.
 *
 * @example
 * const token = sealToken(config.tokenSecrets, 'list-cursor', { i: 0, a: 'x' }, 'photos')
 */
export function sealToken(
  secrets: readonly TokenSecret[],
  purpose: string,
  value: unknown,
  binding = '',
): string {
  const secret = secrets[0]
  if (secret === undefined) throw new Error('sealing needs a secret')
  const body = `${secret.id}.${base64UrlEncode(encoder.encode(JSON.stringify(value)))}`
  return `${body}.${base64UrlEncode(tag(secret, purpose, body, binding))}`
}

/**
 * The value a token carries when one of `secrets` sealed it for `purpose` and `binding`, or why not:
 * `malformed` (not a token's shape, or not JSON), `unknown_secret` (an id no longer listed),
 * `tampered` (anything else).
 */
export function openToken(
  secrets: readonly TokenSecret[],
  purpose: string,
  token: string,
  binding = '',
): { value: unknown } | { fault: TokenFault } {
  // Its parts by their dots; the alphabet is checked by decoding them.
  const first = token.indexOf('.')
  const second = token.indexOf('.', first + 1)
  if (first < 0 || second < 0 || second - first - 1 > MAX_PAYLOAD_CHARS) {
    return faultOf(token, 'malformed')
  }
  const id = token.slice(0, first)
  const secret = secrets.find((candidate) => candidate.id === id)
  if (secret === undefined) return faultOf(token, 'unknown_secret')
  const mac = base64UrlDecode(token.slice(second + 1))
  const bytes = base64UrlDecode(token.slice(first + 1, second))
  // The payload is checked to be base64url before the tag is computed: the text it covers is ASCII.
  if (
    mac === undefined ||
    bytes === undefined ||
    !constantTimeEqual(mac, tag(secret, purpose, token.slice(0, second), binding))
  ) {
    return faultOf(token, 'tampered')
  }
  // Sealed, yet empty, not UTF-8 or not JSON: not a token of this kind.
  try {
    return { value: JSON.parse(decoder.decode(bytes)) as unknown }
  } catch {
    return { fault: 'malformed' }
  }
}

/** `fault`, unless the text is not a token's shape at all: then `malformed`, whatever else is wrong. */
function faultOf(token: string, fault: TokenFault): { fault: TokenFault } {
  return { fault: TOKEN_PATTERN.test(token) ? fault : 'malformed' }
}

/**
 * A value a token carries without showing it: `text` (UTF-8) XORed with a keystream of HMAC-SHA256
 * blocks under the secret `secretId` names, over `waybill-conceal-v1.<label>.<block>`, as
 * base64url. `label` (ASCII) must be unique to the token (a random id in it): a keystream is never
 * reused.
 * The token's own tag authenticates it. `conceal` is its own inverse on the bytes, so
 * `reveal` undoes it; undefined for a secret no longer listed or text that is not a concealment.
 *
 * @example
 * const hidden = conceal(config.tokenSecrets, 'k1', `link-issuer.${linkId}`, 'web')
 */
export function conceal(
  secrets: readonly TokenSecret[],
  secretId: string,
  label: string,
  text: string,
): string | undefined {
  const pad = padFor(secrets, secretId, label)
  return pad === undefined ? undefined : base64UrlEncode(pad(encoder.encode(text)))
}

/** The text `conceal` hid under the same secret and label, or undefined. */
export function reveal(
  secrets: readonly TokenSecret[],
  secretId: string,
  label: string,
  hidden: string,
): string | undefined {
  const pad = padFor(secrets, secretId, label)
  const bytes = base64UrlDecode(hidden)
  if (pad === undefined || bytes === undefined) return undefined
  try {
    return decoder.decode(pad(bytes))
  } catch {
    return undefined
  }
}

/** XOR with the keystream of `label` under the secret `secretId` names (32 bytes a block). */
function padFor(secrets: readonly TokenSecret[], secretId: string, label: string) {
  const secret = secrets.find((candidate) => candidate.id === secretId)
  if (secret === undefined) return undefined
  const mac = macOf(secret)
  return (bytes: Uint8Array): Uint8Array => {
    const out = new Uint8Array(bytes.length)
    for (let block = 0; block * 32 < bytes.length; block++) {
      // Labels are ASCII (a purpose and a base64url id): the hasher takes them as they are.
      const stream = mac.signAscii(`waybill-conceal-v1.${label}.${block}`)
      for (let i = block * 32; i < Math.min(bytes.length, block * 32 + 32); i++) {
        out[i] = bytes[i]! ^ stream[i - block * 32]!
      }
    }
    return out
  }
}
