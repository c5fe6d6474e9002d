// The control plane's SQL on the request path, over the schema in migrations/: lookups through the
// caches (./plane.ts), and the usage and refused keys written after the answers. The admin plane's
// statements are ./admin-store.ts. Values are always bound parameters, never spliced into SQL.
// Times are epoch milliseconds.

import { AUDIT_REFUSAL_WINDOW_MS } from '../limits'

/** Rows as D1 answers them: SQLite integers come back as numbers, NULL as null. */
export interface KeyRow {
  id: string
  label: string | null
  created_at: number
  expires_at: number | null
  revoked_at: number | null
  last_used_at: number | null
  /** JSON: [[prefix, created_at, expires_at], …] */
  secrets: string
}

export interface GrantRow {
  id: string
  subject: string
  body: string
  created_at: number
}

export interface QuotaRow {
  id: string
  subject: string
  origin: string
  max_objects: number | null
  max_bytes: number | null
  window_s: number
  created_at: number
}

export interface RevocationRow {
  id: string
  kind: 'key' | 'link' | 'links'
  key_id: string | null
  link_id: string | null
  issued_before: number | null
  origin: string | null
  principal: string | null
  created_at: number
}

export interface UsageRow {
  day: string
  principal: string
  origin: string
  minted: number
  refused: number
  bytes_reserved: number
  bytes_completed: number
  links_followed: number
}

/** What the hot path reads: a key by its hash, with the grants and quotas of its subjects. */
export interface KeyLookupRow {
  id: string
  expires_at: number | null
  revoked_at: number | null
  secret_expires_at: number | null
  /** JSON: [[id, grant], …] */
  grants: string
  /** JSON: [[id, subject, origin, max_objects, max_bytes, window_s], …] */
  quotas: string
}

export type RulesRow = Pick<KeyLookupRow, 'grants' | 'quotas'>

/** A stored key as what it issued needs it: whether it is revoked, when it expires. */
export type IssuerRow = Pick<KeyRow, 'expires_at' | 'revoked_at'>

// The grants and quotas of a list of subjects (`?1` a JSON array of them), at most `?2` of each.
const GRANTS_OF = (subjects: string) =>
  `(SELECT json_group_array(json_array(id, json(body))) FROM (SELECT id, body FROM grants WHERE subject IN ${subjects} ORDER BY id LIMIT ?2))`
const QUOTAS_OF = (subjects: string) =>
  `(SELECT json_group_array(json_array(id, subject, origin, max_objects, max_bytes, window_s)) FROM (SELECT * FROM quotas WHERE subject IN ${subjects} ORDER BY id LIMIT ?2))`
const KEY_SUBJECTS = "('apiKey:' || k.id, '*')"
const LISTED_SUBJECTS = '(SELECT value FROM json_each(?1))'

const EPOCH_SQL = 'SELECT epoch FROM control_epoch WHERE id = 1'

export function epochStatement(db: D1Database): D1PreparedStatement {
  return db.prepare(EPOCH_SQL)
}

/** The key whose secret hashes to `sha256` (hex), with its subjects' grants and quotas. */
export function keyStatement(db: D1Database, sha256: string, most: number): D1PreparedStatement {
  return db
    .prepare(
      `SELECT k.id AS id, k.expires_at AS expires_at, k.revoked_at AS revoked_at, s.expires_at AS secret_expires_at, ${GRANTS_OF(KEY_SUBJECTS)} AS grants, ${QUOTAS_OF(KEY_SUBJECTS)} AS quotas FROM api_key_secrets s JOIN api_keys k ON k.id = s.key_id WHERE s.sha256 = ?1`,
    )
    .bind(sha256, most)
}

/** Stored key `id`'s revocation and expiry. */
export function issuerStatement(db: D1Database, id: string): D1PreparedStatement {
  return db.prepare('SELECT expires_at, revoked_at FROM api_keys WHERE id = ?1').bind(id)
}

/** The grants and quotas whose subject is one of `subjects`. */
export function rulesStatement(
  db: D1Database,
  subjects: readonly string[],
  most: number,
): D1PreparedStatement {
  return db
    .prepare(
      `SELECT ${GRANTS_OF(LISTED_SUBJECTS)} AS grants, ${QUOTAS_OF(LISTED_SUBJECTS)} AS quotas`,
    )
    .bind(JSON.stringify(subjects), most)
}

/**
 * The link revocations by time and the one revoking link `linkId` if any, each row with
 * `any_link`: whether any link is revoked by id. Always one row at least (all else null when none
 * matches), so that an isolate learns there are none and asks no more until the next change.
 */
export function linkStatement(
  db: D1Database,
  linkId: string | null,
  most: number,
): D1PreparedStatement {
  return db
    .prepare(
      "SELECT r.*, EXISTS (SELECT 1 FROM revocations WHERE kind = 'link') AS any_link FROM (SELECT 1) LEFT JOIN (SELECT * FROM revocations WHERE kind = 'links' OR (kind = 'link' AND link_id = ?1) ORDER BY id LIMIT ?2) AS r",
    )
    .bind(linkId, most)
}

// ---- usage and last use -----------------------------------------------------------------------

export interface UsageDelta {
  day: string
  principal: string
  origin: string
  minted: number
  refused: number
  bytesReserved: number
  bytesCompleted: number
  linksFollowed: number
}

/**
 * Adds counters and records last-used times, in one batch. A key's last use is written only when
 * the stored one is a minute older, however many isolates report it.
 */
export async function flushUsage(
  db: D1Database,
  usage: readonly UsageDelta[],
  lastUsed: ReadonlyMap<string, number>,
  resolutionMs: number,
  refusals: readonly Refusal[] = [],
): Promise<void> {
  const statements = usage.map((u) =>
    db
      .prepare(
        'INSERT INTO usage (day, principal, origin, minted, refused, bytes_reserved, bytes_completed, links_followed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (principal, day, origin) DO UPDATE SET minted = minted + excluded.minted, refused = refused + excluded.refused, bytes_reserved = bytes_reserved + excluded.bytes_reserved, bytes_completed = bytes_completed + excluded.bytes_completed, links_followed = links_followed + excluded.links_followed',
      )
      .bind(
        u.day,
        u.principal,
        u.origin,
        u.minted,
        u.refused,
        u.bytesReserved,
        u.bytesCompleted,
        u.linksFollowed,
      ),
  )
  for (const [id, at] of lastUsed) {
    statements.push(
      db
        .prepare(
          'UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1 AND (last_used_at IS NULL OR last_used_at <= ?2 - ?3)',
        )
        .bind(id, at, resolutionMs),
    )
  }
  for (const refusal of refusals) {
    // One record per key, reason and hour (AUDIT_REFUSAL_WINDOW_MS), counting them.
    const hour = Math.floor(refusal.at / AUDIT_REFUSAL_WINDOW_MS) * AUDIT_REFUSAL_WINDOW_MS
    statements.push(
      db
        .prepare(
          "INSERT INTO audit (id, at, actor, action, outcome, key_id, principal, count) VALUES (?1, ?2, ?3, 'auth.refused', 'refused', ?4, ?3, ?5) ON CONFLICT (id) DO UPDATE SET at = MAX(at, excluded.at), count = count + excluded.count",
        )
        .bind(
          `a_${hour.toString(36).padStart(9, '0')}_${refusal.reason}_${refusal.keyId}`,
          refusal.at,
          `apiKey:${refusal.keyId}`,
          refusal.keyId,
          refusal.count,
        ),
    )
  }
  if (statements.length > 0) await db.batch(statements)
}

/** Stored key `keyId` refused `count` times for `reason`, the last at `at`. */
export interface Refusal {
  keyId: string
  reason: 'revoked' | 'expired' | 'retired'
  count: number
  at: number
}
