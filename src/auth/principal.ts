/** Who is calling, once authenticated. */
export interface Principal {
  /** How they proved it. */
  readonly kind: 'api-key' | 'jwt' | 'access'
  /** The API key id, or the token's `sub`. Safe to log. */
  readonly id: string
  /** Claims usable in grant subjects and `{claim}` prefix templates (`sub` always). */
  readonly claims: Readonly<Record<string, unknown>>
  readonly roles: ReadonlySet<string>
  readonly email?: string | undefined
}
