// The admin plane: a Worker of its own (wrangler.admin.jsonc), on its own hostname, behind
// Cloudflare Access or admin tokens. It serves the admin API (/admin/v1), its document and
// reference page, and the admin UI; it shares the control plane's D1 database and quota counters
// with the data plane (src/app.ts), and asks the data plane, over a service binding, what it must
// know of the deployment (src/bridge/). No caller's request ever reaches it, and it shares
// neither the callers' hostname, nor their CORS, nor their bundle.

import { Hono } from 'hono'
import { adminAuthenticated } from '../middleware/admin-authenticated'
import type { DataPlaneBridge } from '../schemas/bridge'
import { countersCheck, errorName, schemaCheck, type Check } from '../control/readiness'
import { RemoteJwksCache, type Fetch } from '../auth/jwks'
import { noStore } from '../middleware/no-store'
import { systemClock, type Clock } from '../clock'
import { finish, methodNotAllowed } from '../http/common'
import { requireAdminConfig } from '../middleware/require-admin-config'
import { requestLog } from '../middleware/request-log'
import type { AdminAppEnv } from '../middleware/types'
import { adminRoutes } from '../routes/admin'
import { idempotency } from '../routes/admin/idempotency'
import { probeRoutes } from '../routes/probes'

export interface AdminAppOptions {
  /** The time of admin writes and Access token checks; the request time unless a test fixes it. */
  clock?: Clock
  /** How Access's keys are fetched; the global fetch unless a test serves its own. */
  fetch?: Fetch
}

/** The data plane answers its bridge, with a valid configuration. */
async function dataPlaneCheck(bridge: DataPlaneBridge | undefined): Promise<Check> {
  if (bridge === undefined) {
    return {
      name: 'dataPlane',
      ok: false,
      detail: 'is not bound (WAYBILL_DATA_PLANE, a service binding to its DataPlane entrypoint)',
    }
  }
  try {
    const deployment = await bridge.deployment()
    return deployment.ok
      ? { name: 'dataPlane', ok: true, detail: `answers (${deployment.origins.length} origins)` }
      : {
          name: 'dataPlane',
          ok: false,
          detail: `has an invalid configuration (${deployment.errors.map((error) => error.path).join(', ')})`,
        }
  } catch (error) {
    return { name: 'dataPlane', ok: false, detail: `cannot be reached (${errorName(error)})` }
  }
}

/**
 * Builds the admin plane's Hono app.
 *
 * @example
 * export default createAdminApp() // the admin Worker
 */
export function createAdminApp(options: AdminAppOptions = {}) {
  const clock = options.clock ?? systemClock
  const jwks = new RemoteJwksCache(options.fetch ?? ((input, init) => fetch(input, init)), () =>
    clock().getTime(),
  )
  const app = new Hono<AdminAppEnv>()

  app.use(requestLog())
  // Admin answers are never kept by any cache: keys shown once, usage, the audit trail.
  app.use(noStore())
  app.use(methodNotAllowed(app))

  probeRoutes(app, {
    plane: 'Admin',
    config: requireAdminConfig(),
    ready: {
      summary: 'Readiness: the control plane and the data plane answer',
      description:
        'No authentication. The D1 database at the latest migration (`d1`), the quota counters answering (`durableObjects`, when bound), and the data plane answering over its service binding with a valid configuration (`dataPlane`). 503 `control_unavailable` names each check that fails.',
      async checks(c) {
        const { control, dataPlane } = c.get('config')
        const checks = [await schemaCheck(control.db)]
        if (control.quotaCounters !== undefined) {
          checks.push(await countersCheck(control.quotaCounters, clock().getTime()))
        }
        checks.push(await dataPlaneCheck(dataPlane))
        return checks
      },
    },
    document: 'The OpenAPI 3.1 document of the admin API',
  })

  app.use('/admin/v1/*', requireAdminConfig())
  app.route(
    '/admin/v1',
    adminRoutes({
      clock,
      adminAuthenticated: adminAuthenticated({ jwks, clock }),
      idempotent: idempotency(clock),
    }),
  )
  finish(app)
  return app
}
