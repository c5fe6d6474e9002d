// The audit trail through the admin API: every admin write (who, what, which record, and the record
// before and after it, never a secret), and the data plane's refusals of revoked or expired keys
// (one entry per key, reason and hour, with their count), newest first, from the control plane's
// D1 table (kept AUDIT_RETENTION_DAYS). The same admin events go to the audit sinks (an Analytics
// Engine dataset, a Queue) when the admin Worker has them bound.

import { selectAudit, type AuditEntry, type AuditRow } from '../../control/admin-store'
import { deliverAudit, INDEX_CHARS } from '../../control/audit'
import type { AuditConfig } from '../../config'
import { invalid } from '../../errors'
import { DEFAULT_ADMIN_PAGE } from '../../limits'
import type { AuditQuery } from '../../control/admin-schemas'
import { iso, stored, type AdminContext } from './shared'

const parsed = (text: string | null): unknown => (text === null ? null : JSON.parse(text))

function view(row: AuditRow) {
  return {
    id: row.id,
    at: iso(row.at),
    actor: row.actor,
    action: row.action,
    outcome: row.outcome,
    target: row.target,
    key: row.key_id,
    principal: row.principal,
    count: row.count,
    requestId: row.request_id,
    before: parsed(row.before),
    after: parsed(row.after),
    detail: row.detail,
  }
}

/** A page's cursor: the last event's time (base 36) and id. */
const cursorOf = (row: AuditRow) => `${row.at.toString(36)}.${row.id}`

function afterCursor(cursor: string | undefined) {
  if (cursor === undefined) return null
  const dot = cursor.indexOf('.')
  return { at: parseInt(cursor.slice(0, dot), 36), id: cursor.slice(dot + 1) }
}

/** One page of the audit trail, newest first, as `query` filters it. */
export async function listAudit(ctx: AdminContext, query: AuditQuery) {
  const from = query.from ?? 0
  const to = query.to ?? ctx.now.getTime()
  if (from > to) throw invalid([{ path: 'from', message: 'must not be after "to"' }])
  const limit = query.limit ?? DEFAULT_ADMIN_PAGE
  const rows = await stored(() =>
    selectAudit(
      ctx.db,
      {
        principal: query.principal ?? null,
        keyId: query.key ?? null,
        action: query.action ?? null,
        outcome: query.outcome ?? null,
        from,
        to,
      },
      afterCursor(query.cursor),
      limit + 1,
    ),
  )
  const more = rows.length > limit
  const kept = more ? rows.slice(0, limit) : rows
  return { events: kept.map(view), cursor: more ? cursorOf(kept.at(-1)!) : null }
}

/**
 * The admin events a request recorded, to the sinks the admin Worker has: an Analytics Engine
 * data point each (index: the actor; blobs: outcome, action, target, key, principal, request id)
 * and a Queue message each (the event as JSON). A sink's failure is logged, never the request's.
 */
export function sendAdminEvents(
  sinks: AuditConfig,
  entries: readonly AuditEntry[],
  now: Date,
  defer: (work: Promise<unknown>) => void,
): void {
  for (const entry of entries) {
    const event = {
      type: 'waybill.admin',
      time: now.toISOString(),
      requestId: entry.requestId,
      actor: entry.actor,
      action: entry.action,
      outcome: 'ok',
      target: entry.target,
      keyId: entry.keyId,
      principal: entry.principal,
    }
    deliverAudit(
      sinks,
      {
        indexes: [entry.actor.slice(0, INDEX_CHARS)],
        blobs: [
          'ok',
          entry.action,
          entry.target ?? '',
          entry.keyId ?? '',
          entry.principal ?? '',
          entry.requestId ?? '',
        ],
        doubles: [1],
      },
      event,
      defer,
    )
  }
}
