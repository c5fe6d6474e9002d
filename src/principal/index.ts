/** Who is calling, once authenticated. */
export interface Principal {
  /** How they proved it. */
  readonly kind: 'api-key' | 'jwt' | 'access'
  /** The API key id, or the token's `sub`. Safe to log. */
  readonly id: string
  /**
   * A verified token's claims, for `{claim}` prefix templates; empty for an API key, whose id fills
   * `{apiKey}` only, so a key id can never stand in for a token's `sub` (see `placeholderValue`).
   */
  readonly claims: Readonly<Record<string, unknown>>
  readonly roles: ReadonlySet<string>
  /** A verified address only: a JWT's `email` counts when `email_verified` is true. */
  readonly email?: string | undefined
  /**
   * When the API key the caller used stops working (a stored key's expiry), epoch ms; undefined
   * when it does not expire. What the caller issues never outlives it (src/auth/standing.ts).
   */
  readonly keyExpiresAt?: number | undefined
}

/** How a caller's kind is spelled in its name: an API key as grants and quotas name it. */
const SPELLING: Readonly<Record<string, string>> = { 'api-key': 'apiKey' }

/**
 * The caller as people and records name it: logs, usage, audit events, upload notifications,
 * link revocations by caller. `apiKey:web` (as a grant's `to` names the key), `jwt:alice`,
 * `access:alice`; a followed link counts under `link:<issuer hash>`.
 */
export function principalName(who: { readonly kind: string; readonly id: string }): string {
  return `${SPELLING[who.kind] ?? who.kind}:${who.id}`
}

/**
 * The caller as what waybill keeps for it is keyed: sealed upload handles, receipts and cursors,
 * quota counters, rate limits, and the hash a link carries of its issuer (`api-key:web`). Fixed
 * before callers had one name (`principalName`), and kept, so that nothing issued or counted
 * before then breaks. Never shown.
 */
export function principalBinding(who: { readonly kind: string; readonly id: string }): string {
  return `${who.kind}:${who.id}`
}

/**
 * `principalBinding` of the caller a name names (`apiKey:web` → `api-key:web`), for what is
 * keyed by it; the spelling before callers had one name (`api-key:web`) stands for itself.
 */
export function bindingOfName(name: string): string {
  return name.startsWith('apiKey:') ? `api-key:${name.slice('apiKey:'.length)}` : name
}

/**
 * The value a `{name}` placeholder takes for `principal`: `{apiKey}` is an API key's id and nothing
 * else; every other name is a verified token's claim, never filled for an API key.
 */
export function placeholderValue(principal: Principal, name: string): unknown {
  if (name === 'apiKey') return principal.kind === 'api-key' ? principal.id : undefined
  return principal.kind === 'api-key' ? undefined : principal.claims[name]
}
