// WAYBILL_AUTH: which authentication methods are on, besides API keys (WAYBILL_API_KEYS).
//
//   { "jwt": { "issuer", "audience", "jwksUrl" | "jwks" | "hs256": true, "algorithms"?,
//              "clockToleranceS"?, "rolesClaim"?, "cookie"? },
//     "access": { "teamDomain", "aud", "clockToleranceS"? } }
//
// The HS256 shared secret is a secret of its own, WAYBILL_JWT_HS256_SECRET, never part of a var.

import type { JSONWebKeySet } from 'jose'
import { DEFAULT_CLOCK_TOLERANCE_S } from './limits'
import type { Env } from './env'
import type { FieldError } from '../errors'
import { isRecord, rejectUnknownFields } from '../validation'
import type { AccessConfig, JwtConfig } from './types'

const ASYMMETRIC = ['RS256', 'PS256', 'ES256', 'EdDSA']
const JWT_FIELDS = new Set([
  'issuer',
  'audience',
  'jwksUrl',
  'jwks',
  'hs256',
  'algorithms',
  'clockToleranceS',
  'rolesClaim',
  'cookie',
])
const ACCESS_FIELDS = new Set(['teamDomain', 'aud', 'clockToleranceS'])
const AUTH_FIELDS = new Set(['jwt', 'access'])
const COOKIE_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/
const CLAIM_NAME = /^[A-Za-z0-9_:./-]{1,128}$/
/** HS256 secrets shorter than the hash are guessable (RFC 7518 §3.2). */
const MIN_HS256_SECRET_BYTES = 32

function httpsUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string') return undefined
  try {
    const url = new URL(value)
    return url.protocol === 'https:' && url.username === '' && url.password === '' ? url : undefined
  } catch {
    return undefined
  }
}

function tolerance(value: unknown, path: string, errors: FieldError[]): number {
  if (value === undefined) return DEFAULT_CLOCK_TOLERANCE_S
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 600) {
    errors.push({ path, message: 'must be a whole number of seconds from 0 to 600' })
  }
  return value as number
}

function parseJwt(env: Env, def: unknown, errors: FieldError[]): JwtConfig | undefined {
  const path = 'WAYBILL_AUTH.jwt'
  if (!isRecord(def)) {
    errors.push({ path, message: 'must be an object' })
    return undefined
  }
  const before = errors.length
  rejectUnknownFields(def, JWT_FIELDS, path, errors)
  if (typeof def.issuer !== 'string' || def.issuer === '') {
    errors.push({ path: `${path}.issuer`, message: 'must be the expected "iss" value' })
  }
  const audience = typeof def.audience === 'string' ? [def.audience] : def.audience
  if (
    !Array.isArray(audience) ||
    audience.length === 0 ||
    !audience.every((a) => typeof a === 'string' && a !== '')
  ) {
    errors.push({
      path: `${path}.audience`,
      message: 'must be the expected "aud" (a string or strings)',
    })
  }

  let jwksUrl: string | undefined
  if (def.jwksUrl !== undefined) {
    const url = httpsUrl(def.jwksUrl)
    if (url === undefined) errors.push({ path: `${path}.jwksUrl`, message: 'must be an https URL' })
    else jwksUrl = url.href
  }
  let jwks: JSONWebKeySet | undefined
  if (def.jwks !== undefined) {
    if (!isRecord(def.jwks) || !Array.isArray(def.jwks.keys) || !def.jwks.keys.every(isRecord)) {
      errors.push({ path: `${path}.jwks`, message: 'must be a JWK set: { "keys": [ … ] }' })
    } else if (def.jwks.keys.some((key) => 'd' in key || 'k' in key)) {
      errors.push({ path: `${path}.jwks`, message: 'must hold public keys only (no "d" or "k")' })
    } else jwks = def.jwks as unknown as JSONWebKeySet
  }
  if (jwksUrl !== undefined && jwks !== undefined) {
    errors.push({ path: `${path}.jwks`, message: 'give either "jwksUrl" or "jwks", not both' })
  }

  let hs256Secret: Uint8Array | undefined
  if (def.hs256 !== undefined && def.hs256 !== false) {
    if (def.hs256 !== true) {
      errors.push({ path: `${path}.hs256`, message: 'must be true or false' })
    } else {
      const secret = env.WAYBILL_JWT_HS256_SECRET
      if (
        typeof secret !== 'string' ||
        new TextEncoder().encode(secret).length < MIN_HS256_SECRET_BYTES
      ) {
        errors.push({
          path: 'WAYBILL_JWT_HS256_SECRET',
          message: `must be set (a secret) to at least ${MIN_HS256_SECRET_BYTES} bytes when jwt.hs256 is true`,
        })
      } else hs256Secret = new TextEncoder().encode(secret)
    }
  }

  const hasKeys = jwksUrl !== undefined || jwks !== undefined
  let algorithms: string[] = [...(hasKeys ? ASYMMETRIC : []), ...(hs256Secret ? ['HS256'] : [])]
  if (def.algorithms !== undefined) {
    const allowed = new Set([...ASYMMETRIC, 'HS256'])
    if (
      !Array.isArray(def.algorithms) ||
      def.algorithms.length === 0 ||
      !def.algorithms.every((a) => typeof a === 'string' && allowed.has(a))
    ) {
      errors.push({
        path: `${path}.algorithms`,
        message: `must be a non-empty list of ${[...allowed].join(', ')}`,
      })
    } else algorithms = def.algorithms as string[]
  }
  if (!hasKeys && hs256Secret === undefined) {
    errors.push({ path, message: 'needs keys: "jwksUrl", "jwks" or "hs256": true' })
  } else {
    for (const alg of algorithms) {
      const usable = alg === 'HS256' ? hs256Secret !== undefined : hasKeys
      if (!usable) {
        errors.push({
          path: `${path}.algorithms`,
          message: `${alg} is listed but no ${alg === 'HS256' ? 'HS256 secret' : 'JWKS'} is configured`,
        })
      }
    }
  }

  const rolesClaim = def.rolesClaim ?? 'roles'
  if (typeof rolesClaim !== 'string' || !CLAIM_NAME.test(rolesClaim)) {
    errors.push({ path: `${path}.rolesClaim`, message: 'must be a claim name' })
  }
  if (
    def.cookie !== undefined &&
    (typeof def.cookie !== 'string' || !COOKIE_NAME.test(def.cookie))
  ) {
    errors.push({ path: `${path}.cookie`, message: 'must be a cookie name' })
  }
  const clockToleranceS = tolerance(def.clockToleranceS, `${path}.clockToleranceS`, errors)
  if (errors.length > before) return undefined
  return Object.freeze({
    issuer: def.issuer as string,
    audience: Object.freeze([...(audience as string[])]),
    algorithms: Object.freeze(algorithms),
    clockToleranceS,
    jwksUrl,
    jwks,
    hs256Secret,
    rolesClaim: rolesClaim as string,
    cookie: def.cookie as string | undefined,
  })
}

function parseAccess(def: unknown, errors: FieldError[]): AccessConfig | undefined {
  const path = 'WAYBILL_AUTH.access'
  if (!isRecord(def)) {
    errors.push({ path, message: 'must be an object' })
    return undefined
  }
  const before = errors.length
  rejectUnknownFields(def, ACCESS_FIELDS, path, errors)
  const url = httpsUrl(def.teamDomain)
  if (url === undefined || url.pathname !== '/' || url.search !== '') {
    errors.push({
      path: `${path}.teamDomain`,
      message: 'must be your Access team domain, such as "https://<team>.cloudflareaccess.com"',
    })
  }
  if (typeof def.aud !== 'string' || !/^[0-9a-f]{64}$/.test(def.aud)) {
    errors.push({
      path: `${path}.aud`,
      message: "must be the Access application's AUD tag (64 hex digits)",
    })
  }
  const clockToleranceS = tolerance(def.clockToleranceS, `${path}.clockToleranceS`, errors)
  if (errors.length > before) return undefined
  return Object.freeze({ teamDomain: url!.origin, aud: def.aud as string, clockToleranceS })
}

/** Parses WAYBILL_AUTH; absent means only API keys (if any) can authenticate. */
export function parseAuth(
  env: Env,
  value: unknown,
  errors: FieldError[],
): { jwt?: JwtConfig | undefined; access?: AccessConfig | undefined } {
  if (value === undefined) return {}
  if (!isRecord(value)) {
    errors.push({ path: 'WAYBILL_AUTH', message: 'must be a JSON object { "jwt"?, "access"? }' })
    return {}
  }
  rejectUnknownFields(value, AUTH_FIELDS, 'WAYBILL_AUTH', errors)
  return {
    jwt: value.jwt === undefined ? undefined : parseJwt(env, value.jwt, errors),
    access: value.access === undefined ? undefined : parseAccess(value.access, errors),
  }
}
