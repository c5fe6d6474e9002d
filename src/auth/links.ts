// Signed links: a sealed token (../core/token.ts, purpose `link`) carrying origin, key, expiry,
// options, who issued it and when, and how many uses it allows. Following a link needs no caller,
// and no storage but a counted link's counter (src/control/link-uses.ts): the token is the
// authority, granted when the link was issued (src/services/links.ts), as long as its issuer
// stands (./standing.ts). The API key that issued it travels concealed under the token's secret:
// a link shows neither who made it nor which key.

import * as v from 'valibot'
import type { Config } from '../config'
import { base64UrlEncode } from '../core/bytes'
import { BoundedCache } from '../core/cache'
import { conceal, reveal, type TokenFault, type TokenSecret } from '../core/token'
import { sealed } from '../schemas/sealed'

const PURPOSE = 'link'

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
  /**
   * The API key that issued it (concealed in the token), judged when it is followed
   * (./standing.ts); null when a token's caller did. Absent only from links issued before links
   * named it: those are refused.
   */
  a: v.optional(v.nullable(v.string())),
  /** Its id, to revoke it alone (16 base64url characters; links issued before ids have none). */
  j: v.optional(v.string()),
  /** `attachment` or `inline`, a file name (the key's last segment when absent), a content type. */
  d: v.optional(v.picklist(['attachment', 'inline'])),
  n: v.optional(v.string()),
  t: v.optional(v.string()),
  /** The uses it allows (`maxUses`), counted under its id (`j`); any number when absent. */
  u: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
})
export type LinkPayload = v.InferOutput<typeof Payload>

const links = sealed(PURPOSE, Payload)

/** A new link's id: 12 random bytes, 16 base64url characters. */
export function newLinkId(): string {
  return base64UrlEncode(crypto.getRandomValues(new Uint8Array(12)))
}

/**
 * A link's token for `payload`.
 *
 * @example
 * const token = signLink(config, { o: 'photos', k: 'a.jpg', e, i, p })
 */
export function signLink(
  config: Pick<Config, 'tokenSecrets'>,
  payload: LinkPayload & { j: string },
): string {
  const { a, j } = payload
  const secret = config.tokenSecrets[0]
  if (secret === undefined) throw new Error('sealing needs a secret')
  const hidden =
    typeof a === 'string' ? conceal(config.tokenSecrets, secret.id, issuerLabel(j), a) : a
  return links.seal(config.tokenSecrets, { ...payload, a: hidden })
}

/** Where a link's issuer is concealed: its id is unique to it, so no keystream is used twice. */
const issuerLabel = (linkId: string) => `link-issuer.${linkId}`

/**
 * Links already verified, per secret list (one per configuration), by their whole token: a link
 * followed again (a shared download) is verified and its issuer revealed once. Filled only once a
 * token's tag has verified, so a kept payload is exactly what verifying the same bytes again would
 * give; expiry, revocation, the issuer's standing and uses are judged on every visit all the same
 * (src/services/links.ts). Bounded (../core/cache.ts).
 */
const verified = new WeakMap<readonly TokenSecret[], BoundedCache<string, LinkPayload>>()
const VERIFIED_ENTRIES = 512

/** The payload of a link waybill sealed (its issuer revealed), or why it is not one. */
export function verifyLink(
  config: Pick<Config, 'tokenSecrets'>,
  token: string,
): { payload: LinkPayload } | { fault: TokenFault } {
  const secrets = config.tokenSecrets
  let kept = verified.get(secrets)
  if (kept === undefined) verified.set(secrets, (kept = new BoundedCache(VERIFIED_ENTRIES)))
  const known = kept.get(token)
  if (known !== undefined) return { payload: known }
  const opened = links.open(secrets, token)
  if ('fault' in opened) return opened
  let payload = opened.value
  if (typeof payload.a === 'string') {
    // Sealed with a concealed issuer, so its id and secret are there (the tag vouches for both).
    const secretId = token.slice(0, token.indexOf('.'))
    const a =
      payload.j === undefined
        ? undefined
        : reveal(secrets, secretId, issuerLabel(payload.j), payload.a)
    if (a === undefined) return { fault: 'malformed' }
    payload = { ...payload, a }
  }
  kept.set(token, Object.freeze(payload))
  return { payload }
}
