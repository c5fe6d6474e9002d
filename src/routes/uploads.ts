// POST /v1/uploads and the multipart follow-ups: browser uploads straight to the bucket.

import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { json } from '../http/answer'
import { jsonBody } from '../http/body'
import { jsonContent, problems, SECURITY } from '../http/openapi'
import { logFields } from '../http/request-log'
import type { AppEnv, RouteDeps } from '../http/types'
import { validBody } from '../http/validate'
import {
  AbortBody,
  CompleteAnswer,
  CompleteBody,
  PartsAnswer,
  PartsBody,
  UploadAnswer,
  UploadBody,
} from '../schemas/uploads'
import { abortUpload, completeUpload, issueUpload, moreParts } from '../services/uploads'

const NO_STORE = { 'cache-control': 'no-store' }
const BAD_BODY = ['invalid_request', 'payload_too_large', 'unsupported_media_type'] as const

export function uploadRoutes({ clock, authenticated }: RouteDeps) {
  return new Hono<AppEnv>()
    .post(
      '/',
      describeRoute({
        operationId: 'createUpload',
        summary: 'Permission to upload one object straight to the bucket',
        description:
          "Needs a `write` grant covering the key that admits the content type and size; each of the grant's limits is signed into what comes back.",
        security: SECURITY,
        responses: {
          200: jsonContent(UploadAnswer, 'A PUT URL, a POST policy, or a multipart upload'),
          ...problems(...BAD_BODY, 'forbidden', 'upstream_error'),
        },
      }),
      authenticated,
      jsonBody(),
      validBody(UploadBody),
      async (c) => {
        const request = c.req.valid('json')
        logFields(c, { origin: request.origin, action: 'write', mode: request.mode, items: 1 })
        const answer = await issueUpload(c.get('config'), c.get('principal'), request, clock())
        return json(c, answer, NO_STORE)
      },
    )
    .post(
      '/multipart/parts',
      describeRoute({
        operationId: 'signUploadParts',
        summary: 'More part URLs for a multipart upload',
        security: SECURITY,
        responses: {
          200: jsonContent(PartsAnswer, 'The part URLs, each pinning its part’s size'),
          ...problems(...BAD_BODY, 'forbidden'),
        },
      }),
      authenticated,
      jsonBody(),
      validBody(PartsBody),
      async (c) => {
        const request = c.req.valid('json')
        logFields(c, { origin: request.origin, action: 'write', items: request.partNumbers.length })
        return json(
          c,
          await moreParts(c.get('config'), c.get('principal'), request, clock()),
          NO_STORE,
        )
      },
    )
    .post(
      '/multipart/complete',
      describeRoute({
        operationId: 'completeUpload',
        summary: 'Complete a multipart upload, once its parts are checked',
        description:
          'Lists the parts the store holds first: each must be there with that ETag and its pinned size, and together they must make the declared size.',
        security: SECURITY,
        responses: {
          200: jsonContent(CompleteAnswer, 'The object'),
          ...problems(...BAD_BODY, 'forbidden', 'not_found', 'upstream_error'),
        },
      }),
      authenticated,
      jsonBody(),
      validBody(CompleteBody),
      async (c) => {
        const request = c.req.valid('json')
        logFields(c, { origin: request.origin, action: 'write', items: request.parts.length })
        return json(c, await completeUpload(c.get('config'), c.get('principal'), request), NO_STORE)
      },
    )
    .post(
      '/multipart/abort',
      describeRoute({
        operationId: 'abortUpload',
        summary: 'Abort a multipart upload and drop its parts',
        security: SECURITY,
        responses: {
          204: { description: 'Aborted' },
          ...problems(...BAD_BODY, 'forbidden', 'not_found', 'upstream_error'),
        },
      }),
      authenticated,
      jsonBody(),
      validBody(AbortBody),
      async (c) => {
        const request = c.req.valid('json')
        logFields(c, { origin: request.origin, action: 'write', items: 1 })
        await abortUpload(c.get('config'), c.get('principal'), request)
        return c.body(null, 204, NO_STORE)
      },
    )
}
