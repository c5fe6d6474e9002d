// Explain through the admin API: would this caller's request be allowed, by which grant, and if
// not, by which rule refused; and which quota counts it. The verdict is the data plane's own,
// found by the code that answers the request (src/bridge/explain.ts, over the service binding);
// here it gets the stored grants' ids and how each reaches the caller, and the quota's use, read
// from its counter (an upload that would not fit is the 429 the request would get).

import type { Verdict } from '../../schemas/bridge'
import { subjectOf } from '../../principal/subjects'
import { selectGrantsOf } from '../../control/admin-store'
import { unavailable } from '../../control/plane'
import { WaybillError } from '../../errors'
import type { ExplainBody } from '../../control/admin-schemas'
import { useOf } from './quotas'
import type { AdminContext } from './shared'
import { iso, stored } from './shared'

const VIA = { apiKey: 'direct', sub: 'direct', email: 'email', role: 'role', any: 'any' } as const

/** JSON with each object's members in order: a grant as stored and as read are then one text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map(
        (name) => `${JSON.stringify(name)}:${canonical((value as Record<string, unknown>)[name])}`,
      )
      .join(',')}}`
  }
  return JSON.stringify(value)
}

const refusalOf = (verdict: Verdict) =>
  verdict.allowed
    ? null
    : { code: verdict.code, detail: verdict.detail, errors: [...verdict.errors] }

/** What `body`'s request would be answered, and why. */
export async function explainRequest(ctx: AdminContext, body: ExplainBody) {
  // Asked first: a 503 naming the binding when there is none.
  const deployment = await ctx.deployment()
  const bridge = ctx.bridge!
  let explained: Awaited<ReturnType<typeof bridge.explain>>
  try {
    explained = await bridge.explain({
      ...body,
      caller: 'key' in body.caller ? { key: body.caller.key } : body.caller,
    })
  } catch (error) {
    throw unavailable(
      error,
      'The data plane (WAYBILL_DATA_PLANE) cannot be reached; retry shortly.',
    )
  }
  if (!explained.ok) {
    throw new WaybillError('config_invalid', "The data plane's configuration is invalid.", {
      errors: explained.errors,
      headers: { 'retry-after': '60' },
    })
  }
  // The stored grants, read as the data plane reads them (WAYBILL_MAX_BATCH for one without its
  // own), so that each grant it judged is found by its text.
  const rows = await stored(() => selectGrantsOf(ctx.db, explained.caller.subjects))
  const ids = new Map(
    rows.map((row) => [
      canonical({ maxBatch: deployment.maxBatch, ...(JSON.parse(row.body) as object) }),
      row,
    ]),
  )
  const grants = explained.grants.map(({ source, grant, verdict }) => {
    const row = source === 'stored' ? ids.get(canonical(grant)) : undefined
    return {
      source,
      id: row?.id ?? null,
      createdAt: row === undefined ? null : iso(row.created_at),
      via: VIA[subjectOf(String(grant.to))?.kind ?? 'any'],
      grant,
      permits: verdict.allowed,
      refusal: refusalOf(verdict),
    }
  })
  let verdict = explained.verdict
  let quota = null
  if (explained.quota !== null) {
    const { id, to, maxObjects, maxBytes, windowS } = explained.quota
    const counted = { id, window_s: windowS, max_objects: maxObjects, max_bytes: maxBytes }
    const use =
      body.action === 'write'
        ? ((await useOf(ctx, counted, explained.caller.principal)) ?? null)
        : null
    const size = body.contentLength
    const fits =
      use === null || (maxBytes !== null && size === undefined)
        ? null
        : (maxObjects === null || use.objects + 1 <= maxObjects) &&
          (maxBytes === null || use.bytes + size! <= maxBytes)
    if (verdict.allowed && body.action === 'write') {
      if (maxBytes !== null && size === undefined) {
        verdict = {
          allowed: false,
          status: 400,
          code: 'invalid_request',
          detail: `contentLength: is required: a byte quota (${id}) counts this caller's uploads on this origin`,
          errors: [
            {
              path: 'contentLength',
              message: `is required: a byte quota (${id}) counts this caller's uploads on this origin`,
            },
          ],
        }
      } else if (fits === false) {
        verdict = {
          allowed: false,
          status: 429,
          code: 'quota_exceeded',
          detail: `Upload quota ${id} is full until ${use!.resetAt}.`,
          errors: [{ path: 'quota', message: `${id} is full until ${use!.resetAt}` }],
        }
      }
    }
    quota = { id, to, maxObjects, maxBytes, windowS, use, fits }
  }
  return {
    allowed: verdict.allowed,
    status: verdict.status,
    caller: { ...explained.caller, subjects: [...explained.caller.subjects] },
    request: explained.request,
    refusal: refusalOf(verdict),
    grants,
    quota,
  }
}
