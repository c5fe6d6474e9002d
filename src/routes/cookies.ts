// POST /v1/cookies: CloudFront signed cookies for everything under a prefix.

import { Hono } from '../http/hono'
import { describeRoute } from 'hono-openapi'
import { Answer } from '../http/answer'
import { setCookieText } from '../http/cookies'
import { jsonBody } from '../middleware/json-body'
import { BAD_BODY, problems, SECURITY } from '../http/openapi'
import { logFields } from '../middleware/request-log'
import type { AppEnv, RouteDeps } from '../middleware/types'
import { validBody } from '../middleware/validate'
import { CookiesAnswer, CookiesBody } from '../schemas/cookies'
import { signCookies } from '../services/cookies'

/** The success answer: its schema, in the document and the handler's type. */
const COOKIES = new Answer(CookiesAnswer, 'The cookies, also set with Set-Cookie')

/**
 * `POST /v1/cookies`: the cookies as `Set-Cookie` headers and as JSON (for clients that set them
 * another way). Needs a wildcard read grant covering the whole prefix.
 */
export function cookieRoutes({ clock, authenticated }: RouteDeps) {
  return new Hono<AppEnv>().post(
    '/',
    describeRoute(
      DOCS
        ? {
            operationId: 'signCookies',
            summary: 'CloudFront signed cookies for everything under a prefix',
            security: SECURITY,
            responses: {
              200: COOKIES.response,
              ...problems(...BAD_BODY, 'forbidden'),
            },
          }
        : {},
    ),
    authenticated,
    jsonBody(),
    validBody(CookiesBody),
    async (c) => {
      const body = c.req.valid('json')
      logFields(c, { origin: body.origin, action: 'read', items: 1 })
      const signed = await signCookies(c.get('config'), c.get('principal'), body, clock())
      const cookie = signed.settings
      for (const [name, value] of Object.entries(signed.values)) {
        const text = setCookieText(name, value, {
          path: cookie.path,
          maxAge: signed.lifetime,
          domain: cookie.domain,
          secure: cookie.secure,
          httpOnly: cookie.httpOnly,
          sameSite: cookie.sameSite,
        })
        c.header('set-cookie', text, { append: true })
      }
      return COOKIES.json(c, {
        origin: signed.origin,
        resource: signed.resource,
        expiresAt: signed.expiresAt.toISOString(),
        cookies: signed.values,
      })
    },
  )
}
