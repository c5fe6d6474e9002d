/** Who is calling, once authenticated. Later auth methods (JWT, Access) add their own kinds. */
export interface Principal {
  readonly kind: 'api-key'
  readonly id: string
  /** Origin names this principal may sign for; `'*'` for all. */
  readonly origins: '*' | ReadonlySet<string>
}
