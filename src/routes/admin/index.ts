// /admin/v1: the control plane's admin API, on the admin Worker. API keys, grants, revocations,
// quotas, usage and the audit trail, changed and read at run time in D1. Admin tokens or Access
// admins only (src/auth/admin.ts), never a caller's key. Every write is recorded in the audit
// trail in its own transaction, and sent to the audit sinks after the answer.

import { Hono } from 'hono'
import { createMiddleware } from 'hono/factory'
import type { Clock } from '../../clock'
import { deferOf } from '../../middleware/defer'
import type { AdminAppEnv, AdminRouteDeps } from '../../middleware/types'
import { sendAdminEvents } from '../../services/admin/audit'
import { auditRoutes } from './audit'
import { configRoutes } from './config'
import { explainRoutes } from './explain'
import { grantRoutes } from './grants'
import { keyRoutes } from './keys'
import { quotaRoutes } from './quotas'
import { revocationRoutes } from './revocations'
import { usageRoutes } from './usage'

/**
 * Collects the audit records a request's writes make; once it has answered with success, names
 * what it wrote in its log line and sends the records to the audit sinks.
 */
function auditTrail(clock: Clock) {
  return createMiddleware<AdminAppEnv>(async function auditTrail(c, next) {
    const recorded: AdminAppEnv['Variables']['audited'] = []
    c.set('audited', recorded)
    await next()
    if (recorded.length === 0 || c.res.status >= 400) return
    const log = c.get('log')
    log.event = recorded.map((entry) => entry.action).join(',')
    log.target = recorded.map((entry) => entry.target).join(',')
    sendAdminEvents(c.get('config').audit, recorded, clock(), deferOf(c))
  })
}

/** The admin API, under /admin/v1. */
export function adminRoutes(deps: AdminRouteDeps) {
  return new Hono<AdminAppEnv>()
    .use(auditTrail(deps.clock))
    .route('/keys', keyRoutes(deps))
    .route('/grants', grantRoutes(deps))
    .route('/revocations', revocationRoutes(deps))
    .route('/quotas', quotaRoutes(deps))
    .route('/usage', usageRoutes(deps))
    .route('/audit', auditRoutes(deps))
    .route('/explain', explainRoutes(deps))
    .route('/', configRoutes(deps))
}
