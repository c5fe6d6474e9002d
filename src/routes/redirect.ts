// GET /v1/redirect/{origin}/{key…}: 302 to a fresh presigned GET URL.

import { Hono } from '../http/hono'
import { describeRoute } from 'hono-openapi'
import { invalid } from '../errors'
import { found, privateUntil, VARY } from '../http/answer'
import { FOUND, problems, pathParameters, SECURITY } from '../http/openapi'
import { logFields } from '../middleware/request-log'
import type { AppEnv, RouteDeps } from '../middleware/types'
import { validQuery } from '../middleware/validate'
import { RedirectQuery, RedirectTarget } from '../schemas/redirect'
import { parse } from '../schemas/valibot'
import { redirectTo } from '../services/redirect'
import { requestOrigin } from '../http/common'

const PREFIX = '/v1/redirect/'

/**
 * The path of a serialized request URL (the runtime's `request.url`), as `new URL(url).pathname`
 * gives it, without parsing the URL again on every redirect.
 */
function pathnameOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  let end = url.length
  for (const stop of ['?', '#']) {
    const at = url.indexOf(stop, start)
    if (at >= 0 && at < end) end = at
  }
  return url.slice(start, end)
}

/**
 * The origin and the key from the raw request path, each decoded exactly once. Hono's own
 * parameter decoding is not used: the key must keep every byte the client percent-encoded (`%2F`,
 * `%25`, `+`), and the origin segment is taken as sent (an encoded name is refused), so the cut
 * between them cannot move.
 */
function targetOf(url: string) {
  const rest = pathnameOf(url).slice(PREFIX.length)
  const cut = rest.indexOf('/')
  let key: string
  try {
    key = decodeURIComponent(rest.slice(cut + 1))
  } catch {
    throw invalid([{ path: 'key', message: 'is not valid percent-encoded UTF-8' }])
  }
  return parse(RedirectTarget, { origin: rest.slice(0, cut), key })
}

/**
 * `GET /v1/redirect/{origin}/{key…}`. The redirect may be cached privately, but never past the
 * URL's own expiry less a margin for clock skew and transfer time.
 */
export function redirectRoutes({ clock, authenticatedByCookie }: RouteDeps) {
  // [\s\S]: Hono matches the decoded path, and a key may hold line terminators (%0A, %E2%80%A8).
  return new Hono<AppEnv>().get(
    '/:origin/:key{[\\s\\S]+}',
    describeRoute(
      DOCS
        ? {
            operationId: 'redirectToObject',
            summary: 'A 302 to a fresh signed URL for one object',
            description:
              'For an `<img src>` or a link: the JWT cookie (WAYBILL_AUTH.jwt.cookie) works here as well as the usual credentials. The answer may be cached privately until shortly before the URL expires.',
            security: [...SECURITY, { jwtCookie: [] }],
            parameters: pathParameters(RedirectTarget),
            responses: {
              302: FOUND,
              ...problems('invalid_request', 'forbidden'),
            },
          }
        : {},
    ),
    authenticatedByCookie,
    validQuery(RedirectQuery),
    async (c) => {
      // The path's schema, applied to the raw path here rather than by a validator on Hono's
      // decoded parameters (see targetOf).
      const target = targetOf(c.req.url)
      const query = c.req.valid('query')
      logFields(c, { origin: target.origin, action: 'read', items: 1 })
      const now = clock()
      const { location, expiresAt } = await redirectTo(
        c.get('config'),
        c.get('principal'),
        { ...target, ...query },
        now,
        requestOrigin(c.req.url),
      )
      return found(location, { 'cache-control': privateUntil(expiresAt, now), vary: VARY })
    },
  )
}
