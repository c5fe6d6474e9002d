// Upload quotas through the admin API: objects and bytes per window, for each caller a subject
// names, on one origin. Enforced when uploads are signed (src/services/quotas.ts); read here from
// the same counters (the data plane's Durable Objects, by "script_name"): what a caller has used,
// what room is left, when the window resets. Changed in place: a quota's id names its counters, so
// new limits apply to what they already counted.

import { subjectOf, subjectText } from '../../principal/subjects'
import {
  insertQuota,
  quotaExists,
  selectPage,
  selectQuota,
  updateQuota,
} from '../../control/admin-store'
import { counterName } from '../../control/quota'
import type { QuotaCounter } from '../../control/quota-counter'
import type { QuotaRow } from '../../control/store'
import { unavailable } from '../../control/plane'
import { conflict } from '../../errors'
import { bindingOfName } from '../../principal'
import type { QuotaBody, QuotaUpdateBody } from '../../control/admin-schemas'
import {
  cannotHold,
  iso,
  newId,
  noRecord,
  originNamed,
  pageOf,
  removeRecord,
  stored,
  type AdminContext,
  type Deployed,
  type PageQuery,
} from './shared'

export function quotaView(row: QuotaRow) {
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

/** The one caller a quota's subject names, when it names one: an API key. */
function callerOf(row: QuotaRow): string | undefined {
  const subject = subjectOf(row.subject)
  return subject?.kind === 'apiKey' ? `apiKey:${subject.value}` : undefined
}

/**
 * What `caller` has used of quota `row` in the window holding now, read from its counter: the
 * room left under each limit (null: no such limit) and when the window resets. Undefined when no
 * counters are bound to this Worker.
 */
export async function useOf(
  ctx: AdminContext,
  row: Pick<QuotaRow, 'id' | 'window_s' | 'max_objects' | 'max_bytes'>,
  caller: string,
) {
  const counters = ctx.quotaCounters as DurableObjectNamespace<QuotaCounter> | undefined
  if (counters === undefined) return undefined
  const name = counterName(row.id, bindingOfName(caller))
  let reading: Awaited<ReturnType<QuotaCounter['read']>>
  try {
    reading = await counters
      .get(counters.idFromName(name))
      .read({ windowS: row.window_s }, ctx.now.getTime())
  } catch (error) {
    throw unavailable(error, 'The quota counters cannot be reached; retry shortly.')
  }
  const room = (max: number | null, used: number) => (max === null ? null : Math.max(0, max - used))
  return {
    caller,
    objects: reading.objects,
    bytes: reading.bytes,
    held: reading.held,
    remainingObjects: room(row.max_objects, reading.objects),
    remainingBytes: room(row.max_bytes, reading.bytes),
    windowStart: iso(reading.windowStart),
    resetAt: iso(reading.windowEnd),
  }
}

/** A quota with what its one caller (or `caller`) has used, when there is one to read. */
async function withUse(ctx: AdminContext, row: QuotaRow, caller = callerOf(row)) {
  return {
    ...quotaView(row),
    use: caller === undefined ? null : ((await useOf(ctx, row, caller)) ?? null),
  }
}

/**
 * Throws unless origin `name` can hold a quota: one that takes uploads, with the data plane's
 * quota counters bound. Problems are named at `path`.
 */
export function checkQuotaOrigin(deployment: Deployed, name: string, path: string): void {
  const origin = originNamed(deployment, name, path)
  const unfit = !origin.uploads
    ? 'must be an origin that takes uploads'
    : !deployment.quotaCounters
      ? 'cannot hold a quota: the data plane has no quota counters bound (wrangler.jsonc "durable_objects": WAYBILL_QUOTAS)'
      : undefined
  if (unfit !== undefined) {
    throw cannotHold(`Origin "${origin.name}" cannot hold a quota.`, [{ path, message: unfit }])
  }
}

/**
 * Sets a quota (its shape checked by the route) on an origin that can hold one: one that takes
 * uploads, with the data plane's quota counters bound.
 */
export async function createQuota(ctx: AdminContext, body: QuotaBody) {
  checkQuotaOrigin(await ctx.deployment(), body.origin, 'origin')
  const to = subjectText(body.to)
  const exists = { path: 'to', message: 'already has a quota on this origin: change it instead' }
  if (await stored(() => quotaExists(ctx.db, to, body.origin))) throw conflict([exists])
  const row = {
    id: newId('q', ctx.now),
    subject: to,
    origin: body.origin,
    max_objects: body.maxObjects ?? null,
    max_bytes: body.maxBytes ?? null,
    window_s: body.windowS,
  }
  const made = quotaView({ ...row, created_at: ctx.now.getTime() })
  await stored(
    () =>
      insertQuota(
        ctx.db,
        row,
        ctx.now.getTime(),
        ctx.audit({
          action: 'quota.create',
          target: row.id,
          keyId: callerOf({ ...row, created_at: 0 })?.slice(7) ?? null,
          principal: to,
          after: made,
        }),
      ),
    exists,
  )
  return made
}

export async function listQuotas(ctx: AdminContext, query: PageQuery) {
  const page = await pageOf(query, (after, limit) => selectPage(ctx.db, 'quotas', after, limit))
  return {
    quotas: await Promise.all(page.rows.map((row) => withUse(ctx, row))),
    cursor: page.cursor,
  }
}

/** One quota, with what `caller` (by default the one its subject names, if any) has used of it. */
export async function getQuota(ctx: AdminContext, id: string, caller?: string) {
  const row = await stored(() => selectQuota(ctx.db, id))
  if (row === null) throw noRecord('quota', id)
  return withUse(ctx, row, caller ?? callerOf(row))
}

/**
 * Changes a quota's limits in place: what its counters hold stays, and is judged against the new
 * limits from the next upload on (raising 3 to 4 allows one more in the window, not four). The
 * window is the quota's own: a quota with another window is a new quota.
 */
export async function patchQuota(ctx: AdminContext, id: string, body: QuotaUpdateBody) {
  const row = await stored(() => selectQuota(ctx.db, id))
  if (row === null) throw noRecord('quota', id)
  const limits = {
    max_objects: body.maxObjects === undefined ? row.max_objects : body.maxObjects,
    max_bytes: body.maxBytes === undefined ? row.max_bytes : body.maxBytes,
  }
  if (limits.max_objects === null && limits.max_bytes === null) {
    throw cannotHold(`Quota ${id} would limit nothing.`, [
      { path: 'maxObjects', message: 'cannot be null while maxBytes is: a quota limits something' },
    ])
  }
  const changed = { ...row, ...limits }
  await stored(() =>
    updateQuota(
      ctx.db,
      id,
      limits,
      ctx.now.getTime(),
      ctx.audit({
        action: 'quota.update',
        target: id,
        keyId: callerOf(row)?.slice(7) ?? null,
        principal: row.subject,
        before: quotaView(row),
        after: quotaView(changed),
      }),
    ),
  )
  return withUse(ctx, changed)
}

/** Removes a quota: its callers' uploads are counted no more (its counters are left to lapse). */
export function removeQuota(ctx: AdminContext, id: string) {
  return removeRecord(
    ctx,
    'quota',
    id,
    async () => {
      const row = await selectQuota(ctx.db, id)
      return row === null ? null : quotaView(row)
    },
    (quota) => ({
      keyId: quota.to.startsWith('apiKey:') ? quota.to.slice(7) : null,
      principal: quota.to,
    }),
  )
}
