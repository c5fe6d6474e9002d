// JWT and Cloudflare Access token verification (src/core/jwt). Keys come from a remote JWKS (cached,
// see ./jwks), a static JWKS, or the HS256 shared secret, chosen by the token's `alg` among the
// configured algorithms only, so a token cannot pick its own verification method (`alg: none`,
// HS256 keyed with an RSA public key).

import { JwtError } from '../core/jwt/errors'
import { hmacKey } from '../core/jwt/hmac'
import { createLocalJwkSet } from '../core/jwt/jwk-set'
import type { JwsHeader, JwtPayload, KeyResolver } from '../core/jwt/types'
import { jwtVerify, type JwtVerifyOptions } from '../core/jwt/verify'
import type { AccessConfig, JwtConfig } from '../config'
import { MAX_SUBJECT_CHARS } from '../limits'
import { WaybillError } from '../errors'
import type { RemoteJwksCache } from './jwks'
import type { Principal } from '../principal'

/** Why a token was refused, for the client (no token content) and the log. */
function reasonOf(error: unknown): string {
  if (!(error instanceof JwtError)) return 'the token is not valid'
  switch (error.code) {
    case 'expired':
      return 'the token has expired'
    case 'claim_invalid':
      if (error.claim === 'nbf') return 'the token is not valid yet'
      if (error.claim === 'iss') return 'the token has the wrong issuer'
      if (error.claim === 'aud') return 'the token has the wrong audience'
      return `the token's "${error.claim}" claim is not valid`
    case 'alg_not_allowed':
      return "the token's algorithm is not accepted"
    case 'no_matching_key':
      return 'the token was signed with an unknown key'
    case 'signature_invalid':
      return "the token's signature is not valid"
    case 'malformed':
      return 'the token is malformed'
    case 'unsupported':
    case 'multiple_matching_keys':
    case 'invalid_key':
    case 'invalid_key_set':
      return 'the token is not valid'
  }
}

export function invalidToken(reason: string): WaybillError {
  return new WaybillError('unauthorized', `Authentication failed: ${reason}.`, {
    headers: { 'www-authenticate': `Bearer realm="waybill", error="invalid_token"` },
  })
}

async function verify(
  token: string,
  resolveKey: KeyResolver,
  options: JwtVerifyOptions,
): Promise<JwtPayload> {
  try {
    return (await jwtVerify(token, resolveKey, options)).payload
  } catch (error) {
    if (error instanceof WaybillError) throw error
    throw invalidToken(reasonOf(error))
  }
}

function stringClaim(payload: JwtPayload, name: string): string | undefined {
  const value = payload[name]
  return typeof value === 'string' ? value : undefined
}

/** The caller's id from `sub`: a token whose `sub` is not a usable string is refused outright. */
function subjectOf(payload: JwtPayload, allowEmpty = false): string {
  const sub: unknown = payload.sub
  if (
    typeof sub !== 'string' ||
    sub.length > MAX_SUBJECT_CHARS ||
    (sub === '' && !allowEmpty) ||
    !sub.isWellFormed()
  ) {
    throw invalidToken(
      `the token's "sub" claim must be a string of 1 to ${MAX_SUBJECT_CHARS} characters`,
    )
  }
  return sub
}

/** `email` counts only when the issuer says it verified it (`email_verified`: true, or "true"). */
function verifiedEmail(payload: JwtPayload): string | undefined {
  const verified: unknown = payload.email_verified
  return verified === true || verified === 'true' ? stringClaim(payload, 'email') : undefined
}

function rolesOf(payload: JwtPayload, claim: string): Set<string> {
  const value = payload[claim]
  if (typeof value === 'string') return new Set([value])
  if (Array.isArray(value)) return new Set(value.filter((v): v is string => typeof v === 'string'))
  return new Set()
}

const staticSets = new WeakMap<JwtConfig, KeyResolver>()

/** Verifies a bearer JWT against the `jwt` config and returns the caller. */
export async function verifyJwt(
  token: string,
  config: JwtConfig,
  jwks: RemoteJwksCache,
  now: Date,
): Promise<Principal> {
  const remote = config.jwksUrl === undefined ? undefined : jwks.resolver(config.jwksUrl)
  let local = staticSets.get(config)
  if (local === undefined && config.jwks !== undefined) {
    local = createLocalJwkSet(config.jwks)
    staticSets.set(config, local)
  }
  const keyFor = async (header: JwsHeader) => {
    if (header.alg === 'HS256') {
      if (config.hs256Secret === undefined)
        throw new JwtError('alg_not_allowed', 'HS256 is not configured')
      return hmacKey(config.hs256Secret)
    }
    if (remote !== undefined) return remote(header)
    if (local !== undefined) return local(header)
    throw new JwtError('alg_not_allowed', `${header.alg} is not configured`)
  }
  const payload = await verify(token, keyFor, {
    issuer: config.issuer,
    audience: config.audience,
    algorithms: config.algorithms,
    clockToleranceS: config.clockToleranceS,
    now,
    requiredClaims: ['exp', 'sub'],
  })
  return jwtPrincipal(payload, config)
}

/**
 * The caller a verified JWT's claims name: its `sub`, its roles (`config.rolesClaim`), its email
 * when verified. A `sub` that is not a usable string is refused (a 401).
 */
export function jwtPrincipal(
  payload: JwtPayload,
  config: Pick<JwtConfig, 'rolesClaim'>,
): Principal {
  return {
    kind: 'jwt',
    id: subjectOf(payload),
    claims: payload,
    roles: rolesOf(payload, config.rolesClaim),
    email: verifiedEmail(payload),
  }
}

/** Verifies a Cloudflare Access application token (header or CF_Authorization cookie). */
export async function verifyAccess(
  token: string,
  config: AccessConfig,
  jwks: RemoteJwksCache,
  now: Date,
): Promise<Principal> {
  // https://developers.cloudflare.com/cloudflare-one/identity/authorization-cookie/validating-json/
  const payload = await verify(token, jwks.resolver(`${config.teamDomain}/cdn-cgi/access/certs`), {
    issuer: config.teamDomain,
    audience: [config.aud],
    algorithms: ['RS256'],
    clockToleranceS: config.clockToleranceS,
    now,
    requiredClaims: ['exp', 'sub'],
  })
  return accessPrincipal(payload)
}

/** The caller a verified Cloudflare Access token's claims name. */
export function accessPrincipal(payload: JwtPayload): Principal {
  // Access has verified the identity behind `email` itself; its tokens carry no `email_verified`.
  const email = stringClaim(payload, 'email')
  // Service tokens carry an empty `sub` and name themselves in `common_name`.
  const id = subjectOf(payload, true) || stringClaim(payload, 'common_name') || 'service-token'
  return { kind: 'access', id, claims: payload, roles: new Set(), email }
}
