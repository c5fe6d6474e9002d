// Grants through the admin API: the same shape and schema as WAYBILL_GRANTS, bound by `to` to a
// key, a subject, a role or an email. They add to the env's grants (src/control/plane.ts).

import type { Config } from '../../config'
import { grantJson, type GrantDefinition } from '../../config/grants'
import type { ControlPlane } from '../../control/plane'
import { countGrants, deleteGrant, insertGrant, selectGrants } from '../../control/store'
import { invalid, WaybillError } from '../../errors'
import { MAX_GRANTS_PER_SUBJECT } from '../../limits'
import { checkGrant, controlOf, iso, newId, page, pageOf, stored, subjectProblem } from './shared'

/**
 * Stores a grant, checked again against the origins configured now (the route checked its
 * shape), in its canonical form.
 */
export async function createGrant(
  config: Config,
  plane: ControlPlane,
  body: GrantDefinition,
  now: Date,
) {
  const { db } = controlOf(config)
  const grant = grantJson(body)
  const checked = checkGrant(config, grant, '')
  if ('errors' in checked) throw invalid(checked.errors)
  const subject = grant.to as string
  const problem = subjectProblem(subject)
  if (problem !== undefined) throw invalid([{ path: 'to', message: problem }])
  if ((await stored(() => countGrants(db, subject))) >= MAX_GRANTS_PER_SUBJECT) {
    throw invalid([
      { path: 'to', message: `already holds ${MAX_GRANTS_PER_SUBJECT} grants, the most one may` },
    ])
  }
  const id = newId('g', now)
  const { epoch } = await stored(() =>
    insertGrant(db, { id, subject, body: JSON.stringify(grant) }, now.getTime()),
  )
  plane.changed(config, epoch, now)
  return { id, createdAt: iso(now.getTime()), grant }
}

export async function listGrants(
  config: Config,
  query: { to?: string | undefined; limit?: number | undefined; cursor?: string | undefined },
) {
  const { after, limit } = pageOf(query)
  const rows = await stored(() =>
    selectGrants(controlOf(config).db, query.to ?? null, after, limit + 1),
  )
  const { rows: kept, cursor } = page(rows, limit)
  return {
    grants: kept.map((row) => ({
      id: row.id,
      createdAt: iso(row.created_at),
      grant: JSON.parse(row.body) as Record<string, unknown>,
    })),
    cursor,
  }
}

/** Removes a grant: from then on (within the control plane's bound) it allows nothing. */
export async function removeGrant(config: Config, plane: ControlPlane, id: string, now: Date) {
  const { epoch, deleted } = await stored(() =>
    deleteGrant(controlOf(config).db, id, now.getTime()),
  )
  plane.changed(config, epoch, now)
  if (!deleted) {
    throw new WaybillError('not_found', `No grant "${id}".`, {
      errors: [{ path: 'id', message: 'is not a grant in the control plane' }],
    })
  }
}
