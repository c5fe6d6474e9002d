// /o/{origin}/{key}: the objects of origins the Worker serves itself (R2 through its binding),
// through the URLs waybill signed for them; POST /o/{origin}: a browser form's upload. No
// credentials: the URL (or the form's policy) is the authority, answering to its issuer.

import type { Context } from 'hono'
import { Hono } from '../http/hono'
import { describeRoute } from 'hono-openapi'
import { deferOf } from '../middleware/defer'
import { requireConfig } from '../middleware/require-config'
import { publicProblems } from '../http/openapi'
import { logFields } from '../middleware/request-log'
import type { AppEnv, RouteDeps } from '../middleware/types'
import { serveObject } from '../services/served'

const WHAT = {
  GET: 'read',
  HEAD: 'read',
  PUT: 'write',
  POST: 'write',
  DELETE: 'delete',
} as const

// The document's words for each method: the Workers keep none of them (#docs).
const ANSWERS = DOCS
  ? ({
      GET: {
        summary: 'Read an object through its signed URL',
        description:
          'Streams the object from the origin’s binding after the URL’s signature, expiry and issuer are checked: `Range` (206, 416), `If-None-Match`/`If-Modified-Since` (304), `If-Match`/`If-Unmodified-Since` (412), and the response overrides the URL signed. Content a browser would run is served as a download unless the URL names its type.',
        success: {
          200: { description: 'The object' },
          206: { description: 'The range asked for' },
          304: { description: 'Not modified' },
        },
        problems: ['forbidden', 'precondition_failed', 'range_not_satisfiable'],
      },
      HEAD: {
        summary: 'An object’s headers, through its signed (GET) URL',
        description: 'As GET, without the body.',
        success: {
          200: { description: 'The object’s headers' },
          304: { description: 'Not modified' },
        },
        problems: ['forbidden', 'precondition_failed'],
      },
      PUT: {
        summary: 'Upload an object, or a part, through its signed URL',
        description:
          'Streams the body into the bucket: its Content-Length must be the signed length (a body of another length stores nothing), its SHA-256 the signed one, its Content-Type the signed type; an upload replaces an object only where its URL says so (412). Answers 200 with the ETag.',
        success: { 200: { description: 'Stored: `ETag` is the object’s or the part’s' } },
        problems: [
          'invalid_request',
          'forbidden',
          'length_required',
          'payload_too_large',
          'precondition_failed',
        ],
      },
      DELETE: {
        summary: 'Delete an object through its signed URL',
        description: 'Answers 204 whether or not the object was there, as S3 does.',
        success: { 204: { description: 'Deleted' } },
        problems: ['forbidden'],
      },
    } as const)
  : undefined

// An origin this Worker does not serve, or an object that is not there: 404 on every route.
const PROBLEMS_EVERYWHERE = [
  'not_found',
  'method_not_allowed',
  'config_invalid',
  'control_unavailable',
  'upstream_error',
] as const

/** `/o/{origin}/{key}` and `POST /o/{origin}`. */
export function servedRoutes({ clock, control }: RouteDeps) {
  const handler = async (c: Context<AppEnv>) => {
    const config = c.get('config')
    // `/o/<origin>/…`: from the path itself, so the preflight middleware (no route, no params)
    // reads it the same way.
    const origin = c.req.path.split('/')[2] ?? ''
    const method = c.req.method as keyof typeof WHAT
    logFields(c, { origin, action: WHAT[method] ?? 'read', items: 1 })
    const now = clock()
    const defer = deferOf(c)
    return serveObject(config, origin, c.req.raw, now, {
      waitUntil: defer,
      storedKey:
        config.control === undefined ? undefined : (id) => control.issuer(config, id, now, defer),
    })
  }
  const app = new Hono<AppEnv>()
  // A browser's preflight: answered from the origin's CORS setting, with no signature to check.
  // Middleware, not an operation: no caller calls it.
  const config = requireConfig()
  app.use('*', async (c: Context<AppEnv>, next) => {
    if (c.req.method !== 'OPTIONS') return next()
    const refused = await config(c as Context<AppEnv, string>, async () => {
      c.res = await handler(c)
    })
    return refused ?? c.res
  })
  for (const method of ['GET', 'HEAD', 'PUT', 'DELETE'] as const) {
    app.on(
      method,
      '/:origin/:key{[\\s\\S]+}',
      describeRoute(
        DOCS
          ? {
              operationId: `${method.toLowerCase()}ServedObject`,
              summary: ANSWERS![method].summary,
              description: ANSWERS![method].description,
              security: [],
              responses: {
                ...ANSWERS![method].success,
                ...publicProblems(...ANSWERS![method].problems, ...PROBLEMS_EVERYWHERE),
              },
            }
          : {},
      ),
      requireConfig(),
      handler,
    )
  }
  app.post(
    '/:origin',
    describeRoute(
      DOCS
        ? {
            operationId: 'postServedForm',
            summary: 'Upload a file with a browser form (POST policy) waybill signed',
            description:
              'The form’s fields as `POST /v1/uploads` gave them, then the file (last, named `file`). Every field is checked against the signed policy and the file’s size against its range before a byte is stored. Answers 204, or the form’s `success_action_status` (201 with S3’s XML).',
            security: [],
            requestBody: {
              required: true,
              content: {
                'multipart/form-data': {
                  schema: {
                    type: 'object',
                    required: ['key', 'policy', 'file'],
                    properties: {
                      key: { type: 'string', description: 'As the form’s fields gave it' },
                      policy: { type: 'string', description: 'The policy waybill signed' },
                      'Content-Type': { type: 'string' },
                      success_action_status: { type: 'string', enum: ['200', '201', '204'] },
                      file: {
                        type: 'string',
                        format: 'binary',
                        description: 'Last, after every field',
                      },
                    },
                  },
                },
              },
            },
            responses: {
              200: { description: 'Stored (`success_action_status` 200)' },
              201: { description: 'Stored: S3’s `PostResponse` XML (`success_action_status` 201)' },
              204: { description: 'Stored: `ETag` and `Location` name the object' },
              ...publicProblems(
                'invalid_request',
                'forbidden',
                'length_required',
                'payload_too_large',
                'unsupported_media_type',
                'precondition_failed',
                ...PROBLEMS_EVERYWHERE,
              ),
            },
          }
        : {},
    ),
    requireConfig(),
    handler,
  )
  return app
}
