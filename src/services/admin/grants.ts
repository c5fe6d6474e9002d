// Grants through the admin API: the same shape and schema as WAYBILL_GRANTS, bound by `to` to a
// key, a subject, a role or an email (or `*`). They add to the env's grants (src/control/plane.ts).
// And the grants that reach a caller, wherever they come from: what `authorize` will weigh.

import { grantJson, type GrantDefinition } from '../../config/grants'
import { subjectOf, subjectsOf, subjectText } from '../../principal/subjects'
import {
  countGrants,
  insertGrant,
  keyExists,
  selectGrant,
  selectGrants,
  selectGrantsOf,
} from '../../control/admin-store'
import type { GrantRow } from '../../control/store'
import { conflict, WaybillError } from '../../errors'
import { MAX_GRANTS_PER_SUBJECT } from '../../limits'
import type { Principal } from '../../principal'
import {
  checkOnOrigin,
  iso,
  newId,
  pageOf,
  removeRecord,
  stored,
  type AdminContext,
  type PageQuery,
} from './shared'

export const grantView = (row: GrantRow) => ({
  id: row.id,
  createdAt: iso(row.created_at),
  grant: JSON.parse(row.body) as Record<string, unknown>,
})

/** The key a grant's subject names, when it names one. */
const keyOf = (subject: string) => (subject.startsWith('apiKey:') ? subject.slice(7) : null)

/**
 * Stores a grant (its shape checked by the route) once its origin, as the data plane has it now,
 * can hold it, in its canonical form. A grant to an API key that is neither stored nor in
 * WAYBILL_API_KEYS is a 404, unless `allowUnknownKey` says it is meant for a key to come.
 */
export async function createGrant(
  ctx: AdminContext,
  body: GrantDefinition,
  allowUnknownKey = false,
) {
  const deployment = await ctx.deployment()
  checkOnOrigin(deployment, body, '')
  const grant = grantJson(body)
  const subject = subjectText(body.subject)
  const key = keyOf(subject)
  if (
    key !== null &&
    !allowUnknownKey &&
    !deployment.apiKeys.some((configured) => configured.id === key) &&
    !(await stored(() => keyExists(ctx.db, key)))
  ) {
    throw new WaybillError('not_found', `No API key "${key}".`, {
      errors: [
        {
          path: 'to',
          message:
            'names no key: none was made through the admin API or is in WAYBILL_API_KEYS (allowUnknownKey=true grants a key to come)',
        },
      ],
    })
  }
  if ((await stored(() => countGrants(ctx.db, subject))) >= MAX_GRANTS_PER_SUBJECT) {
    throw conflict([
      { path: 'to', message: `already holds ${MAX_GRANTS_PER_SUBJECT} grants, the most one may` },
    ])
  }
  const id = newId('g', ctx.now)
  await stored(() =>
    insertGrant(
      ctx.db,
      { id, subject, body: JSON.stringify(grant) },
      ctx.now.getTime(),
      ctx.audit({
        action: 'grant.create',
        target: id,
        keyId: key,
        principal: subject,
        after: grant,
      }),
    ),
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
  return { grants: rows.map(grantView), cursor }
}

/** Removes a stored grant: it allows nothing more within the control plane's bound. */
export function removeGrant(ctx: AdminContext, id: string) {
  return removeRecord(
    ctx,
    'grant',
    id,
    async () => {
      const row = await selectGrant(ctx.db, id)
      return row === null ? null : grantView(row)
    },
    (grant) => {
      const to = String(grant.grant.to)
      return { keyId: keyOf(to), principal: to }
    },
  )
}

/** How a grant reaches a caller: by its own name, its email, a role it holds, or anyone's (`*`). */
const VIA = { apiKey: 'direct', sub: 'direct', email: 'email', role: 'role', any: 'any' } as const

/** A caller to find the grants of, as the request log names it, with what a token would claim. */
export interface CallerQuery {
  /** `apiKey:<id>`, `jwt:<sub>` or `access:<sub>`. */
  caller: string
  roles?: readonly string[] | undefined
  email?: string | undefined
}

/**
 * Every grant that reaches `query`'s caller, the env's (WAYBILL_GRANTS) and the stored ones, each
 * with how it reaches it: what `authorize` weighs for that caller (a grant's prefix may still not
 * fill for it, src/auth/policy.ts).
 */
export async function effectiveGrants(ctx: AdminContext, query: CallerQuery) {
  const colon = query.caller.indexOf(':')
  const kind = query.caller.slice(0, colon)
  const principal: Principal = {
    kind: kind === 'apiKey' ? 'api-key' : kind === 'access' ? 'access' : 'jwt',
    id: query.caller.slice(colon + 1),
    claims: {},
    roles: new Set(kind === 'apiKey' ? [] : (query.roles ?? [])),
    email: kind === 'apiKey' ? undefined : query.email,
  }
  const subjects = subjectsOf(principal).map(subjectText)
  const via = (to: string) => VIA[subjectOf(to)?.kind ?? 'any']
  const deployment = await ctx.deployment()
  const rows = await stored(() => selectGrantsOf(ctx.db, subjects))
  return [
    ...deployment.grants
      .filter((grant) => subjects.includes(String(grant.to)))
      .map((grant) => ({
        source: 'env' as const,
        id: null,
        createdAt: null,
        via: via(String(grant.to)),
        grant,
      })),
    ...rows.map((row) => ({ source: 'stored' as const, via: via(row.subject), ...grantView(row) })),
  ]
}
