// Revocations through the admin API: a key (it stops authenticating), one link by its id, or links
// by when (and where, and by whom) they were issued, as WAYBILL_LINK_REVOCATIONS does. They are
// kept as a record, and refused everywhere within the control plane's bound.

import type { Config } from '../../config'
import type { ControlPlane } from '../../control/plane'
import {
  countLinkRules,
  insertRevocation,
  keyExists,
  selectPage,
  type RevocationRow,
} from '../../control/store'
import { conflict, WaybillError } from '../../errors'
import { MAX_LINK_RULES } from '../../limits'
import type { RevocationBody } from '../../schemas/admin'
import { controlOf, iso, newId, pageOf, stored, written, type PageQuery } from './shared'

function view(row: RevocationRow) {
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

export async function createRevocation(
  config: Config,
  plane: ControlPlane,
  body: RevocationBody,
  now: Date,
) {
  const { db } = controlOf(config)
  if (body.kind === 'key' && !(await stored(() => keyExists(db, body.key)))) {
    throw new WaybillError('not_found', `No API key "${body.key}" in the control plane.`, {
      errors: [
        {
          path: 'key',
          message: config.apiKeys.some((key) => key.id === body.key)
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
  const { since } = await written(config, plane, now, () =>
    insertRevocation(db, row, now.getTime()),
  )
  if (since !== undefined) {
    // The field naming what is revoked is called as its kind: `key` or `link`.
    throw conflict([{ path: body.kind, message: `is revoked already, since ${iso(since)}` }])
  }
  return view({ ...row, created_at: now.getTime() })
}

export async function listRevocations(config: Config, query: PageQuery) {
  const { db } = controlOf(config)
  const page = await pageOf(query, (after, limit) => selectPage(db, 'revocations', after, limit))
  return { revocations: page.rows.map(view), cursor: page.cursor }
}
