// /admin/v1/audit: the audit trail, newest first.

import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import { Answer } from '../../http/answer'
import { publicProblems } from '../../http/openapi'
import type { AdminAppEnv, AdminRouteDeps } from '../../middleware/types'
import { validQuery } from '../../middleware/validate'
import { AUDIT_RETENTION_DAYS } from '../../limits'
import { AuditAnswer, AuditQuery } from '../../control/admin-schemas'
import { listAudit } from '../../services/admin/audit'
import { ADMIN_PROBLEMS, ADMIN_SECURITY, contextOf } from './shared'

const AUDIT = new Answer(AuditAnswer, 'One page of events, newest first')

export function auditRoutes({ clock, adminAuthenticated }: AdminRouteDeps) {
  const ctx = (c: Context<AdminAppEnv>) => contextOf(c, clock)
  return new Hono<AdminAppEnv>().get(
    '/',
    describeRoute(
      DOCS
        ? {
            operationId: 'adminListAudit',
            summary: 'The audit trail: every admin write, and refusals of revoked or expired keys',
            description: `Each admin write, recorded in the same transaction as the write: who (the admin), what (the action), which record, the API key and caller it concerns, and the record before and after it, as this API shows it (never a secret). And the data plane's refusals of revoked or expired keys, with the key: one event per key, reason and hour, with their count (the 401 itself never names the key). Kept ${AUDIT_RETENTION_DAYS} days. Filtered by principal (who acted, or whom it concerns), key, action, outcome and time; newest first, a page at a time.`,
            security: ADMIN_SECURITY,
            responses: {
              200: AUDIT.response,
              ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
            },
          }
        : {},
    ),
    adminAuthenticated,
    validQuery(AuditQuery),
    async (c) => AUDIT.json(c, await listAudit(ctx(c), c.req.valid('query'))),
  )
}
