// The audit trail's middleware: after each answer on the signing API (/v1/*) and each followed
// link (/l/*), the request's facts go to src/control/audit.ts, which sends its event and counts it.

import { createMiddleware } from 'hono/factory'
import type { Clock } from '../clock'
import type { Config } from '../config'
import { recordAudit } from '../control/audit'
import type { ControlPlane } from '../control/plane'
import { deferOf } from './defer'
import type { AppEnv } from './types'

/**
 * The audit trail's middleware: after each answer on the signing API (/v1/*) and each followed
 * link (/l/*), its event. Needs `requestLog()` before it (the route's log fields say what was
 * done).
 */
export function audit(options: { control: ControlPlane; clock: Clock }) {
  const { control, clock } = options
  return createMiddleware<AppEnv>(async function audit(c, next) {
    await next()
    const path = c.req.path
    if (!path.startsWith('/v1/') && !path.startsWith('/l/')) return
    // Unset when the configuration is invalid: then nothing was signed, and there is no sink.
    const config = c.get('config') as Config | undefined
    if (config === undefined) return
    const { audit: sinks } = config
    if (sinks.dataset === undefined && sinks.queue === undefined && config.control === undefined) {
      return
    }
    // The time authentication read, when it ran: one clock read fewer on every request.
    let now = c.get('authenticatedAt') as Date | undefined
    if (now === undefined) {
      try {
        now = clock()
      } catch {
        // A clock that fails has failed the request already (its 500 is logged): nothing to add.
        return
      }
    }
    const log = c.get('log')
    recordAudit(
      config,
      control,
      {
        now,
        requestId: c.get('requestId'),
        path,
        route: sinks.dataset === undefined && sinks.queue === undefined ? '' : c.req.routePath,
        status: c.res.status,
        // Either may be unset: a refusal before authentication, a request that is not a link.
        principal: c.get('principal'),
        linkIssuer: c.get('linkIssuer'),
        linkUses: c.get('linkUses'),
        origin: log.origin,
        action: log.action,
        items: log.items,
        bytesReserved: log.bytesReserved,
        bytesCompleted: log.bytesCompleted,
        refusedKey: log.keyId,
      },
      deferOf(c),
    )
  })
}
