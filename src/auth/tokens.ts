// JWT and Cloudflare Access token verification with jose. Keys come from a remote JWKS (cached, see
// ./jwks), a static JWKS, or the HS256 shared secret, chosen by the token's `alg` among the
// configured algorithms only, so a token cannot pick its own verification method (`alg: none`,
// HS256 keyed with an RSA public key).

import {
  createLocalJWKSet,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWSHeaderParameters,
} from 'jose'
import type { AccessConfig, JwtConfig } from '../config'
import { MAX_SUBJECT_CHARS } from '../limits'
import { WaybillError } from '../errors'
import type { RemoteJwksCache } from './jwks'
import type { Principal } from '../principal'

/** Why a token was refused, for the client (no token content) and the log. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired'
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'the token is not valid yet'
    if (error.claim === 'iss') return 'the token has the wrong issuer'
    if (error.claim === 'aud') return 'the token has the wrong audience'
    return `the token's "${error.claim}" claim is not valid`
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted"
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token was signed with an unknown key'
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return "the token's signature is not valid"
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid)
    return 'the token is malformed'
  return 'the token is not valid'
}

export function invalidToken(reason: string): WaybillError {
  return new WaybillError('unauthorized', `Authentication failed: ${reason}.`, {
    headers: { 'www-authenticate': `Bearer realm="waybill", error="invalid_token"` },
  })
}

async function verify(
  token: string,
  key: Parameters<typeof jwtVerify>[1],
  options: Parameters<typeof jwtVerify>[2],
): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, key as never, options)).payload
  } catch (error) {
    if (error instanceof WaybillError) throw error
    throw invalidToken(reasonOf(error))
  }
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name]
  return typeof value === 'string' ? value : undefined
}

/** The caller's id from `sub`: a token whose `sub` is not a usable string is refused outright. */
function subjectOf(payload: JWTPayload, allowEmpty = false): string {
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
function verifiedEmail(payload: JWTPayload): string | undefined {
  const verified: unknown = payload.email_verified
  return verified === true || verified === 'true' ? stringClaim(payload, 'email') : undefined
}

function rolesOf(payload: JWTPayload, claim: string): Set<string> {
  const value = payload[claim]
  if (typeof value === 'string') return new Set([value])
  if (Array.isArray(value)) return new Set(value.filter((v): v is string => typeof v === 'string'))
  return new Set()
}

const staticSets = new WeakMap<JwtConfig, ReturnType<typeof createLocalJWKSet>>()

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
    local = createLocalJWKSet(config.jwks)
    staticSets.set(config, local)
  }
  const keyFor = async (
    header: JWSHeaderParameters,
    input: Parameters<NonNullable<typeof remote>>[1],
  ) => {
    if (header.alg === 'HS256') {
      if (config.hs256Secret === undefined)
        throw new errors.JOSEAlgNotAllowed('HS256 is not configured')
      return config.hs256Secret
    }
    if (remote !== undefined) return remote(header, input)
    if (local !== undefined) return local(header, input)
    throw new errors.JOSEAlgNotAllowed(`${header.alg} is not configured`)
  }
  const payload = await verify(token, keyFor, {
    issuer: config.issuer,
    audience: [...config.audience],
    algorithms: [...config.algorithms],
    clockTolerance: config.clockToleranceS,
    currentDate: now,
    requiredClaims: ['exp', 'sub'],
  })
  return jwtPrincipal(payload, config)
}

/**
 * The caller a verified JWT's claims name: its `sub`, its roles (`config.rolesClaim`), its email
 * when verified. A `sub` that is not a usable string is refused (a 401).
 */
export function jwtPrincipal(
  payload: JWTPayload,
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
    audience: config.aud,
    algorithms: ['RS256'],
    clockTolerance: config.clockToleranceS,
    currentDate: now,
    requiredClaims: ['exp', 'sub'],
  })
  return accessPrincipal(payload)
}

/** The caller a verified Cloudflare Access token's claims name. */
export function accessPrincipal(payload: JWTPayload): Principal {
  // Access has verified the identity behind `email` itself; its tokens carry no `email_verified`.
  const email = stringClaim(payload, 'email')
  // Service tokens carry an empty `sub` and name themselves in `common_name`.
  const id = subjectOf(payload, true) || stringClaim(payload, 'common_name') || 'service-token'
  return { kind: 'access', id, claims: payload, roles: new Set(), email }
}
