/** A JWS Protected Header as parsed: `alg` checked to be a string, anything else as sent. */
export interface JwsHeader {
  readonly alg: string
  readonly kid?: unknown
  readonly [parameter: string]: unknown
}

/** A JWT Claims Set: a JSON object, its claims as sent. */
export type JwtPayload = Readonly<Record<string, unknown>>

/**
 * The key that verifies a token with `header`, or a throw (a `JwtError` says why). Called once
 * `alg` is known to be one the caller allows.
 */
export type KeyResolver = (header: JwsHeader) => Promise<CryptoKey>

/** A JSON Web Key as published (RFC 7517 §4): the members key selection reads, and the rest. */
export interface Jwk {
  readonly kty?: string
  readonly kid?: string
  readonly alg?: string
  readonly use?: string
  readonly key_ops?: readonly string[]
  readonly crv?: string
  readonly ext?: boolean
  readonly [member: string]: unknown
}

/** A JWK Set (RFC 7517 §5). */
export interface JwkSet {
  readonly keys: readonly Jwk[]
}
