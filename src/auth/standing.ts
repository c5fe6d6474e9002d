// Every artifact answers to its issuer. What waybill hands out and acts again after it is minted
// — a link signs a URL on every visit, an upload handle signs parts and completes, a receipt
// checks and announces, a cursor lists on — is judged again when it acts, against its issuer's
// standing now: a key revoked or past its expiry (or gone) refuses at once, not when the artifact
// expires, and nothing it issues is made to outlive it.
//
// Two ways, one rule:
// - Handles, receipts and cursors are bound to the caller that got them (their seal's binding)
//   and come back with that caller's credentials: authentication is their standing check, on
//   every use (src/middleware/authenticate.ts refuses a revoked or expired key with a 401).
// - A link (and any bearer artifact like it) comes back with no credentials: it names its issuer,
//   and `issuerStands` judges that issuer when it is followed.
//
// Pure: the stored keys come through `storedKey`, the clock as `nowMs`.

import type { Config } from '../config'

/** What decides whether a stored key still stands: its revocation and expiry, epoch ms. */
export interface KeyStanding {
  readonly expiresAt: number | null
  readonly revokedAt: number | null
}

/** A stored key stands at `nowMs` while it is not revoked and not past its expiry. */
export function keyStands(key: KeyStanding, nowMs: number): boolean {
  return key.revokedAt === null && (key.expiresAt === null || nowMs < key.expiresAt)
}

/** Who issued a bearer artifact: an API key by its id, or a token's caller (no key to check). */
type Issuer = { readonly kind: 'api-key'; readonly id: string } | { readonly kind: 'token' }

/** Why an issuer no longer stands: its key was revoked, is past its expiry, or is gone. */
type Fallen = 'revoked' | 'expired' | 'unknown'

/** How a refusal says why: "The API key that issued this link <it>." */
const FALLEN: Readonly<Record<Fallen, string>> = {
  revoked: 'was revoked',
  expired: 'has expired',
  unknown: 'is no longer configured',
}

/**
 * Why the issuer of an artifact no longer stands at `now`, in words, or undefined while it does:
 * an API key by its id, a token's caller by null. At once where no stored key is looked up (an
 * env key, a token's caller: most downloads and links), a promise of it where one is.
 */
export function issuerFallen(
  config: Pick<Config, 'apiKeys'>,
  issuer: string | null,
  now: Date,
  storedKey: ((id: string) => Promise<KeyStanding | undefined>) | undefined,
): string | undefined | Promise<string | undefined> {
  const judged = issuerStands(
    config,
    issuer === null ? { kind: 'token' } : { kind: 'api-key', id: issuer },
    now.getTime(),
    storedKey,
  )
  return judged?.then((fallen) => (fallen === undefined ? undefined : FALLEN[fallen]))
}

/**
 * Whether `issuer` may still have what it issued act, at `nowMs`: undefined when it stands, else
 * why not (a promise of that when a stored key must be looked up). An API key of WAYBILL_API_KEYS
 * stands while it is configured; a stored one while it is neither revoked nor expired. A token's caller stands: its token expires on its own, and its
 * links are revoked by time and principal (src/control/plane.ts, WAYBILL_LINK_REVOCATIONS).
 *
 * @example
 * const fallen = await issuerStands(config, { kind: 'api-key', id: 'web' }, now, lookup)
 */
function issuerStands(
  config: Pick<Config, 'apiKeys'>,
  issuer: Issuer,
  nowMs: number,
  storedKey: ((id: string) => Promise<KeyStanding | undefined>) | undefined,
): Promise<Fallen | undefined> | undefined {
  // Without a lookup, synchronously: most links are followed on this path.
  if (issuer.kind === 'token') return undefined
  if (config.apiKeys.some((key) => key.id === issuer.id)) return undefined
  if (storedKey === undefined) return Promise.resolve('unknown')
  return storedKey(issuer.id).then((stored) => {
    if (stored === undefined) return 'unknown'
    if (stored.revokedAt !== null) return 'revoked'
    return keyStands(stored, nowMs) ? undefined : 'expired'
  })
}
