// The control plane's configuration as one JSON document (ConfigDocument): every key's metadata,
// grant, quota and revocation, for a backup, a copy to another environment, or a review. Keys by
// their secrets' SHA-256 only when asked (never the keys: they are stored nowhere). An import adds
// what the control plane does not hold, each record checked as its create is, in one transaction.

import { grantJson } from '../../config/grants'
import {
  importRecords,
  selectConfiguration,
  storedKeyIds,
  type ImportedRecords,
} from '../../control/admin-store'
import { conflict } from '../../errors'
import { subjectText } from '../../principal/subjects'
import type { ExportQuery, ImportBody } from '../../control/admin-schemas'
import { grantView } from './grants'
import { keyView } from './keys'
import { checkQuotaOrigin, quotaView } from './quotas'
import { revocationView } from './revocations'
import { checkOnOrigin, iso, stored, type AdminContext } from './shared'

/** The whole configuration, as one document. */
export async function exportConfiguration(ctx: AdminContext, query: ExportQuery) {
  const withHashes = query.secrets === 'include'
  const rows = await stored(() => selectConfiguration(ctx.db, withHashes))
  return {
    version: 1 as const,
    exportedAt: iso(ctx.now.getTime()),
    keys: rows.keys.map((row) => {
      // Not its last use: that is usage, not configuration.
      const { id, label, createdAt, expiresAt, revokedAt, secrets } = keyView(row)
      const hashes = (JSON.parse(row.secrets) as unknown[][]).map((secret) => secret[3])
      return {
        id,
        label,
        createdAt,
        expiresAt,
        revokedAt,
        secrets: secrets.map((secret, i) =>
          withHashes ? { ...secret, sha256: String(hashes[i]) } : secret,
        ),
      }
    }),
    grants: rows.grants.map(grantView),
    quotas: rows.quotas.map(quotaView),
    revocations: rows.revocations.map(revocationView),
  }
}

/**
 * Adds the document's records the control plane does not hold (by id; a quota, by id or by its
 * subject and origin), leaving those it holds as they are. Grants and quotas are checked against
 * the deployment as their creates are; a key id WAYBILL_API_KEYS holds is a 409.
 */
export async function importConfiguration(ctx: AdminContext, body: ImportBody) {
  const deployment = await ctx.deployment()
  body.keys.forEach((key, i) => {
    if (deployment.apiKeys.some((env) => env.id === key.id)) {
      throw conflict([{ path: `keys.${i}.id`, message: 'is the id of a key in WAYBILL_API_KEYS' }])
    }
  })
  body.grants.forEach(({ grant }, i) => checkOnOrigin(deployment, grant, `grants.${i}.grant.`))
  body.quotas.forEach((quota, i) =>
    checkQuotaOrigin(deployment, quota.origin, `quotas.${i}.origin`),
  )
  // A key held already keeps its secrets: none of the document's are added to it.
  const held = await stored(() =>
    storedKeyIds(
      ctx.db,
      body.keys.map((key) => key.id),
    ),
  )
  const records: ImportedRecords = {
    keys: body.keys
      .filter((key) => !held.has(key.id))
      .map((key) => ({
        row: {
          id: key.id,
          label: key.label,
          created_at: key.createdAt,
          expires_at: key.expiresAt,
          revoked_at: key.revokedAt,
        },
        secrets: key.secrets.map((secret) => ({
          sha256: secret.sha256,
          prefix: secret.prefix,
          created_at: secret.createdAt,
          expires_at: secret.expiresAt,
        })),
      })),
    grants: body.grants.map(({ id, createdAt, grant }) => {
      const json = grantJson(grant)
      return { id, subject: String(json.to), body: JSON.stringify(json), created_at: createdAt }
    }),
    quotas: body.quotas.map((quota) => ({
      id: quota.id,
      subject: subjectText(quota.to),
      origin: quota.origin,
      max_objects: quota.maxObjects,
      max_bytes: quota.maxBytes,
      window_s: quota.windowS,
      created_at: quota.createdAt,
    })),
    revocations: body.revocations.map((revocation) => ({
      id: revocation.id,
      kind: revocation.kind,
      key_id: revocation.kind === 'key' ? revocation.key : null,
      link_id: revocation.kind === 'link' ? revocation.link : null,
      issued_before: revocation.kind === 'links' ? revocation.issuedBefore : null,
      origin: revocation.kind === 'links' ? (revocation.origin ?? null) : null,
      principal: revocation.kind === 'links' ? (revocation.principal ?? null) : null,
      created_at: revocation.createdAt,
    })),
  }
  const offered = {
    keys: body.keys.length,
    grants: body.grants.length,
    quotas: body.quotas.length,
    revocations: body.revocations.length,
  }
  const added = await stored(() =>
    importRecords(
      ctx.db,
      records,
      ctx.now.getTime(),
      ctx.audit({
        action: 'import',
        target: null,
        keyId: null,
        principal: null,
        after: { offered },
      }),
    ),
  )
  const skipped = {
    keys: offered.keys - added.keys,
    grants: offered.grants - added.grants,
    quotas: offered.quotas - added.quotas,
    revocations: offered.revocations - added.revocations,
  }
  return { added, skipped }
}
