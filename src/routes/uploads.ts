// POST /v1/uploads and the multipart follow-ups: browser uploads straight to the bucket; and
// GET /v1/uploads/rules, what may be uploaded, before a file is picked.

import type { Context } from 'hono'
import { Hono } from '../http/hono'
import { describeRoute } from 'hono-openapi'
import { Answer } from '../http/answer'
import { jsonBody } from '../middleware/json-body'
import { BAD_BODY, problems, SECURITY } from '../http/openapi'
import { logFields } from '../middleware/request-log'
import type { AppEnv, RouteDeps } from '../middleware/types'
import { validBody, validQuery } from '../middleware/validate'
import { UploadRulesAnswer, UploadRulesQuery } from '../schemas/upload-rules'
import {
  AbortBody,
  CheckAnswer,
  CheckBody,
  CompleteAnswer,
  CompleteBody,
  ListPartsAnswer,
  ListPartsBody,
  PartsAnswer,
  PartsBody,
  UploadAnswer,
  UploadBody,
} from '../schemas/uploads'
import {
  abortUpload,
  checkUpload,
  completeUpload,
  issueUpload,
  moreParts,
  uploadedParts,
} from '../services/uploads'
import { uploadRulesOf } from '../services/upload-rules'
import {
  notifyUploadCompleted,
  uploadCompletedEvent,
  type CompletedUpload,
} from '../services/notify'
import { requestOrigin } from '../http/common'

/**
 * Tells the configured webhook and queue that an upload was checked complete, after the answer:
 * delivery never holds up or changes the caller's answer (src/services/notify.ts retries, then
 * logs).
 */
function announce(c: Context<AppEnv>, upload: Omit<CompletedUpload, 'principal'>, now: Date) {
  const { notify } = c.get('config')
  if (notify.webhook === undefined && notify.queue === undefined) return
  const delivery = notifyUploadCompleted(
    notify,
    uploadCompletedEvent({ ...upload, principal: c.get('principal') }, now),
  )
  let context: { waitUntil(promise: Promise<unknown>): void } | undefined
  try {
    context = c.executionCtx
  } catch {
    // No ExecutionContext (app.request without one, as tests call it): the delivery runs alone.
  }
  context?.waitUntil(delivery)
}

/** Each operation's success answer: its schema, in the document and in the handler's type. */
const UPLOAD = new Answer(UploadAnswer, 'A PUT URL, a POST policy, or a multipart upload')
const PARTS = new Answer(PartsAnswer, 'The part URLs, each pinning its part’s size')
const COMPLETE = new Answer(CompleteAnswer, 'The object')
const LIST_PARTS = new Answer(ListPartsAnswer, 'The upload’s plan and the parts the store holds')
const CHECK = new Answer(CheckAnswer, 'The stored object')
const RULES = new Answer(UploadRulesAnswer, 'The caller’s upload rules on the origin')

/**
 * Where an upload's answer leads (OpenAPI links): its handle to the multipart follow-ups, its
 * receipt to the completion check. For readers, and for tools that walk the API (Schemathesis).
 */
function followUp(operationId: string, sealed: 'uploadId' | 'receipt', description: string) {
  return {
    operationId,
    description,
    requestBody: {
      origin: '$request.body#/origin',
      key: '$response.body#/key',
      [sealed]: `$response.body#/${sealed}`,
    },
  }
}
const UPLOAD_LINKS = {
  signUploadParts: followUp(
    'signUploadParts',
    'uploadId',
    'More part URLs for a multipart upload.',
  ),
  listUploadParts: followUp('listUploadParts', 'uploadId', 'The parts it holds, to resume.'),
  completeUpload: followUp('completeUpload', 'uploadId', 'Complete it once its parts are sent.'),
  abortUpload: followUp('abortUpload', 'uploadId', 'Abort it.'),
  checkUpload: followUp('checkUpload', 'receipt', 'Check a PUT or POST upload once it is sent.'),
}

export function uploadRoutes({ clock, authenticated }: RouteDeps) {
  return new Hono<AppEnv>()
    .post(
      '/',
      describeRoute(
        DOCS
          ? {
              operationId: 'createUpload',
              summary: 'Permission to upload objects straight to the bucket',
              description:
                "Needs a `write` grant covering each key that admits the content type and size; each of the grant's limits is signed into what comes back. One upload, or many PUT or POST uploads with `items` (all or nothing). With `filename` instead of `key`, the grant's `uploadKey` chooses the key.",
              security: SECURITY,
              responses: {
                200: {
                  ...UPLOAD.response,
                  links: UPLOAD_LINKS,
                },
                ...problems(
                  ...BAD_BODY,
                  'forbidden',
                  'conflict',
                  'upstream_error',
                  'quota_exceeded',
                ),
              },
            }
          : {},
      ),
      authenticated,
      jsonBody(),
      validBody(UploadBody),
      async (c) => {
        const request = c.req.valid('json')
        logFields(c, {
          origin: request.origin,
          action: 'write',
          mode: request.mode,
          items: request.items.length,
          bytesReserved: request.items.reduce((sum, item) => sum + (item.contentLength ?? 0), 0),
        })
        const answer = await issueUpload(
          c.get('config'),
          c.get('principal'),
          request,
          clock(),
          requestOrigin(c.req.url),
        )
        // A multipart upload's answer carries its first part URLs, each counted as signed.
        if ('parts' in answer) logFields(c, { items: answer.parts.length })
        return UPLOAD.json(c, answer)
      },
    )
    .get(
      '/rules',
      describeRoute(
        DOCS
          ? {
              operationId: 'getUploadRules',
              summary: 'What the caller may upload on an origin, before a file is picked',
              description:
                "The caller's effective upload rules: one per `write` grant on the origin, as `POST /v1/uploads` judges uploads (the key prefix and `uploadKey` filled for the caller, the types, the most bytes, the modes, overwrite, the longest lifetime). A page can build a file input's `accept` from them, and refuse a file before any request. Signs nothing.",
              security: SECURITY,
              responses: {
                200: RULES.response,
                ...problems('invalid_request', 'forbidden'),
              },
            }
          : {},
      ),
      authenticated,
      validQuery(UploadRulesQuery),
      (c) => {
        const query = c.req.valid('query')
        // Signs nothing: no URL to count.
        logFields(c, { origin: query.origin, items: 0 })
        return RULES.json(c, uploadRulesOf(c.get('config'), c.get('principal'), query))
      },
    )
    .post(
      '/multipart/parts',
      describeRoute(
        DOCS
          ? {
              operationId: 'signUploadParts',
              summary: 'More part URLs for a multipart upload',
              security: SECURITY,
              responses: {
                200: PARTS.response,
                ...problems(...BAD_BODY, 'forbidden', 'conflict'),
              },
            }
          : {},
      ),
      authenticated,
      jsonBody(),
      validBody(PartsBody),
      async (c) => {
        const request = c.req.valid('json')
        logFields(c, { origin: request.origin, action: 'write', items: request.partNumbers.length })
        const base = requestOrigin(c.req.url)
        const principal = c.get('principal')
        return PARTS.json(c, await moreParts(c.get('config'), principal, request, clock(), base))
      },
    )
    .post(
      '/multipart/complete',
      describeRoute(
        DOCS
          ? {
              operationId: 'completeUpload',
              summary: 'Complete a multipart upload, once its parts are checked',
              description:
                'Lists the parts the store holds first: each must be there with that ETag (and its SHA-256, for an upload created with partChecksums) and its pinned size, and together they must make the declared size (409 otherwise). Unless the upload may overwrite, an object already at the key is not replaced (412). Repeating a complete that succeeded (its answer lost) answers the object again when `parts` names the parts it was completed with and the object at the key is exactly what they make.',
              security: SECURITY,
              responses: {
                200: COMPLETE.response,
                ...problems(
                  ...BAD_BODY,
                  'forbidden',
                  'not_found',
                  'conflict',
                  'precondition_failed',
                  'upstream_error',
                ),
              },
            }
          : {},
      ),
      authenticated,
      jsonBody(),
      validBody(CompleteBody),
      async (c) => {
        const request = c.req.valid('json')
        logFields(c, { origin: request.origin, action: 'write', items: request.parts?.length ?? 0 })
        const { object, storeUploadId } = await completeUpload(
          c.get('config'),
          c.get('principal'),
          request,
          clock(),
        )
        logFields(c, { bytesCompleted: object.size })
        announce(c, { ...object, mode: 'multipart', occurrence: storeUploadId }, clock())
        return COMPLETE.json(c, object)
      },
    )
    .post(
      '/multipart/list',
      describeRoute(
        DOCS
          ? {
              operationId: 'listUploadParts',
              summary: 'The parts a multipart upload already holds, to resume it',
              description:
                "The caller's own upload only: the uploadId is bound to the caller and key that started it, and a write grant must still cover the key.",
              security: SECURITY,
              responses: {
                200: LIST_PARTS.response,
                ...problems(...BAD_BODY, 'forbidden', 'not_found', 'upstream_error'),
              },
            }
          : {},
      ),
      authenticated,
      jsonBody(),
      validBody(ListPartsBody),
      async (c) => {
        const request = c.req.valid('json')
        logFields(c, { origin: request.origin, action: 'write', items: 1 })
        return LIST_PARTS.json(c, await uploadedParts(c.get('config'), c.get('principal'), request))
      },
    )
    .post(
      '/complete',
      describeRoute(
        DOCS
          ? {
              operationId: 'checkUpload',
              summary: 'Check that a PUT or POST upload finished and is what was signed',
              description:
                "Reads the object back (HeadObject) and passes it only when this upload stored it (it carries the upload's tag, the `x-amz-meta-waybill-upload` value its URL or policy signed; and, when `etag` is given, it is still those bytes) and it is what was signed (size, content type, checksum). 422 otherwise: an object that is not this upload's is never passed nor deleted, whenever it was stored; this upload's bytes that are not what was signed are deleted (only while unchanged) where a grant says `deleteMismatched`. 410 once the receipt has expired.",
              security: SECURITY,
              responses: {
                200: CHECK.response,
                ...problems(
                  ...BAD_BODY,
                  'forbidden',
                  'not_found',
                  'gone',
                  'upload_mismatch',
                  'upstream_error',
                ),
              },
            }
          : {},
      ),
      authenticated,
      jsonBody(),
      validBody(CheckBody),
      async (c) => {
        const request = c.req.valid('json')
        logFields(c, { origin: request.origin, action: 'write', items: 1 })
        const done = await checkUpload(c.get('config'), c.get('principal'), request, clock())
        logFields(c, { bytesCompleted: done.size })
        announce(c, { ...done, occurrence: done.lastModified }, clock())
        return CHECK.json(c, done)
      },
    )
    .post(
      '/multipart/abort',
      describeRoute(
        DOCS
          ? {
              operationId: 'abortUpload',
              summary: 'Abort a multipart upload and drop its parts',
              security: SECURITY,
              responses: {
                204: { description: 'Aborted' },
                ...problems(...BAD_BODY, 'forbidden', 'not_found', 'upstream_error'),
              },
            }
          : {},
      ),
      authenticated,
      jsonBody(),
      validBody(AbortBody),
      async (c) => {
        const request = c.req.valid('json')
        logFields(c, { origin: request.origin, action: 'write', items: 1 })
        await abortUpload(c.get('config'), c.get('principal'), request, clock())
        return c.body(null, 204)
      },
    )
}
