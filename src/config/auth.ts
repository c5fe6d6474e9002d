// WAYBILL_AUTH: which authentication methods are on, besides API keys (WAYBILL_API_KEYS).
//
//   { "jwt": { "issuer", "audience", "jwksUrl" | "jwks" | "hs256": true, "algorithms"?,
//              "clockToleranceS"?, "rolesClaim"?, "cookie"? },
//     "access": { "teamDomain", "aud", "clockToleranceS"?, "admins"? } }
//
// `access.admins` lists the Access identities (their verified emails) that hold the admin role:
// they may call the admin API (/admin/v1). No other caller credential ever reaches it.
//
// The HS256 shared secret is a secret of its own, WAYBILL_JWT_HS256_SECRET, never part of a var.

import * as v from 'valibot'
import { wholeNumber } from '../schemas/fields'
import { pathTo, strict } from '../schemas/valibot'
import type { Env } from '../env'
import { readSecret, webUrl } from '../schemas/config'
import { DEFAULT_CLOCK_TOLERANCE_S } from '../limits'
import type { JwtConfig } from './types'

const ASYMMETRIC = ['RS256', 'PS256', 'ES256', 'EdDSA']
const ALGORITHMS = [...ASYMMETRIC, 'HS256']
const COOKIE_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/
const CLAIM_NAME = /^[A-Za-z0-9_:./-]{1,128}$/
/** HS256 secrets shorter than the hash are guessable (RFC 7518 §3.2). */
const MIN_HS256_SECRET_BYTES = 32

const ClockTolerance = v.optional(
  wholeNumber(0, 600, 'must be a whole number of seconds from 0 to 600'),
  DEFAULT_CLOCK_TOLERANCE_S,
)

const issuerMessage = 'must be the expected "iss" value'
const audienceMessage = 'must be the expected "aud" (a string or strings)'
const Audience = v.pipe(
  v.union(
    [v.string(audienceMessage), v.array(v.string(audienceMessage), audienceMessage)],
    audienceMessage,
  ),
  v.transform((audience) => (typeof audience === 'string' ? [audience] : audience)),
  v.check((audience) => audience.length > 0 && !audience.includes(''), audienceMessage),
)

const JwksUrl = v.pipe(
  v.string('must be an https URL'),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const url = webUrl(dataset.value, ['https:'])
    if (url === undefined) addIssue({ message: 'must be an https URL' })
    return url?.href ?? NEVER
  }),
)

const jwksMessage = 'must be a JWK set: { "keys": [ … ] }'
const Jwks = v.pipe(
  v.looseObject({ keys: v.array(v.looseObject({}, jwksMessage), jwksMessage) }, jwksMessage),
  // A var is not a secret: a private or shared key in it has leaked already.
  v.check(
    ({ keys }) => keys.every((key) => !('d' in key) && !('k' in key)),
    'must hold public keys only (no "d" or "k")',
  ),
)

const hs256Message = `must be set (a secret) to at least ${MIN_HS256_SECRET_BYTES} bytes`
const Hs256Secret = v.pipe(
  v.string(hs256Message),
  v.transform((secret) => new TextEncoder().encode(secret)),
  v.check((secret) => secret.length >= MIN_HS256_SECRET_BYTES, hs256Message),
)

const algorithmsMessage = `must be a non-empty list of ${ALGORITHMS.join(', ')}`

function jwt(env: Env) {
  return v.pipe(
    strict(
      {
        issuer: v.pipe(v.string(issuerMessage), v.minLength(1, issuerMessage)),
        audience: Audience,
        jwksUrl: v.optional(JwksUrl),
        jwks: v.optional(Jwks),
        // `true` reads WAYBILL_JWT_HS256_SECRET.
        hs256: v.optional(
          v.pipe(
            v.boolean('must be true or false'),
            v.rawTransform(({ dataset, addIssue, NEVER }) => {
              if (!dataset.value) return undefined
              const secret = readSecret(env, 'WAYBILL_JWT_HS256_SECRET', Hs256Secret, addIssue)
              return secret.success ? secret.output : NEVER
            }),
          ),
        ),
        algorithms: v.optional(
          v.pipe(
            v.array(v.string(algorithmsMessage), algorithmsMessage),
            v.check(
              (algorithms) =>
                algorithms.length > 0 && algorithms.every((alg) => ALGORITHMS.includes(alg)),
              algorithmsMessage,
            ),
          ),
        ),
        clockToleranceS: ClockTolerance,
        rolesClaim: v.optional(
          v.pipe(v.string('must be a claim name'), v.regex(CLAIM_NAME, 'must be a claim name')),
          'roles',
        ),
        cookie: v.optional(
          v.pipe(v.string('must be a cookie name'), v.regex(COOKIE_NAME, 'must be a cookie name')),
        ),
      },
      { type: 'must be an object' },
    ),
    v.rawTransform(({ dataset: { value: jwt }, addIssue, NEVER }): JwtConfig => {
      const { hs256: hs256Secret, algorithms: listed, audience, ...rest } = jwt
      const hasKeys = jwt.jwksUrl !== undefined || jwt.jwks !== undefined
      if (jwt.jwksUrl !== undefined && jwt.jwks !== undefined) {
        addIssue({
          message: 'give either "jwksUrl" or "jwks", not both',
          path: pathTo(jwt, 'jwks'),
        })
      }
      if (!hasKeys && hs256Secret === undefined) {
        addIssue({ message: 'needs keys: "jwksUrl", "jwks" or "hs256": true' })
        return NEVER
      }
      const algorithms = listed ?? [
        ...(hasKeys ? ASYMMETRIC : []),
        ...(hs256Secret ? ['HS256'] : []),
      ]
      const unusable = algorithms.find((alg) => (alg === 'HS256' ? !hs256Secret : !hasKeys))
      if (unusable !== undefined) {
        addIssue({
          message: `${unusable} is listed but no ${unusable === 'HS256' ? 'HS256 secret' : 'JWKS'} is configured`,
          path: pathTo(jwt, 'algorithms'),
        })
      }
      return Object.freeze({
        ...rest,
        audience: Object.freeze(audience),
        algorithms: Object.freeze(algorithms),
        hs256Secret,
      })
    }),
  )
}

const adminsMessage = 'must be a list of email addresses (Access identities with the admin role)'
const Admins = v.optional(
  v.pipe(
    v.array(
      v.pipe(v.string(adminsMessage), v.email(adminsMessage), v.maxLength(254, adminsMessage)),
      adminsMessage,
    ),
    v.transform((emails): ReadonlySet<string> => new Set(emails)),
  ),
  [],
)

const teamDomainMessage =
  'must be your Access team domain, such as "https://<team>.cloudflareaccess.com"'
const audMessage = "must be the Access application's AUD tag (64 hex digits)"
const Access = v.pipe(
  strict(
    {
      teamDomain: v.pipe(
        v.string(teamDomainMessage),
        v.rawTransform(({ dataset, addIssue, NEVER }) => {
          const url = webUrl(dataset.value, ['https:'])
          if (url === undefined || url.pathname !== '/' || url.search !== '') {
            addIssue({ message: teamDomainMessage })
            return NEVER
          }
          return url.origin
        }),
      ),
      aud: v.pipe(v.string(audMessage), v.regex(/^[0-9a-f]{64}$/, audMessage)),
      clockToleranceS: ClockTolerance,
      admins: Admins,
    },
    { type: 'must be an object' },
  ),
  v.transform((access) => Object.freeze(access)),
)

/**
 * WAYBILL_AUTH for one `env`, which holds the HS256 secret; absent means only API keys (if any)
 * can authenticate.
 *
 * @example
 * const { jwt, access } = v.parse(authSchema(env), { jwt: { issuer, audience, jwksUrl } })
 */
export function authSchema(env: Env) {
  return v.optional(
    strict(
      { jwt: v.optional(jwt(env)), access: v.optional(Access) },
      { type: 'must be a JSON object { "jwt"?, "access"? }' },
    ),
    {},
  )
}
