// Who is calling. Tries, in order: `Authorization: Bearer` (a JWT when it looks like one and JWT is
// configured, else an API key), Cloudflare Access (`Cf-Access-Jwt-Assertion` or the
// `CF_Authorization` cookie), and on redirect routes only, the configured JWT cookie. Anything else,
// or nothing configured, is 401: deny by default.

import { createMiddleware } from 'hono/factory'
import type { Clock } from '../clock'
import type { Config } from '../config'
import { MAX_TOKEN_BYTES } from '../limits'
import { WaybillError } from '../errors'
import { enforceRateLimit } from './rate-limit'
import type { AppEnv, LogFields } from './types'
import { findApiKey, keyDigest } from '../auth/api-key'
import { fallenKey, type ControlPlane, type Defer } from '../control/plane'
import { deferOf } from './defer'
import type { RemoteJwksCache } from '../auth/jwks'
import { principalName, type Principal } from '../principal'
import { invalidToken, verifyAccess, verifyJwt } from '../auth/tokens'
import { readCookie } from '../http/cookies'

/** `Authorization: Bearer <credential>`, and where Cloudflare Access puts its token. */
export const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i
export const ACCESS_HEADER = 'cf-access-jwt-assertion'
export const ACCESS_COOKIE = 'CF_Authorization'
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

function unauthorized(detail: string): WaybillError {
  return new WaybillError('unauthorized', detail, {
    headers: { 'www-authenticate': 'Bearer realm="waybill"' },
  })
}

function checkSize(token: string): void {
  if (token.length > MAX_TOKEN_BYTES)
    throw invalidToken(`the token is longer than ${MAX_TOKEN_BYTES} bytes`)
}

/** What the caller may present, described for the 401 message. */
function methodsHint(config: Config, cookieAllowed: boolean): string {
  const methods: string[] = []
  if (config.apiKeys.length > 0 || config.control !== undefined) {
    methods.push('an API key as "Authorization: Bearer <key>"')
  }
  if (config.jwt !== undefined) {
    methods.push('a JWT as "Authorization: Bearer <token>"')
    if (cookieAllowed && config.jwt.cookie !== undefined)
      methods.push(`a JWT in the ${config.jwt.cookie} cookie`)
  }
  if (config.access !== undefined) methods.push('a Cloudflare Access token')
  if (methods.length === 0)
    return 'No authentication method is configured, so every request is refused.'
  return `Authenticate with ${methods.join(', or ')}.`
}

async function fromBearer(
  token: string,
  config: Config,
  jwks: RemoteJwksCache,
  control: ControlPlane,
  now: Date,
  defer: Defer,
  log: LogFields,
): Promise<Principal> {
  checkSize(token)
  if (config.jwt !== undefined && JWT_SHAPE.test(token))
    return verifyJwt(token, config.jwt, jwks, now)
  const keysOn = config.apiKeys.length > 0 || config.control !== undefined
  if (!keysOn) throw unauthorized('API keys are not enabled; send a JWT.')
  const digest = keyDigest(token)
  // The env's keys first (no I/O), then the control plane's (D1, through its caches).
  const configured = findApiKey(config.apiKeys, token, digest)
  if (configured !== undefined) {
    return { kind: 'api-key', id: configured.id, claims: {}, roles: new Set() }
  }
  // A key the caches know is judged without waiting on a promise (the common case).
  const known =
    config.control === undefined ? null : control.knownApiKey(config, digest, now.getTime(), defer)
  const stored =
    known === undefined ? await control.apiKey(config, token, digest, now, defer) : known
  if (stored === undefined || stored === null) throw unauthorized('The API key is not valid.')
  const fallen = fallenKey(stored, now.getTime())
  if (fallen !== undefined) {
    // The same answer as for a key that is not one; the key's id goes to the log, the audit
    // sinks and the audit trail, never to the caller.
    log.keyId = stored.id
    log.refusal = fallen
    control.refused(config, now.getTime(), stored.id, fallen, defer)
    throw unauthorized('The API key is not valid.')
  }
  return {
    kind: 'api-key',
    id: stored.id,
    claims: {},
    roles: new Set(),
    keyExpiresAt: stored.expiresAt ?? undefined,
  }
}

/**
 * Requires an authenticated caller, sets `principal` and applies the per-caller rate limit. Needs
 * `requireConfig()` before it. One middleware, not two: every signing request passes here.
 *
 * @param options.cookie whether this route accepts the JWT cookie (redirects, which `<img src>`
 *   and links reach without an Authorization header). Never on routes that sign in bulk: a cookie is
 *   sent by the browser on cross-site requests too.
 */
export function authenticate(options: {
  jwks: RemoteJwksCache
  clock: Clock
  control: ControlPlane
  cookie?: boolean
}) {
  const { jwks, clock, control } = options
  const cookieAllowed = options.cookie ?? false
  return createMiddleware<AppEnv>(async function authenticate(c, next) {
    const config = c.get('config')
    const now = clock()
    const defer = deferOf(c)
    let principal: Principal | undefined

    const authorization = c.req.header('authorization')
    // Only read when Access is configured: each header read crosses into the runtime.
    const accessToken =
      config.access === undefined
        ? undefined
        : (c.req.header(ACCESS_HEADER) ?? readCookie(c.req.header('cookie'), ACCESS_COOKIE))
    const cookieName = cookieAllowed ? config.jwt?.cookie : undefined
    const cookieToken =
      cookieName === undefined ? undefined : readCookie(c.req.header('cookie'), cookieName)

    if (authorization !== undefined) {
      const match = BEARER.exec(authorization)
      if (match === null)
        throw unauthorized(
          `The Authorization header must be "Bearer <credential>". ${methodsHint(config, cookieAllowed)}`,
        )
      principal = await fromBearer(match[1]!, config, jwks, control, now, defer, c.get('log'))
    } else if (accessToken !== undefined && config.access !== undefined) {
      checkSize(accessToken)
      principal = await verifyAccess(accessToken, config.access, jwks, now)
    } else if (cookieToken !== undefined && config.jwt !== undefined) {
      checkSize(cookieToken)
      principal = await verifyJwt(cookieToken, config.jwt, jwks, now)
    } else {
      throw unauthorized(methodsHint(config, cookieAllowed))
    }
    c.set('principal', principal)
    c.set('authenticatedAt', now)
    c.get('log').principal = principalName(principal)
    await enforceRateLimit(c)
    // What the caller may sign: the env's grants, plus theirs in the control plane.
    if (config.control !== undefined) {
      c.set(
        'config',
        control.knownConfigFor(config, principal, now.getTime(), defer) ??
          (await control.configFor(config, principal, now, defer)),
      )
    }
    await next()
  })
}
