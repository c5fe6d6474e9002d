import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import * as v from 'valibot'
import { authenticate } from './middleware/authenticate'
import { RemoteJwksCache, type Fetch } from './auth/jwks'
import { audit } from './middleware/audit'
import { ControlPlane } from './control/plane'
import { countersCheck, readiness, READY, schemaCheck, type Check } from './control/readiness'
import { systemClock, type Clock } from './clock'
import { requireConfig } from './middleware/require-config'
import { Answer } from './http/answer'
import { noStore } from './middleware/no-store'
import { asset, finish, methodNotAllowed } from './http/common'
import { cors } from './middleware/cors'
import { publicProblems } from './http/openapi'
import { requestId, requestLog } from './middleware/request-log'
import type { AppEnv, RouteDeps } from './middleware/types'
import { cookieRoutes } from './routes/cookies'
import { followRoutes, linkRoutes } from './routes/links'
import { listRoutes } from './routes/list'
import { redirectRoutes } from './routes/redirect'
import { servedRoutes } from './routes/served'
import { signRoutes } from './routes/sign'
import { uploadRoutes } from './routes/uploads'
import { DOCS } from '#docs'

export interface AppOptions {
  /** Signing and token-checking time source; the request time unless a test fixes it. */
  clock?: Clock
  /** How JWKS are fetched; the global fetch unless a test serves its own. */
  fetch?: Fetch
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
  app.use(methodNotAllowed(app))

  app.get(
    '/healthz',
    describeRoute(
      DOCS
        ? {
            operationId: 'getHealth',
            summary: 'Liveness and configuration check',
            description:
              'No authentication. 503 lists each problem when the configuration is invalid.',
            security: [],
            responses: {
              200: HEALTH.response,
              ...publicProblems('method_not_allowed', 'config_invalid'),
            },
          }
        : {},
    ),
    requireConfig(),
    (c) => HEALTH.json(c, { ok: true }),
  )
  app.get(
    '/readyz',
    describeRoute(
      DOCS
        ? {
            operationId: 'getReadiness',
            summary: 'Readiness: the control plane answers, migrated',
            description:
              'No authentication. The D1 database at the latest migration, the quota counters answering; 503 names each that fails.',
            security: [],
            responses: {
              200: READY.response,
              ...publicProblems('method_not_allowed', 'config_invalid', 'control_unavailable'),
            },
          }
        : {},
    ),
    requireConfig(),
    async (c) => {
      const control = c.get('config').control
      const checks: Check[] = []
      if (control !== undefined) {
        checks.push(await schemaCheck(control.db))
        if (control.quotaCounters !== undefined) {
          checks.push(await countersCheck(control.quotaCounters, clock().getTime()))
        }
      }
      return readiness(c, checks)
    },
  )
  app.get(
    '/openapi.json',
    describeRoute(
      DOCS
        ? {
            operationId: 'getOpenApi',
            summary: 'This document',
            security: [],
            responses: {
              200: { description: 'The OpenAPI 3.1 document' },
              ...publicProblems('not_found', 'method_not_allowed'),
            },
          }
        : {},
    ),
    // Generated from the routes at build time (src/openapi.ts, npm run openapi), not in the Worker.
    asset('/openapi.json'),
  )

  app.get(
    '/docs',
    describeRoute(
      DOCS
        ? {
            operationId: 'getApiReference',
            summary: 'This API, as an interactive reference page',
            security: [],
            responses: {
              200: { description: 'An HTML page (Scalar) reading /openapi.json' },
              ...publicProblems('not_found', 'method_not_allowed'),
            },
          }
        : {},
    ),
    // Rendered at build time with Scalar's browser bundle beside it (scripts/docs-assets.mjs).
    asset('/docs'),
  )

  const deps: RouteDeps = {
    clock,
    control,
    authenticated: authenticate({ jwks, clock, control }),
    authenticatedByCookie: authenticate({ jwks, clock, control, cookie: true }),
  }
  app.use('/v1/*', requireConfig())
  app.route('/v1', api(deps))
  app.route('/l', followRoutes(deps))
  app.route('/o', servedRoutes(deps))

  finish(app)
  return app
}
