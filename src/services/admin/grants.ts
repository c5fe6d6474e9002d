// Grants through the admin API: the same shape and schema as WAYBILL_GRANTS, bound by `to` to a
// key, a subject, a role or an email. They add to the env's grants (src/control/plane.ts).

import { grantJson, subjectText, type GrantDefinition } from '../../config/grants'
import { countGrants, insertGrant, selectGrants } from '../../control/store'
import { conflict } from '../../errors'
import { MAX_GRANTS_PER_SUBJECT } from '../../limits'
import {
  checkOnOrigin,
  iso,
  newId,
  pageOf,
  stored,
  type AdminContext,
  type PageQuery,
} from './shared'

/**
 * Stores a grant (its shape checked by the route) once its origin, as the data plane has it now,
 * can hold it, in its canonical form.
 */
export async function createGrant(ctx: AdminContext, body: GrantDefinition) {
  checkOnOrigin(await ctx.deployment(), body, '')
  const grant = grantJson(body)
  const subject = subjectText(body.subject)
  if ((await stored(() => countGrants(ctx.db, subject))) >= MAX_GRANTS_PER_SUBJECT) {
    throw conflict([
      { path: 'to', message: `already holds ${MAX_GRANTS_PER_SUBJECT} grants, the most one may` },
    ])
  }
  const id = newId('g', ctx.now)
  await stored(() =>
    insertGrant(ctx.db, { id, subject, body: JSON.stringify(grant) }, ctx.now.getTime()),
  )
  return { id, createdAt: iso(ctx.now.getTime()), grant }
}

export async function listGrants(
  ctx: AdminContext,
  query: PageQuery & { to?: string | undefined },
) {
  const { rows, cursor } = await pageOf(query, (after, limit) =>
    selectGrants(ctx.db, query.to ?? null, after, limit),
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
