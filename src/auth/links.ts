// Signed links: a self-contained token (origin, key, expiry, options, who issued it and when)
// with an HMAC-SHA256 tag under one of WAYBILL_LINK_SECRETS, named by its id so secrets rotate.
// Following a link needs no storage and no caller: the token is the authority, granted when the
// link was issued (src/routes/links.ts). Each secret's HMAC pad blocks are computed once per
// isolate; a tag is then one synchronous HMAC in the SigV4 hasher (../core/sigv4/sha256.ts), a
// fraction of a crypto.subtle.sign call in workerd on the path every followed link takes.
//
//   <secret id>.<base64url JSON payload>.<base64url 16-byte tag>

import * as v from 'valibot'
import type { LinkSecret } from '../config'
import { constantTimeEqual } from './api-key'
import { HmacSha256, sha256 } from '../core/sigv4/sha256'
import { base64UrlDecode, base64UrlEncode } from '../core/base64url'

const TAG_BYTES = 16
/** What a link's token looks like: a secret id, base64url JSON, a 16-byte tag. */
const TOKEN = /^[A-Za-z0-9_-]{1,16}\.[A-Za-z0-9_-]{1,8192}\.[A-Za-z0-9_-]{22}$/
const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })
const macs = new WeakMap<LinkSecret, HmacSha256>()

/** HMAC-SHA256 under the secret's UTF-8 bytes, truncated to TAG_BYTES. `body` is ASCII. */
function tag(secret: LinkSecret, body: string): Uint8Array {
  let mac = macs.get(secret)
  if (mac === undefined) macs.set(secret, (mac = new HmacSha256(encoder.encode(secret.secret))))
  // Bound to its purpose and its secret's id, so a tag made for anything else never checks here.
  return mac.signAscii(`waybill-link-v1.${secret.id}.${body}`).subarray(0, TAG_BYTES)
}

/** What a link carries. Times are epoch seconds. */
const Payload = v.object({
  /** Origin and key. */
  o: v.string(),
  k: v.string(),
  /** Expires, issued. */
  e: v.pipe(v.number(), v.integer()),
  i: v.pipe(v.number(), v.integer()),
  /** Who issued it: a hash of the caller as the request log names it (see `principalHash`). */
  p: v.string(),
  /** `attachment` or `inline`, a file name (the key's last segment when absent), a content type. */
  d: v.optional(v.picklist(['attachment', 'inline'])),
  n: v.optional(v.string()),
  t: v.optional(v.string()),
})
export type LinkPayload = v.InferOutput<typeof Payload>

/** Why a token is not a link to follow. */
export type LinkFault = 'malformed' | 'unknown_secret' | 'tampered'

/**
 * A hash of the caller that issued a link (`jwt:alice`), so a link does not show who made it but
 * a revocation naming the caller still finds it: 8 bytes of SHA-256, base64url.
 */
export function principalHash(principal: string): string {
  return base64UrlEncode(sha256(encoder.encode(principal)).subarray(0, 8))
}

/**
 * A token for `payload`, tagged with the first of `secrets`.
 *
 * @example
 * const token = await signLink(config.linkSecrets, { o: 'photos', k: 'a.jpg', e, i, p })
 */
export function signLink(secrets: readonly LinkSecret[], payload: LinkPayload): string {
  const secret = secrets[0]
  if (secret === undefined) throw new Error('signLink needs a secret')
  const body = `${secret.id}.${base64UrlEncode(encoder.encode(JSON.stringify(payload)))}`
  return `${body}.${base64UrlEncode(tag(secret, body))}`
}

/** The payload of a token one of `secrets` tagged, or why it is not one. */
export function verifyLink(
  secrets: readonly LinkSecret[],
  token: string,
): { payload: LinkPayload } | { fault: LinkFault } {
  if (!TOKEN.test(token)) return { fault: 'malformed' }
  const parts = token.split('.')
  const [id, encoded, presented] = parts as [string, string, string]
  const secret = secrets.find((candidate) => candidate.id === id)
  if (secret === undefined) return { fault: 'unknown_secret' }
  // Both base64url (so ASCII, as the tag's input must be) before any hashing: no link of ours has
  // anything else there, so it is refused as one tampered with.
  const mac = base64UrlDecode(presented)
  const bytes = base64UrlDecode(encoded)
  if (
    mac === undefined ||
    bytes === undefined ||
    !constantTimeEqual(mac, tag(secret, `${id}.${encoded}`))
  ) {
    return { fault: 'tampered' }
  }
  try {
    const parsed = v.safeParse(Payload, JSON.parse(decoder.decode(bytes)))
    return parsed.success ? { payload: parsed.output } : { fault: 'malformed' }
  } catch {
    return { fault: 'malformed' }
  }
}
