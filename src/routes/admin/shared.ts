// What every admin route shares: who may call, the problems any of them may answer, the links a
// created record leads by, and the services' context for a request.

import type { Context } from 'hono'
import type { Clock } from '../../clock'
import type { AdminAppEnv } from '../../middleware/types'
import { auditor, deploymentOnce, type AdminContext } from '../../services/admin/shared'

/** Who may call: an admin token, or a Cloudflare Access identity with the admin role. */
export const ADMIN_SECURITY: Record<string, string[]>[] = [
  { adminToken: [] },
  { access: [] },
  { accessCookie: [] },
]

/** The problems every admin route may answer besides its own (Access's keys may be down). */
export const ADMIN_PROBLEMS = [
  'unauthorized',
  'forbidden',
  'config_invalid',
  'auth_unavailable',
  'control_unavailable',
] as const
export const BAD_BODY = ['invalid_request', 'payload_too_large', 'unsupported_media_type'] as const

/**
 * Where a created record leads (OpenAPI links): to the operations on it by its id. For readers,
 * and for tools that walk the API (Schemathesis).
 */
export function byId(operationId: string, description: string) {
  return { operationId, description, parameters: { id: '$response.body#/id' } }
}

/** What the services work with, for this request: the control plane, the deployment, who, when. */
export function contextOf(c: Context<AdminAppEnv>, clock: Clock): AdminContext {
  const config = c.get('config')
  const now = clock()
  return {
    db: config.control.db,
    quotaCounters: config.control.quotaCounters,
    deployment: deploymentOnce(config.dataPlane),
    bridge: config.dataPlane,
    now,
    actor: c.get('admin'),
    requestId: c.get('requestId'),
    audit: auditor(c.get('admin'), c.get('requestId'), now, c.get('audited')),
  }
}
