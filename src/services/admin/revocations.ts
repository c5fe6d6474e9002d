// Revocations through the admin API: a key (it stops authenticating), one link by its id, or links
// by when (and where, and by whom) they were issued, as WAYBILL_LINK_REVOCATIONS does. They are
// kept as a record, and refused everywhere within the control plane's bound. Undone by deleting the
// record (audited, as every write is): a key then stands again, links are followed again.

import {
  countLinkRules,
  insertRevocation,
  keyExists,
  selectPage,
  selectRevocation,
} from '../../control/admin-store'
import type { RevocationRow } from '../../control/store'
import { conflict, WaybillError } from '../../errors'
import { MAX_LINK_RULES } from '../../limits'
import type { RevocationBody } from '../../control/admin-schemas'
import {
  iso,
  newId,
  pageOf,
  removeRecord,
  stored,
  type AdminContext,
  type PageQuery,
} from './shared'

export function revocationView(row: RevocationRow) {
  return {
    id: row.id,
    kind: row.kind,
    createdAt: iso(row.created_at),
    ...(row.key_id === null ? {} : { key: row.key_id }),
    ...(row.link_id === null ? {} : { link: row.link_id }),
    ...(row.issued_before === null ? {} : { issuedBefore: iso(row.issued_before) }),
    ...(row.origin === null ? {} : { origin: row.origin }),
    ...(row.principal === null ? {} : { principal: row.principal }),
  }
}

export async function createRevocation(ctx: AdminContext, body: RevocationBody) {
  const { db, now } = ctx
  if (body.kind === 'key' && !(await stored(() => keyExists(db, body.key)))) {
    const inEnv = (await ctx.deployment()).apiKeys.some((key) => key.id === body.key)
    throw new WaybillError('not_found', `No API key "${body.key}" in the control plane.`, {
      errors: [
        {
          path: 'key',
          message: inEnv
            ? 'is a key of WAYBILL_API_KEYS: remove it there'
            : 'is not a key made through the admin API',
        },
      ],
    })
  }
  if (body.kind === 'links' && (await stored(() => countLinkRules(db))) >= MAX_LINK_RULES) {
    throw conflict([
      {
        path: 'kind',
        message: `there are ${MAX_LINK_RULES} revocations of links by time already, the most the control plane holds: rotate WAYBILL_TOKEN_SECRETS instead`,
      },
    ])
  }
  const row: Omit<RevocationRow, 'created_at'> = {
    id: newId('r', now),
    kind: body.kind,
    key_id: body.kind === 'key' ? body.key : null,
    link_id: body.kind === 'link' ? body.link : null,
    issued_before: body.kind === 'links' ? body.issuedBefore : null,
    origin: body.kind === 'links' ? (body.origin ?? null) : null,
    principal: body.kind === 'links' ? (body.principal ?? null) : null,
  }
  const made = revocationView({ ...row, created_at: now.getTime() })
  const { since } = await stored(() =>
    insertRevocation(
      db,
      row,
      now.getTime(),
      ctx.audit({
        action: 'revocation.create',
        target: row.id,
        keyId: row.key_id,
        principal: row.key_id === null ? row.principal : `apiKey:${row.key_id}`,
        after: made,
      }),
    ),
  )
  if (since !== undefined) {
    // The field naming what is revoked is called as its kind: `key` or `link`.
    throw conflict([{ path: body.kind, message: `is revoked already, since ${iso(since)}` }])
  }
  return made
}

export async function listRevocations(ctx: AdminContext, query: PageQuery) {
  const page = await pageOf(query, (after, limit) =>
    selectPage(ctx.db, 'revocations', after, limit),
  )
  return { revocations: page.rows.map(revocationView), cursor: page.cursor }
}

/**
 * Undoes a revocation: a key's makes the key stand again (it authenticates, and its links are
 * followed, within the control plane's bound); a link's or links' lets them be followed again.
 */
export function removeRevocation(ctx: AdminContext, id: string) {
  return removeRecord(
    ctx,
    'revocation',
    id,
    async () => {
      const row = await selectRevocation(ctx.db, id)
      return row === null ? null : revocationView(row)
    },
    (revocation) => ({
      keyId: revocation.key ?? null,
      principal:
        revocation.key === undefined ? (revocation.principal ?? null) : `apiKey:${revocation.key}`,
    }),
  )
}
