import { Hono } from 'hono'
import { authorize } from '../auth/policy'
import type { Clock } from '../http/clock'
import type { CloudFrontCookieConfig } from '../config'
import { ORIGIN_NAME } from '../config/names'
import { MAX_COOKIE_PREFIX_BYTES } from '../config/limits'
import { checkExpiresIn } from '../core/s3/presign'
import { utf8Length } from '../core/sigv4/encoding'
import { invalid, type FieldError } from '../errors'
import { readJsonBody } from '../http/json-body'
import type { AppEnv } from '../http/types'
import { cloudFrontCookies } from '../services/signers'
import { isRecord, rejectUnknownFields } from '../validation'

const FIELDS = new Set(['origin', 'prefix', 'expiresIn'])

function setCookie(
  name: string,
  value: string,
  maxAge: number,
  config: CloudFrontCookieConfig,
): string {
  let cookie = `${name}=${value}; Path=${config.path}; Max-Age=${maxAge}`
  if (config.domain !== undefined) cookie += `; Domain=${config.domain}`
  if (config.secure) cookie += '; Secure'
  if (config.httpOnly) cookie += '; HttpOnly'
  return `${cookie}; SameSite=${config.sameSite}`
}

/**
 * `POST /v1/cookies`: CloudFront signed cookies for everything under a prefix, as `Set-Cookie`
 * headers and as JSON (for clients that set them another way). Needs a wildcard read grant.
 */
export function cookieRoutes(clock: Clock) {
  return new Hono<AppEnv>().post('/', async (c) => {
    const body = await readJsonBody(c)
    if (!isRecord(body)) throw invalid([{ path: 'body', message: 'must be a JSON object' }])
    const errors: FieldError[] = []
    rejectUnknownFields(body, FIELDS, '', errors)
    const { origin: name, prefix = '', expiresIn } = body
    if (typeof name !== 'string' || !ORIGIN_NAME.test(name)) {
      errors.push({ path: 'origin', message: 'must be an origin name (a-z, 0-9, "-", "_")' })
    }
    if (
      typeof prefix !== 'string' ||
      utf8Length(prefix) > MAX_COOKIE_PREFIX_BYTES ||
      !prefix.isWellFormed()
    ) {
      errors.push({
        path: 'prefix',
        message: `must be a key prefix of at most ${MAX_COOKIE_PREFIX_BYTES} bytes`,
      })
    }
    if (expiresIn !== undefined) {
      const problem = typeof expiresIn === 'number' ? checkExpiresIn(expiresIn) : 'must be a number'
      if (problem !== undefined) errors.push({ path: 'expiresIn', message: problem })
    }
    if (errors.length > 0) throw invalid(errors)

    const config = c.get('config')
    Object.assign(c.get('log'), { origin: name, action: 'read', items: 1 })
    const permit = authorize(config, c.get('principal'), {
      origin: name as string,
      action: 'read',
      under: [{ prefix: prefix as string, path: 'prefix' }],
      expiresIn: expiresIn as number | undefined,
      fits: (origin) =>
        origin.type === 'cloudfront'
          ? []
          : [{ path: 'origin', message: 'signed cookies need a CloudFront origin' }],
    })
    const { origin, resource, expiresAt, cookies } = await cloudFrontCookies(permit, clock())
    const lifetime = permit.expiresIn
    const headers = new Headers({ 'cache-control': 'no-store' })
    for (const [cookieName, value] of Object.entries(cookies)) {
      headers.append('set-cookie', setCookie(cookieName, value, lifetime, origin.cookie))
    }
    headers.set('content-type', 'application/json')
    return new Response(
      JSON.stringify({
        origin: origin.name,
        resource,
        expiresAt: expiresAt.toISOString(),
        cookies,
      }),
      {
        headers,
      },
    )
  })
}
