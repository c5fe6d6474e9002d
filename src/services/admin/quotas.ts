// Upload quotas through the admin API: objects and bytes per window, for each caller a subject
// names, on one origin. Enforced when uploads are signed (src/services/quotas.ts).

import { subjectText } from '../../config/grants'
import { insertQuota, quotaExists, selectPage, type QuotaRow } from '../../control/store'
import { conflict } from '../../errors'
import type { QuotaBody } from '../../schemas/admin'
import {
  cannotHold,
  iso,
  newId,
  originNamed,
  pageOf,
  stored,
  type AdminContext,
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
 * Sets a quota (its shape checked by the route) on an origin that can hold one: an S3 origin
 * (uploads), with the quota counters bound.
 */
export async function createQuota(ctx: AdminContext, body: QuotaBody) {
  const deployment = await ctx.deployment()
  const origin = originNamed(deployment, body.origin, 'origin')
  const unfit =
    origin.type !== 's3'
      ? 'must be an S3 origin (uploads)'
      : !deployment.quotaCounters
        ? 'cannot hold a quota: the data plane has no quota counters bound (wrangler.jsonc "durable_objects": WAYBILL_QUOTAS)'
        : undefined
  if (unfit !== undefined) {
    throw cannotHold(`Origin "${origin.name}" cannot hold a quota.`, [
      { path: 'origin', message: unfit },
    ])
  }
  const to = subjectText(body.to)
  const exists = { path: 'to', message: 'already has a quota on this origin: delete it first' }
  if (await stored(() => quotaExists(ctx.db, to, body.origin))) throw conflict([exists])
  const row = {
    id: newId('q', ctx.now),
    subject: to,
    origin: body.origin,
    max_objects: body.maxObjects ?? null,
    max_bytes: body.maxBytes ?? null,
    window_s: body.windowS,
  }
  await stored(() => insertQuota(ctx.db, row, ctx.now.getTime()), exists)
  return view({ ...row, created_at: ctx.now.getTime() })
}

export async function listQuotas(ctx: AdminContext, query: PageQuery) {
  const page = await pageOf(query, (after, limit) => selectPage(ctx.db, 'quotas', after, limit))
  return { quotas: page.rows.map(view), cursor: page.cursor }
}
