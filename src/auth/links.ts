// Signed links: a self-contained token (origin, key, expiry, options, who issued it and when)
// with an HMAC-SHA256 tag under one of WAYBILL_LINK_SECRETS, named by its id so secrets rotate.
// Following a link needs no storage and no caller: the token is the authority, granted when the
// link was issued (src/routes/links.ts). Keys are imported once per isolate and secret.
//
//   <secret id>.<base64url JSON payload>.<base64url 16-byte tag>

import * as v from 'valibot'
import type { LinkSecret } from '../config'
import { constantTimeEqual } from './api-key'
import { base64UrlDecode, base64UrlEncode } from './seal'

const TAG_BYTES = 16
const encoder = new TextEncoder()
const keys = new WeakMap<LinkSecret, Promise<CryptoKey>>()

function keyOf(secret: LinkSecret): Promise<CryptoKey> {
  let key = keys.get(secret)
  if (key === undefined) {
    key = crypto.subtle.importKey(
      'raw',
      encoder.encode(secret.secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    )
    keys.set(secret, key)
  }
  return key
}

async function tag(secret: LinkSecret, body: string): Promise<Uint8Array> {
  // Bound to its purpose and its secret's id, so a tag made for anything else never checks here.
  const mac = await crypto.subtle.sign(
    'HMAC',
    await keyOf(secret),
    encoder.encode(`waybill-link-v1.${secret.id}.${body}`),
  )
  return new Uint8Array(mac, 0, TAG_BYTES)
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
export async function principalHash(principal: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(principal))
  return base64UrlEncode(new Uint8Array(digest, 0, 8))
}

/**
 * A token for `payload`, tagged with the first of `secrets`.
 *
 * @example
 * const token = await signLink(config.linkSecrets, { o: 'photos', k: 'a.jpg', e, i, p })
 */
export async function signLink(
  secrets: readonly LinkSecret[],
  payload: LinkPayload,
): Promise<string> {
  const secret = secrets[0]
  if (secret === undefined) throw new Error('signLink needs a secret')
  const body = `${secret.id}.${base64UrlEncode(encoder.encode(JSON.stringify(payload)))}`
  return `${body}.${base64UrlEncode(await tag(secret, body))}`
}

/** The payload of a token one of `secrets` tagged, or why it is not one. */
export async function verifyLink(
  secrets: readonly LinkSecret[],
  token: string,
): Promise<{ payload: LinkPayload } | { fault: LinkFault }> {
  const parts = token.split('.')
  if (parts.length !== 3) return { fault: 'malformed' }
  const [id, encoded, presented] = parts as [string, string, string]
  const secret = secrets.find((candidate) => candidate.id === id)
  if (secret === undefined) return { fault: 'unknown_secret' }
  const mac = base64UrlDecode(presented)
  if (mac === undefined || !constantTimeEqual(mac, await tag(secret, `${id}.${encoded}`))) {
    return { fault: 'tampered' }
  }
  const bytes = base64UrlDecode(encoded)
  try {
    const parsed = v.safeParse(
      Payload,
      JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)),
    )
    return parsed.success ? { payload: parsed.output } : { fault: 'malformed' }
  } catch {
    return { fault: 'malformed' }
  }
}
