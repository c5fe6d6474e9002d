import { Hono, servingApp, type AppRouter } from './http/hono'
import { authenticate } from './middleware/authenticate'
import { RemoteJwksCache, type Fetch } from './auth/jwks'
import { audit } from './middleware/audit'
import { ControlPlane } from './control/plane'
import { countersCheck, schemaCheck, type Check } from './control/readiness'
import { systemClock, type Clock } from './clock'
import { requireConfig } from './middleware/require-config'
import { noStore } from './middleware/no-store'
import { finish, methodNotAllowed } from './http/common'
import { cors } from './middleware/cors'
import { requestLog } from './middleware/request-log'
import type { AppEnv, RouteDeps } from './middleware/types'
import { cookieRoutes } from './routes/cookies'
import { followRoutes, linkRoutes } from './routes/links'
import { listRoutes } from './routes/list'
import { redirectRoutes } from './routes/redirect'
import { probeRoutes } from './routes/probes'
import { servedDownloads, servedRoutes } from './routes/served'
import { signRoutes } from './routes/sign'
import { uploadRoutes } from './routes/uploads'

export interface AppOptions {
  /** Signing and token-checking time source; the request time unless a test fixes it. */
  clock?: Clock
  /** How JWKS are fetched; the global fetch unless a test serves its own. */
  fetch?: Fetch
  /**
   * What matches the routes: the build's prepared routes (src/http/hono.ts) unless given, as the
   * generator of those routes gives hono's RegExpRouter (src/openapi.ts).
   */
  router?: AppRouter
  /**
   * Route downloads through own URLs (`GET /o/…`) like every other request, through the router and
   * the middleware chain, instead of answering them directly: for the test that holds the two
   * answers equal (test/origins/r2/downloads.test.ts).
   */
  routeDownloads?: boolean
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
  const app = servingApp<AppEnv>(options.router)

  app.use(requestLog())
  app.use(audit({ control, clock }))
  app.use(cors())
  // The response policy (src/http/answer.ts): no-store unless a route earns a cache rule.
  app.use(noStore())
  // Any other method on a route's path: 405 with a truthful `Allow`, from the routes themselves.
  app.use(methodNotAllowed(app))

  probeRoutes(app, {
    plane: '',
    config: requireConfig(),
    ready: {
      summary: DOCS ? 'Readiness: the control plane answers, migrated' : '',
      description: DOCS
        ? 'No authentication. The D1 database at the latest migration, the quota counters answering; 503 names each that fails.'
        : '',
      async checks(c) {
        const control = c.get('config').control
        const checks: Check[] = []
        if (control !== undefined) {
          checks.push(await schemaCheck(control.db))
          if (control.quotaCounters !== undefined) {
            checks.push(await countersCheck(control.quotaCounters, clock().getTime()))
          }
        }
        return checks
      },
    },
    document: 'The OpenAPI 3.1 document',
  })

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
  // Downloads of the objects an origin serves itself skip the router and the middleware chain
  // (src/routes/served.ts): the same answers, without the steps that do nothing for them.
  if (options.routeDownloads !== true) {
    const routed = app.fetch
    const downloads = servedDownloads(deps)
    app.fetch = (request, env, context) =>
      downloads(request, env, context) ?? routed(request, env, context)
  }
  return app
}
