// Upload quotas through the admin API: objects and bytes per window, for each caller a subject
// names, on one origin. Enforced when uploads are signed (src/services/quotas.ts).

import type { Config } from '../../config'
import { subjectOf, subjectText } from '../../config/grants'
import type { ControlPlane } from '../../control/plane'
import {
  deleteQuota,
  insertQuota,
  quotaExists,
  selectQuotas,
  type QuotaRow,
} from '../../control/store'
import { invalid, WaybillError, type FieldError } from '../../errors'
import type { QuotaBody } from '../../schemas/admin'
import { controlOf, iso, newId, page, pageOf, stored, subjectProblem } from './shared'

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

export async function createQuota(config: Config, plane: ControlPlane, body: QuotaBody, now: Date) {
  const control = controlOf(config)
  const errors: FieldError[] = []
  const subject = subjectOf(body.to)
  const problem = subjectProblem(body.to)
  if (problem !== undefined) errors.push({ path: 'to', message: problem })
  else if (subject === undefined) {
    errors.push({
      path: 'to',
      message: 'must be "apiKey:<id>", "sub:<subject>", "role:<role>", "email:<address>" or "*"',
    })
  }
  const origin = config.origins.get(body.origin)
  if (origin?.type !== 's3') {
    errors.push({
      path: 'origin',
      message:
        origin === undefined ? 'must name a configured origin' : 'must be an S3 origin (uploads)',
    })
  }
  if (control.quotaCounters === undefined) {
    errors.push({
      path: 'origin',
      message:
        'cannot hold a quota: no quota counters are bound (wrangler.jsonc "durable_objects": WAYBILL_QUOTAS)',
    })
  }
  if (errors.length > 0) throw invalid(errors)
  const to = subjectText(subject!)
  if (await stored(() => quotaExists(control.db, to, body.origin))) {
    throw invalid([{ path: 'to', message: 'already has a quota on this origin: delete it first' }])
  }
  const row = {
    id: newId('q', now),
    subject: to,
    origin: body.origin,
    max_objects: body.maxObjects ?? null,
    max_bytes: body.maxBytes ?? null,
    window_s: body.windowS,
  }
  const { epoch } = await stored(() => insertQuota(control.db, row, now.getTime()), {
    path: 'to',
    message: 'already has a quota on this origin: delete it first',
  })
  plane.changed(config, epoch, now)
  return view({ ...row, created_at: now.getTime() })
}

export async function listQuotas(
  config: Config,
  query: { limit?: number | undefined; cursor?: string | undefined },
) {
  const { after, limit } = pageOf(query)
  const rows = await stored(() => selectQuotas(controlOf(config).db, after, limit + 1))
  const { rows: kept, cursor } = page(rows, limit)
  return { quotas: kept.map(view), cursor }
}

export async function removeQuota(config: Config, plane: ControlPlane, id: string, now: Date) {
  const { epoch, deleted } = await stored(() =>
    deleteQuota(controlOf(config).db, id, now.getTime()),
  )
  plane.changed(config, epoch, now)
  if (!deleted) {
    throw new WaybillError('not_found', `No quota "${id}".`, {
      errors: [{ path: 'id', message: 'is not a quota in the control plane' }],
    })
  }
}
