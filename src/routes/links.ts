// POST /v1/links: signed links anyone holding them may follow; GET /l/{token}: follow one.

import { Hono } from '../http/hono'
import { describeRoute } from 'hono-openapi'
import { Answer, found, privateUntil } from '../http/answer'
import { deferOf } from '../middleware/defer'
import { jsonBody } from '../middleware/json-body'
import { requireConfig } from '../middleware/require-config'
import { BAD_BODY, FOUND, problems, publicProblems, SECURITY } from '../http/openapi'
import { logFields } from '../middleware/request-log'
import type { AppEnv, RouteDeps } from '../middleware/types'
import { validBody, validParams } from '../middleware/validate'
import { LinkParams, LinksAnswer, LinksBody } from '../schemas/links'
import { followLink, issueLinks } from '../services/links'
import { requestOrigin } from '../http/common'

/** The success answer of `POST /v1/links`: its schema, in the document and the handler's type. */
const LINKS = new Answer(LinksAnswer, 'One link per key, in input order')

/** `POST /v1/links`. */
export function linkRoutes({ clock, authenticated }: RouteDeps) {
  return new Hono<AppEnv>().post(
    '/',
    describeRoute(
      DOCS
        ? {
            operationId: 'createLinks',
            summary: 'Signed links to objects, for an <img src>, an email or a chat',
            description:
              'Needs a `read` grant on every key. Each link works until it expires (capped by the grant’s `maxLinkExpiresIn`) for anyone holding it: following it answers a 302 to a URL signed for a few minutes. With `maxUses`, each link works that many times (1: a one-time link), counted by a Durable Object.',
            security: SECURITY,
            responses: {
              200: LINKS.response,
              ...problems(...BAD_BODY, 'forbidden'),
            },
          }
        : {},
    ),
    authenticated,
    jsonBody(),
    validBody(LinksBody),
    (c) => {
      const body = c.req.valid('json')
      logFields(c, {
        origin: body.origin,
        action: 'read',
        items: (body.items ?? body.keys ?? []).length,
      })
      const origin = requestOrigin(c.req.url)
      const answer = issueLinks(c.get('config'), c.get('principal'), body, origin, clock())
      return LINKS.json(c, answer)
    },
  )
}

/** `GET /l/{token}`: no credentials; the token is the authority. */
export function followRoutes({ clock, control }: RouteDeps) {
  return new Hono<AppEnv>().get(
    '/:token',
    describeRoute(
      DOCS
        ? {
            operationId: 'followLink',
            summary: 'Follow a signed link: a 302 to a URL signed for a few minutes',
            description:
              'A link with `maxUses` counts this visit (a HEAD as a GET) once every other check has passed, and answers 410 once its uses are spent; 503 when its counter cannot be reached, never an uncounted visit.',
            security: [],
            responses: {
              302: FOUND,
              ...publicProblems(
                'forbidden',
                'not_found',
                'gone',
                'config_invalid',
                'control_unavailable',
              ),
            },
          }
        : {},
    ),
    requireConfig(),
    validParams(LinkParams),
    async (c) => {
      const { token } = c.req.valid('param')
      const config = c.get('config')
      const now = clock()
      const defer = deferOf(c)
      const { location, expiresAt, link, uses } = await followLink(
        config,
        token,
        now,
        requestOrigin(c.req.url),
        config.control === undefined
          ? undefined
          : {
              revoked: (facts) => control.linkRevoked(config, facts, now, defer),
              storedKey: (id) => control.issuer(config, id, now, defer),
            },
      )
      // For the audit trail: the link's issuer, by the hash the link carries.
      logFields(c, { origin: link.origin, action: 'read', items: 1 })
      c.set('linkIssuer', link.issuer)
      if (uses !== undefined) c.set('linkUses', uses)
      return found(location, { 'cache-control': privateUntil(expiresAt, now) })
    },
  )
}
