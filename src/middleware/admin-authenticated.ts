// Who may call the admin API (/admin/v1, the admin Worker): a bearer admin token
// (WAYBILL_ADMIN_TOKENS, hashes only) or a Cloudflare Access identity holding the admin role (the
// admin Worker's WAYBILL_AUTH.access.admins). Never a caller's credentials: an API key or a JWT is
// not an admin token (401), and an Access identity without the role is refused (403). Grants play
// no part here.

import { createMiddleware } from 'hono/factory'
import type { AdminConfig } from '../config/admin'
import { WaybillError } from '../errors'
import type { Clock } from '../clock'
import type { AdminAppEnv } from './types'
import { MAX_TOKEN_BYTES } from '../limits'
import { findApiKey } from '../auth/api-key'
import { ACCESS_COOKIE, ACCESS_HEADER, BEARER } from './authenticate'
import type { RemoteJwksCache } from '../auth/jwks'
import { invalidToken, verifyAccess } from '../auth/tokens'
import { readCookie } from '../http/cookies'

function unauthorized(detail: string): WaybillError {
  return new WaybillError('unauthorized', detail, {
    headers: { 'www-authenticate': 'Bearer realm="waybill", scope="admin"' },
  })
}

/** What an admin may present, for the 401 message. */
function methodsHint(config: AdminConfig): string {
  const methods: string[] = []
  if (config.adminTokens.length > 0) {
    methods.push('an admin token as "Authorization: Bearer <token>"')
  }
  if ((config.access?.admins.size ?? 0) > 0) {
    methods.push('a Cloudflare Access identity with the admin role')
  }
  if (methods.length === 0) {
    return 'No admin authentication is configured (WAYBILL_ADMIN_TOKENS, WAYBILL_AUTH.access.admins), so every admin request is refused.'
  }
  return `Authenticate with ${methods.join(', or ')}.`
}

/**
 * Requires an admin, and names it on the context (`admin`) and in the request log. Needs
 * `requireAdminConfig()` before it.
 */
export function adminAuthenticated(options: { jwks: RemoteJwksCache; clock: Clock }) {
  const { jwks, clock } = options
  return createMiddleware<AdminAppEnv>(async function adminAuthenticated(c, next) {
    const config = c.get('config')
    const authorization = c.req.header('authorization')
    const admins = config.access?.admins
    const accessToken =
      admins === undefined || admins.size === 0
        ? undefined
        : (c.req.header(ACCESS_HEADER) ?? readCookie(c.req.header('cookie'), ACCESS_COOKIE))
    let admin: string
    if (authorization !== undefined) {
      const token = BEARER.exec(authorization)?.[1]
      if (token === undefined) {
        throw unauthorized(
          `The Authorization header must be "Bearer <admin token>". ${methodsHint(config)}`,
        )
      }
      if (token.length > MAX_TOKEN_BYTES) {
        throw unauthorized(`The admin token is longer than ${MAX_TOKEN_BYTES} bytes.`)
      }
      const found = findApiKey(config.adminTokens, token)
      if (found === undefined) {
        throw unauthorized(
          'This is not an admin token: the admin API takes WAYBILL_ADMIN_TOKENS, never a caller’s API key or JWT.',
        )
      }
      admin = `admin:${found.id}`
    } else if (accessToken !== undefined && config.access !== undefined) {
      if (accessToken.length > MAX_TOKEN_BYTES) {
        throw invalidToken(`the token is longer than ${MAX_TOKEN_BYTES} bytes`)
      }
      const identity = await verifyAccess(accessToken, config.access, jwks, clock())
      if (identity.email === undefined || !config.access.admins.has(identity.email)) {
        throw new WaybillError(
          'forbidden',
          'This Cloudflare Access identity does not hold the admin role (WAYBILL_AUTH.access.admins).',
        )
      }
      admin = `admin:access:${identity.email}`
    } else {
      throw unauthorized(methodsHint(config))
    }
    c.set('admin', admin)
    c.get('log').principal = admin
    await next()
  })
}
