import { validateClaims, parseClaims, type ClaimsOptions } from './claims'
import { verifyCompactJws } from './jws'
import type { JwsHeader, JwtPayload, KeyResolver } from './types'

/** What a JWT must be: signed with one of `algorithms`, and claims that meet the rest. */
export interface JwtVerifyOptions extends ClaimsOptions {
  /** The accepted `alg` values; `none` is never accepted, listed or not. */
  readonly algorithms: readonly string[]
}

/**
 * Verifies a compact JWT: the JWS with a key from `resolveKey` (./jws.ts), then its claims
 * (./claims.ts). Throws a `JwtError` saying why a token is refused, or what `resolveKey` throws.
 *
 * @example
 * const { payload } = await jwtVerify(token, createLocalJwkSet(jwks), {
 *   algorithms: ['ES256'],
 *   issuer: 'https://issuer.example/',
 *   audience: ['my-api'],
 *   clockToleranceS: 60,
 *   now: new Date(),
 *   requiredClaims: ['exp', 'sub'],
 * })
 */
export async function jwtVerify(
  token: string,
  resolveKey: KeyResolver,
  options: JwtVerifyOptions,
): Promise<{ header: JwsHeader; payload: JwtPayload }> {
  const { header, payload } = await verifyCompactJws(token, options.algorithms, resolveKey)
  const claims = parseClaims(payload)
  validateClaims(claims, options)
  return { header, payload: claims }
}
