// GET /v1/list/{origin}: a signed listing of one or more prefixes.

import { Hono } from '../http/hono'
import { describeRoute } from 'hono-openapi'
import {
  Answer,
  etagMatches,
  etagOf,
  privateUntil,
  RawJson,
  streamed,
  VARY,
  wantsNdjson,
} from '../http/answer'
import { problems, SECURITY } from '../http/openapi'
import { logFields } from '../middleware/request-log'
import type { AppEnv, RouteDeps } from '../middleware/types'
import { validParams, validQuery } from '../middleware/validate'
import { ListAnswer, ListParams, ListQuery } from '../schemas/list'
import { listPage } from '../services/list'
import { requestOrigin } from '../http/common'

/**
 * The success answer: its schema, in the document and the JSON answer's type (the NDJSON lines
 * are made as they are read, so the contract test checks them, not the compiler).
 */
const LIST = new Answer(
  ListAnswer,
  'One page of the listing',
  200,
  'One item per line, then a line {"prefixes", "cursor"}.',
)

/**
 * `GET /v1/list/{origin}`: prefixes are listed concurrently (bounded), each page by page; the
 * entries come back in prefix order, then S3's order, and `cursor` resumes after the last one.
 */
export function listRoutes({ clock, authenticated }: RouteDeps) {
  return new Hono<AppEnv>().get(
    '/:origin',
    describeRoute(
      DOCS
        ? {
            operationId: 'listObjects',
            summary: 'A signed listing: objects under one or more prefixes, each with a URL',
            description:
              'Needs a `list` grant containing each whole prefix; objects the caller may not read come without `url`. `If-None-Match` with the ETag answers 304. With `Accept: application/x-ndjson`, one item per line, then `{"prefixes","cursor"}`.',
            security: SECURITY,
            responses: {
              200: LIST.response,
              304: { description: 'Not modified: the ETag matched' },
              ...problems('invalid_request', 'forbidden', 'upstream_error'),
            },
          }
        : {},
    ),
    authenticated,
    validParams(ListParams),
    validQuery(ListQuery),
    async (c) => {
      const { origin } = c.req.valid('param')
      logFields(c, { origin, action: 'list' })
      const now = clock()
      const listing = await listPage(
        c.get('config'),
        c.get('principal'),
        origin,
        c.req.valid('query'),
        now,
        requestOrigin(c.req.url),
      )
      logFields(c, { items: listing.urls })
      // Cached privately while its URLs live; a listing without URLs is not kept at all.
      const { expiresAt } = listing
      const headers: Record<string, string> =
        expiresAt === undefined
          ? { vary: VARY }
          : {
              'cache-control': privateUntil(expiresAt, now),
              'waybill-expires-at': expiresAt.toISOString(),
              vary: VARY,
            }
      if (wantsNdjson(c)) return streamed(listing.lines(), 'ndjson', headers)
      const page = RawJson.of(await listing.answer())
      const etag = await etagOf(page.text)
      headers.etag = etag
      if (etagMatches(c.req.header('if-none-match'), etag)) {
        // The client's copy was counted when it was sent; this answer carries no URL.
        logFields(c, { items: 0 })
        return c.body(null, 304, headers)
      }
      return LIST.json(c, page, headers)
    },
  )
}
