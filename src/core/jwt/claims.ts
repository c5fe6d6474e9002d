// JWT Claims Set validation (RFC 7519 §4.1), in jose's order (lib/jwt_claims_set.js): presence,
// then `iss`, `aud`, `iat`, `nbf`, `exp`. Pure: the clock is an input.

import { JwtError } from './errors'
import { parseJsonObject } from './jws'
import type { JwtPayload } from './types'

/** What a token's claims must say. */
export interface ClaimsOptions {
  /** The one accepted `iss`. */
  readonly issuer: string
  /** `aud` (a string or a list) must name one of these. */
  readonly audience: readonly string[]
  /** Seconds `exp` and `nbf` may be off by, for clocks that disagree. */
  readonly clockToleranceS: number
  readonly now: Date
  /** Claims that must be present, besides `iss` and `aud`. */
  readonly requiredClaims?: readonly string[]
}

const invalid = (claim: string, message: string) => new JwtError('claim_invalid', message, claim)

/** The JWT Claims Set in a verified JWS payload. */
export function parseClaims(payload: Uint8Array): JwtPayload {
  const claims = parseJsonObject(payload)
  if (claims === undefined) throw new JwtError('malformed', 'the payload is not a JSON object')
  return claims
}

/** A NumericDate claim (RFC 7519 §2), when present. */
function numericDate(claims: JwtPayload, claim: string): number | undefined {
  if (!Object.hasOwn(claims, claim)) return undefined
  const value = claims[claim]
  if (typeof value !== 'number') throw invalid(claim, `"${claim}" must be a number`)
  return value
}

/**
 * Throws a `JwtError` (`claim_invalid` naming the claim, or `expired`) unless `claims` meet
 * `options` at `options.now`.
 *
 * @example
 * validateClaims(claims, { issuer, audience: [aud], clockToleranceS: 60, now: new Date() })
 */
export function validateClaims(claims: JwtPayload, options: ClaimsOptions): void {
  const { issuer, audience, clockToleranceS, now, requiredClaims = [] } = options
  const nowS = Math.floor(now.getTime() / 1000)
  // A NaN would make every time check below pass.
  if (!Number.isFinite(nowS)) throw new TypeError('now must be a valid date')
  if (!Number.isFinite(clockToleranceS) || clockToleranceS < 0) {
    throw new TypeError('clockToleranceS must be a finite number of seconds, 0 or more')
  }
  for (const claim of new Set(['iss', 'aud', ...[...requiredClaims].reverse()])) {
    if (!Object.hasOwn(claims, claim)) throw invalid(claim, `"${claim}" is missing`)
  }
  if (claims.iss !== issuer) throw invalid('iss', '"iss" is not the issuer')
  const { aud } = claims
  const audienceFits =
    typeof aud === 'string'
      ? audience.includes(aud)
      : Array.isArray(aud) && audience.some((accepted) => aud.includes(accepted))
  if (!audienceFits) throw invalid('aud', '"aud" names no accepted audience')
  numericDate(claims, 'iat')
  const nbf = numericDate(claims, 'nbf')
  if (nbf !== undefined && nbf > nowS + clockToleranceS) throw invalid('nbf', 'not valid yet')
  const exp = numericDate(claims, 'exp')
  if (exp !== undefined && exp <= nowS - clockToleranceS) {
    throw new JwtError('expired', 'expired', 'exp')
  }
}
