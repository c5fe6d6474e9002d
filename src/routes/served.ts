// /o/{origin}/{key}: the objects of origins the Worker serves itself (R2 through its binding),
// through the URLs waybill signed for them; POST /o/{origin}: a browser form's upload. No
// credentials: the URL (or the form's policy) is the authority, answering to its issuer.

import type { Context } from 'hono'
import { getPath } from 'hono/utils/url'
import { Hono } from '../http/hono'
import { describeRoute } from 'hono-openapi'
import type { Config } from '../config'
import type { Env } from '../env'
import { errorResponse } from '../http/common'
import { deferOf, deferTo } from '../middleware/defer'
import { noStoreUnlessSet } from '../middleware/no-store'
import { readyConfig, requireConfig } from '../middleware/require-config'
import { publicProblems } from '../http/openapi'
import { logAnswer, logFields, requestIdOf } from '../middleware/request-log'
import type { AppEnv, RouteDeps } from '../middleware/types'
import type { Defer } from '../control/plane'
import { serveObject } from '../services/served'

const WHAT = {
  GET: 'read',
  HEAD: 'read',
  PUT: 'write',
  POST: 'write',
  DELETE: 'delete',
} as const

// The document's words for each method: the Workers keep none of them (src/docs.d.ts).
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

// An object's path under /o (the route's), and the whole path as the app names it in its log.
const OBJECT_PATH = '/:origin/:key{[\\s\\S]+}'
const OBJECT_ROUTE = `/o${OBJECT_PATH}`
// What the router would match as that route: /o/, an origin's name, a key of one character or more.
const DOWNLOAD = /^\/o\/[^/]+\/[\s\S]/

/** The origin's name in a path under /o: `/o/<origin>` or `/o/<origin>/…`. */
function originOf(path: string): string {
  const end = path.indexOf('/', 3)
  return path.slice(3, end < 0 ? undefined : end)
}

/** What a request's ExecutionContext gives a download: work to finish after the answer. */
type Deferring = Parameters<typeof deferTo>[0]

/**
 * Downloads (`GET /o/{origin}/{key}`) answered without the router: the most frequent request of
 * an origin the Worker serves, and one none of the app's middleware but the log, the
 * configuration and the response policy has anything to do with (no caller, no CORS of the API's,
 * no audit event). The same answer as the route's, by the same steps (`requestLog`,
 * `requireConfig`, `noStore`, the error pipeline), without the router's matching and the
 * middleware chain: undefined for any other request, which the app routes.
 */
export function servedDownloads(deps: RouteDeps) {
  const serve = serving(deps)
  return (
    request: Request,
    env: Partial<Env> | undefined,
    context: Deferring | undefined,
  ): Promise<Response> | undefined => {
    if (request.method !== 'GET') return undefined
    // The path as the router reads it (hono's own reading: decoded as it decodes).
    const path = getPath(request)
    return DOWNLOAD.test(path) ? download(request, path, env ?? {}, context) : undefined
  }

  async function download(
    request: Request,
    path: string,
    env: Partial<Env>,
    context: Deferring | undefined,
  ): Promise<Response> {
    const started = performance.now()
    const id = requestIdOf(request)
    const origin = originOf(path)
    let config: Config | undefined
    let response: Response
    try {
      config = await readyConfig(env)
      response = await serve(config, origin, request, deferTo(context))
    } catch (error) {
      response = errorResponse(error)
    }
    noStoreUnlessSet(response.headers)
    logAnswer(
      config,
      'GET',
      OBJECT_ROUTE,
      id,
      { origin, action: 'read', items: 1 },
      response,
      started,
    )
    return response
  }
}

/** The answer to `request` for `origin`, its URLs' issuers judged through the control plane. */
function serving({ clock, control }: RouteDeps) {
  return (config: Config, origin: string, request: Request, defer: Defer) => {
    const now = clock()
    return serveObject(config, origin, request, now, {
      waitUntil: defer,
      storedKey:
        config.control === undefined ? undefined : (id) => control.issuer(config, id, now, defer),
    })
  }
}

/** `/o/{origin}/{key}` and `POST /o/{origin}`. */
export function servedRoutes(deps: RouteDeps) {
  const serve = serving(deps)
  const handler = async (c: Context<AppEnv>) => {
    // From the path itself, so the preflight middleware (no route, no params) reads it the same way.
    const origin = originOf(c.req.path)
    const method = c.req.method as keyof typeof WHAT
    logFields(c, { origin, action: WHAT[method] ?? 'read', items: 1 })
    return serve(c.get('config'), origin, c.req.raw, deferOf(c))
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
      OBJECT_PATH,
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
