// Grants through the admin API: the same shape and schema as WAYBILL_GRANTS, bound by `to` to a
// key, a subject, a role or an email. They add to the env's grants (src/control/plane.ts).

import type { Config } from '../../config'
import { grantJson, type GrantDefinition } from '../../config/grants'
import { subjectText } from '../../principal/subjects'
import type { ControlPlane } from '../../control/plane'
import { countGrants, insertGrant, selectGrants } from '../../control/store'
import { conflict } from '../../errors'
import { MAX_GRANTS_PER_SUBJECT } from '../../limits'
import {
  checkOnOrigin,
  controlOf,
  iso,
  newId,
  pageOf,
  stored,
  written,
  type PageQuery,
} from './shared'

/**
 * Stores a grant (its shape checked by the route) once its origin, as configured now, can hold
 * it, in its canonical form.
 */
export async function createGrant(
  config: Config,
  plane: ControlPlane,
  body: GrantDefinition,
  now: Date,
) {
  const { db } = controlOf(config)
  checkOnOrigin(config, body, '')
  const grant = grantJson(body)
  const subject = subjectText(body.subject)
  if ((await stored(() => countGrants(db, subject))) >= MAX_GRANTS_PER_SUBJECT) {
    throw conflict([
      { path: 'to', message: `already holds ${MAX_GRANTS_PER_SUBJECT} grants, the most one may` },
    ])
  }
  const id = newId('g', now)
  await written(config, plane, now, () =>
    insertGrant(db, { id, subject, body: JSON.stringify(grant) }, now.getTime()),
  )
  return { id, createdAt: iso(now.getTime()), grant }
}

export async function listGrants(config: Config, query: PageQuery & { to?: string | undefined }) {
  const { db } = controlOf(config)
  const { rows, cursor } = await pageOf(query, (after, limit) =>
    selectGrants(db, query.to ?? null, after, limit),
  )
  return {
    grants: rows.map((row) => ({
      id: row.id,
      createdAt: iso(row.created_at),
      grant: JSON.parse(row.body) as Record<string, unknown>,
    })),
    cursor,
  }
}
