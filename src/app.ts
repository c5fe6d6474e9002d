import { Hono, type Handler } from 'hono'
import { describeRoute } from 'hono-openapi'
import { methodNotAllowed } from 'hono/method-not-allowed'
import * as v from 'valibot'
import { adminAuthenticated } from './middleware/admin-authenticated'
import { authenticate } from './middleware/authenticate'
import { RemoteJwksCache, type Fetch } from './auth/jwks'
import { audit } from './middleware/audit'
import { ControlPlane } from './control/plane'
import { CoreError } from './core/errors'
import { fromCoreError, WaybillError } from './errors'
import { systemClock, type Clock } from './clock'
import { requireConfig } from './middleware/require-config'
import { Answer } from './http/answer'
import { noStore } from './middleware/no-store'
import { cors } from './middleware/cors'
import { publicProblems } from './http/openapi'
import { internalErrorResponse, problemResponse } from './http/problem'
import { requestId, requestLog } from './middleware/request-log'
import type { AppEnv, RouteDeps } from './middleware/types'
import { adminRoutes } from './routes/admin'
import { cookieRoutes } from './routes/cookies'
import { followRoutes, linkRoutes } from './routes/links'
import { listRoutes } from './routes/list'
import { redirectRoutes } from './routes/redirect'
import { servedRoutes } from './routes/served'
import { signRoutes } from './routes/sign'
import { uploadRoutes } from './routes/uploads'

export interface AppOptions {
  /** Signing and token-checking time source; the request time unless a test fixes it. */
  clock?: Clock
  /** How JWKS are fetched; the global fetch unless a test serves its own. */
  fetch?: Fetch
}

/**
 * A file of the Worker's static assets (public/, made by scripts/docs-assets.mjs). The runtime
 * serves them before the Worker runs; the route answers GET when it is reached anyway (a
 * deployment without the assets, or a test), and gives the path its 405s and its document entry.
 */
function asset(path: string): Handler<AppEnv> {
  return (c) => {
    // No env at all: app.request without one, as a test may call it.
    const assets = (c.env as Partial<AppEnv['Bindings']> | undefined)?.ASSETS
    if (assets === undefined) {
      throw new WaybillError('not_found', `This deployment serves no ${path} (no static assets).`)
    }
    // Its own Response, so that middleware may still set headers (a fetched one's are immutable).
    return assets
      .fetch(new URL(path, c.req.url))
      .then((answer) => new Response(answer.body, answer))
  }
}

/** The versioned API, chained so that its type describes every route (see `WaybillApi`). */
function api(deps: RouteDeps) {
  return new Hono<AppEnv>()
    .route('/sign', signRoutes(deps))
    .route('/cookies', cookieRoutes(deps))
    .route('/redirect', redirectRoutes(deps))
    .route('/list', listRoutes(deps))
    .route('/uploads', uploadRoutes(deps))
    .route('/links', linkRoutes(deps))
}

/** The API's type, for Hono's typed client: `hc<WaybillApi>('https://waybill.example/v1')`. */
export type WaybillApi = ReturnType<typeof api>

/** `GET /healthz`'s answer: its schema, in the document and the handler's type. */
const HEALTH = new Answer(v.object({ ok: v.literal(true) }), 'Ready')

/**
 * Builds the waybill Hono app.
 *
 * @example
 * export default createApp() // the Worker
 * const res = await createApp({ clock: () => new Date('2026-01-01T00:00:00Z') }).request('/healthz')
 */
export function createApp(options: AppOptions = {}) {
  const clock = options.clock ?? systemClock
  // Per app, so per isolate for the Worker: key sets fetched once serve every later request.
  const jwks = new RemoteJwksCache(options.fetch ?? ((input, init) => fetch(input, init)), () =>
    clock().getTime(),
  )
  // Per app too: the control plane's caches (D1 keys, grants, quotas, link revocations).
  const control = new ControlPlane()
  const app = new Hono<AppEnv>()

  app.use(requestId())
  app.use(requestLog())
  app.use(audit({ control, clock }))
  app.use(cors())
  // The response policy (src/http/answer.ts): no-store unless a route earns a cache rule.
  app.use(noStore())
  // Any other method on a route's path: 405 with a truthful `Allow`, from the routes themselves.
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (_, methods) => {
        const allow = methods.join(', ')
        return problemResponse(
          new WaybillError('method_not_allowed', `This path answers ${allow} only.`, {
            headers: { allow },
          }),
        )
      },
    }),
  )

  app.get(
    '/healthz',
    describeRoute({
      operationId: 'getHealth',
      summary: 'Liveness and configuration check',
      description: 'No authentication. 503 lists each problem when the configuration is invalid.',
      security: [],
      responses: {
        200: HEALTH.response,
        ...publicProblems('method_not_allowed', 'config_invalid'),
      },
    }),
    requireConfig(),
    (c) => HEALTH.json(c, { ok: true }),
  )
  app.get(
    '/openapi.json',
    describeRoute({
      operationId: 'getOpenApi',
      summary: 'This document',
      security: [],
      responses: {
        200: { description: 'The OpenAPI 3.1 document' },
        ...publicProblems('not_found', 'method_not_allowed'),
      },
    }),
    // Generated from the routes at build time (src/openapi.ts, npm run openapi), not in the Worker.
    asset('/openapi.json'),
  )

  app.get(
    '/docs',
    describeRoute({
      operationId: 'getApiReference',
      summary: 'This API, as an interactive reference page',
      security: [],
      responses: {
        200: { description: 'An HTML page (Scalar) reading /openapi.json' },
        ...publicProblems('not_found', 'method_not_allowed'),
      },
    }),
    // Rendered at build time with Scalar's browser bundle beside it (scripts/docs-assets.mjs).
    asset('/docs'),
  )

  const deps: RouteDeps = {
    clock,
    control,
    authenticated: authenticate({ jwks, clock, control }),
    authenticatedByCookie: authenticate({ jwks, clock, control, cookie: true }),
    adminAuthenticated: adminAuthenticated({ jwks, clock }),
  }
  app.use('/v1/*', requireConfig())
  app.route('/v1', api(deps))
  app.route('/l', followRoutes(deps))
  app.route('/o', servedRoutes(deps))
  app.use('/admin/v1/*', requireConfig())
  app.route('/admin/v1', adminRoutes(deps))

  app.notFound(() =>
    problemResponse(new WaybillError('not_found', 'No such route; see GET /openapi.json.')),
  )
  app.onError((error) => {
    if (error instanceof WaybillError) return problemResponse(error)
    if (error instanceof CoreError) return problemResponse(fromCoreError(error))
    // Unexpected: log where it happened, answer a plain 500. Not the message: a library's
    // message may quote what it was given (a secret, a token), and the stack's first line is it.
    console.error(
      JSON.stringify({
        level: 'error',
        message: 'unhandled error',
        error: error.name,
        stack: (error.stack ?? '')
          .split('\n')
          .filter((line) => /^\s+at /.test(line))
          .join('\n'),
      }),
    )
    return internalErrorResponse()
  })
  // Hono builds its route matcher on the first request it routes. Build it now, while the Worker
  // loads (which Cloudflare overlaps with the TLS handshake), not in a caller's first request.
  app.router.match('GET', '/')
  return app
}
