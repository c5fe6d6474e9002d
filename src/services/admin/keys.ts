// API keys through the admin API: created with their grants (the key shown once, only its SHA-256
// stored), listed with their last use, shown with the grants that reach them, relabeled or given
// another expiry, rotated with an overlap. Revoking one is a revocation (./revocations.ts). Every
// write is recorded in the audit trail, without a secret: secrets by their prefix only.

import { grantJson, keyGrant } from '../../config/grants'
import {
  insertKey,
  keyExists,
  rotateKey,
  selectKey,
  selectKeys,
  updateKey,
} from '../../control/admin-store'
import type { KeyRow } from '../../control/store'
import { base64UrlEncode, hexEncode } from '../../core/bytes'
import { keyDigest } from '../../auth/api-key'
import { conflict, WaybillError } from '../../errors'
import {
  DEFAULT_ROTATION_OVERLAP_S,
  STORED_KEY_RANDOM_BYTES,
  STORED_KEY_SHOWN_CHARS,
} from '../../limits'
import type { KeyCreateBody, KeyUpdateBody } from '../../control/admin-schemas'
import { effectiveGrants } from './grants'
import {
  checkOnOrigin,
  iso,
  isoOrNull,
  newId,
  pageOf,
  stored,
  type AdminContext,
  type PageQuery,
} from './shared'

/** A new key's secret: the key (shown once), its SHA-256 (stored) and what lists show of it. */
function newSecret(prefix: string) {
  const key = `${prefix}_${base64UrlEncode(crypto.getRandomValues(new Uint8Array(STORED_KEY_RANDOM_BYTES)))}`
  return {
    key,
    sha256: hexEncode(keyDigest(key)),
    prefix: key.slice(0, prefix.length + 1 + STORED_KEY_SHOWN_CHARS),
  }
}

export function keyView(row: KeyRow) {
  const secrets = JSON.parse(row.secrets) as [string, number, number | null][]
  return {
    id: row.id,
    label: row.label,
    createdAt: iso(row.created_at),
    expiresAt: isoOrNull(row.expires_at),
    revokedAt: isoOrNull(row.revoked_at),
    lastUsedAt: isoOrNull(row.last_used_at),
    secrets: secrets.map(([prefix, createdAt, expiresAt]) => ({
      prefix,
      createdAt: iso(createdAt),
      expiresAt: isoOrNull(expiresAt),
    })),
  }
}

/**
 * Makes a key with its grants, in one transaction. The key itself is in this answer only. An
 * `expiresAt` already past makes a key that never works, as any key once it expires.
 */
export async function createKey(ctx: AdminContext, body: KeyCreateBody) {
  const { db, now } = ctx
  const deployment = await ctx.deployment()
  const id = body.id ?? newId('k', now)
  const taken = { path: 'id', message: 'is the id of another key' }
  if (deployment.apiKeys.some((key) => key.id === id)) {
    throw conflict([{ path: 'id', message: 'is the id of a key in WAYBILL_API_KEYS' }])
  }
  const grants = (body.grants ?? []).map((fields, i) => {
    const grant = keyGrant(fields, id)
    checkOnOrigin(deployment, grant, `grants.${i}.`)
    return { id: newId('g', now), subject: `apiKey:${id}`, grant: grantJson(grant) }
  })
  if (await stored(() => keyExists(db, id))) throw conflict([taken])
  const secret = newSecret(body.prefix ?? 'wb')
  const nowMs = now.getTime()
  const view = {
    id,
    label: body.label ?? null,
    createdAt: iso(nowMs),
    expiresAt: isoOrNull(body.expiresAt ?? null),
    revokedAt: null,
    lastUsedAt: null,
    secrets: [{ prefix: secret.prefix, createdAt: iso(nowMs), expiresAt: null }],
  }
  const made = grants.map(({ id: grantId, grant }) => ({
    id: grantId,
    createdAt: iso(nowMs),
    grant,
  }))
  await stored(
    () =>
      insertKey(
        db,
        {
          id,
          label: body.label ?? null,
          expiresAt: body.expiresAt ?? null,
          secret: { sha256: secret.sha256, prefix: secret.prefix },
        },
        grants.map(({ id: grantId, subject, grant }) => ({
          id: grantId,
          subject,
          body: JSON.stringify(grant),
        })),
        nowMs,
        ctx.audit({
          action: 'key.create',
          target: id,
          keyId: id,
          principal: `apiKey:${id}`,
          after: { ...view, grants: made },
        }),
      ),
    taken,
  )
  return { ...view, key: secret.key, grants: made }
}

export async function listKeys(ctx: AdminContext, query: PageQuery) {
  const { rows, cursor } = await pageOf(query, (after, limit) => selectKeys(ctx.db, after, limit))
  return { keys: rows.map(keyView), cursor }
}

function notFound(id: string): WaybillError {
  return new WaybillError('not_found', `No API key "${id}" in the control plane.`, {
    errors: [{ path: 'id', message: 'is not a key made through the admin API' }],
  })
}

/**
 * A key as stored, with every grant that reaches it: the env's and the control plane's, those
 * naming it and those naming anyone (`*`). (An API key holds no role or email: the grants naming
 * those reach token callers only.)
 */
export async function getKey(ctx: AdminContext, id: string) {
  const row = await stored(() => selectKey(ctx.db, id))
  if (row === null) throw notFound(id)
  return { ...keyView(row), grants: await effectiveGrants(ctx, { caller: `apiKey:${id}` }) }
}

/**
 * Relabels a key, or gives it another expiry (null: none); what is not named stays. An expiry
 * reaches every isolate within the control plane's bound, and what the key issued answers to it
 * (a link of a key past its expiry answers 410).
 */
export async function patchKey(ctx: AdminContext, id: string, body: KeyUpdateBody) {
  const row = await stored(() => selectKey(ctx.db, id))
  if (row === null) throw notFound(id)
  const fields = {
    label: body.label === undefined ? row.label : body.label,
    expiresAt: body.expiresAt === undefined ? row.expires_at : body.expiresAt,
  }
  const shown = (f: typeof fields) => ({ label: f.label, expiresAt: isoOrNull(f.expiresAt) })
  await stored(() =>
    updateKey(
      ctx.db,
      id,
      fields,
      ctx.now.getTime(),
      ctx.audit({
        action: 'key.update',
        target: id,
        keyId: id,
        principal: `apiKey:${id}`,
        before: shown({ label: row.label, expiresAt: row.expires_at }),
        after: shown(fields),
      }),
    ),
  )
  return keyView({ ...row, label: fields.label, expires_at: fields.expiresAt })
}

/**
 * A new secret for a key: the ones it had keep working `overlapS` more seconds (0: they stop now),
 * so callers can switch over. The key's id, grants and usage stay.
 */
export async function rotate(ctx: AdminContext, id: string, overlapS: number | undefined) {
  const { db, now } = ctx
  const row = await stored(() => selectKey(db, id))
  if (row === null) throw notFound(id)
  if (row.revoked_at !== null) {
    throw conflict([{ path: 'id', message: 'is revoked: make a new key instead' }])
  }
  const prefix = (JSON.parse(row.secrets) as [string][]).at(-1)?.[0].split('_')[0] ?? 'wb'
  const secret = newSecret(prefix)
  const nowMs = now.getTime()
  const retireAt = nowMs + (overlapS ?? DEFAULT_ROTATION_OVERLAP_S) * 1000
  await stored(() =>
    rotateKey(
      db,
      id,
      { sha256: secret.sha256, prefix: secret.prefix },
      retireAt,
      nowMs,
      ctx.audit({
        action: 'key.rotate',
        target: id,
        keyId: id,
        principal: `apiKey:${id}`,
        after: { prefix: secret.prefix, previousExpiresAt: iso(retireAt) },
      }),
    ),
  )
  return { id, key: secret.key, prefix: secret.prefix, previousExpiresAt: iso(retireAt) }
}
