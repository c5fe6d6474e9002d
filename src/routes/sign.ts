// POST /v1/sign: a batch of presigned URLs for one origin, method and expiry.

import type { Context } from 'hono'
import { Hono } from '../http/hono'
import { describeRoute } from 'hono-openapi'
import { JSON_VALUES_PER_ITEM, MAX_BODY_BYTES, MAX_SIGN_JSON_VALUES } from '../limits'
import { Answer, streamed, wantsNdjson } from '../http/answer'
import { jsonBody } from '../middleware/json-body'
import { BAD_BODY, problems, SECURITY } from '../http/openapi'
import { logFields } from '../middleware/request-log'
import type { AppEnv, RouteDeps } from '../middleware/types'
import { validBody } from '../middleware/validate'
import { SignAnswer, SignBody } from '../schemas/sign'
import { signBatch } from '../services/sign'
import { requestOrigin } from '../http/common'

/**
 * The success answer, described by its schema. Both forms stream as they are signed (the batch
 * writes its JSON in parts), so the contract test checks them, not the compiler.
 */
const SIGNED = new Answer(
  SignAnswer,
  'The URLs, in input order',
  200,
  'One {"key", "url"} object per line.',
)

/** `POST /v1/sign`. */
export function signRoutes({ clock, authenticated }: RouteDeps) {
  return new Hono<AppEnv>().post(
    '/',
    describeRoute(
      DOCS
        ? {
            operationId: 'signUrls',
            summary: 'Presigned URLs for a batch of keys',
            description:
              'Signs every key or none (403 lists each key no grant covers). With `Accept: application/x-ndjson` the URLs stream one JSON object per line.',
            security: SECURITY,
            responses: {
              200: SIGNED.response,
              ...problems(...BAD_BODY, 'forbidden'),
            },
          }
        : {},
    ),
    authenticated,
    // Room for 12 values per entry of the configured batch (items with every override).
    jsonBody((c: Context<AppEnv>) => ({
      bytes: MAX_BODY_BYTES,
      values: Math.max(MAX_SIGN_JSON_VALUES, c.get('config').maxBatch * JSON_VALUES_PER_ITEM),
    })),
    validBody(SignBody),
    async (c) => {
      const config = c.get('config')
      const body = c.req.valid('json')
      // The origin first: a refusal's log line and audit event name it too.
      logFields(c, { origin: body.origin })
      const batch = signBatch(config, c.get('principal'), body, clock(), requestOrigin(c.req.url))
      logFields(c, { action: batch.permit.action, items: batch.size })
      const headers = { 'waybill-expires-at': batch.expiresAt.toISOString() }
      return wantsNdjson(c)
        ? streamed(batch.lines(), 'ndjson', headers)
        : streamed(batch.json(), 'json', headers)
    },
  )
}
