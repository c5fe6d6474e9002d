// Upload quotas through the admin API: objects and bytes per window, for each caller a subject
// names, on one origin. Enforced when uploads are signed (src/services/quotas.ts).

import type { Config } from '../../config'
import { subjectText } from '../../principal/subjects'
import type { ControlPlane } from '../../control/plane'
import { insertQuota, quotaExists, selectPage, type QuotaRow } from '../../control/store'
import { conflict } from '../../errors'
import type { QuotaBody } from '../../schemas/admin'
import {
  cannotHold,
  controlOf,
  iso,
  newId,
  originNamed,
  pageOf,
  stored,
  written,
  type PageQuery,
} from './shared'

function view(row: QuotaRow) {
  return {
    id: row.id,
    to: row.subject,
    origin: row.origin,
    maxObjects: row.max_objects,
    maxBytes: row.max_bytes,
    windowS: row.window_s,
    createdAt: iso(row.created_at),
  }
}

/**
 * Sets a quota (its shape checked by the route) on an origin that can hold one: one that takes
 * uploads, with the quota counters bound.
 */
export async function createQuota(config: Config, plane: ControlPlane, body: QuotaBody, now: Date) {
  const control = controlOf(config)
  const origin = originNamed(config, body.origin, 'origin')
  const unfit =
    origin.uploads === undefined
      ? 'must be an origin that takes uploads'
      : control.quotaCounters === undefined
        ? 'cannot hold a quota: no quota counters are bound (wrangler.jsonc "durable_objects": WAYBILL_QUOTAS)'
        : undefined
  if (unfit !== undefined) {
    throw cannotHold(`Origin "${origin.name}" cannot hold a quota.`, [
      { path: 'origin', message: unfit },
    ])
  }
  const to = subjectText(body.to)
  const exists = { path: 'to', message: 'already has a quota on this origin: delete it first' }
  if (await stored(() => quotaExists(control.db, to, body.origin))) throw conflict([exists])
  const row = {
    id: newId('q', now),
    subject: to,
    origin: body.origin,
    max_objects: body.maxObjects ?? null,
    max_bytes: body.maxBytes ?? null,
    window_s: body.windowS,
  }
  await written(config, plane, now, () => insertQuota(control.db, row, now.getTime()), exists)
  return view({ ...row, created_at: now.getTime() })
}

export async function listQuotas(config: Config, query: PageQuery) {
  const { db } = controlOf(config)
  const page = await pageOf(query, (after, limit) => selectPage(db, 'quotas', after, limit))
  return { quotas: page.rows.map(view), cursor: page.cursor }
}
