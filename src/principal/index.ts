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

/**
 * The caller as logs, rate limits, sealed values and usage name it: `api-key:web`, `jwt:alice`, and
 * for a followed link its issuer, `link:api-key:web`.
 */
export function principalName(who: { readonly kind: string; readonly id: string }): string {
  return `${who.kind}:${who.id}`
}

/**
 * The value a `{name}` placeholder takes for `principal`: `{apiKey}` is an API key's id and nothing
 * else; every other name is a verified token's claim, never filled for an API key.
 */
export function placeholderValue(principal: Principal, name: string): unknown {
  if (name === 'apiKey') return principal.kind === 'api-key' ? principal.id : undefined
  return principal.kind === 'api-key' ? undefined : principal.claims[name]
}
