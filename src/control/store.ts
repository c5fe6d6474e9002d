// Every SQL statement of the control plane, over the schema in migrations/. Values are always bound
// parameters, never spliced into SQL. Times are epoch milliseconds. Each admin write runs as one
// batch (a D1 transaction) with the bump of the change epoch, so a change and its epoch land
// together (see ./plane.ts).

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
const BUMP_SQL =
  'UPDATE control_epoch SET epoch = epoch + 1, changed_at = ?1 WHERE id = 1 RETURNING epoch'

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

/** Runs `writes` and the epoch's bump as one transaction; answers the new epoch. */
async function write(db: D1Database, nowMs: number, writes: D1PreparedStatement[]) {
  const results = await db.batch([...writes, db.prepare(BUMP_SQL).bind(nowMs)])
  const bumped = results.at(-1)!.results[0] as { epoch: number }
  return { epoch: bumped.epoch, results }
}

// ---- keys -------------------------------------------------------------------------------------

const KEY_COLUMNS =
  'k.id, k.label, k.created_at, k.expires_at, k.revoked_at, k.last_used_at, (SELECT json_group_array(json_array(prefix, created_at, expires_at)) FROM (SELECT * FROM api_key_secrets WHERE key_id = k.id ORDER BY created_at)) AS secrets'

export interface NewSecret {
  sha256: string
  prefix: string
}

export function insertKey(
  db: D1Database,
  key: { id: string; label: string | null; expiresAt: number | null; secret: NewSecret },
  grants: readonly { id: string; subject: string; body: string }[],
  nowMs: number,
) {
  return write(db, nowMs, [
    db
      .prepare('INSERT INTO api_keys (id, label, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)')
      .bind(key.id, key.label, nowMs, key.expiresAt),
    db
      .prepare(
        'INSERT INTO api_key_secrets (sha256, key_id, prefix, created_at) VALUES (?1, ?2, ?3, ?4)',
      )
      .bind(key.secret.sha256, key.id, key.secret.prefix, nowMs),
    ...grants.map((grant) => insertGrantStatement(db, grant, nowMs)),
  ])
}

export async function keyExists(db: D1Database, id: string): Promise<boolean> {
  return (await db.prepare('SELECT 1 FROM api_keys WHERE id = ?1').bind(id).first()) !== null
}

export async function selectKey(db: D1Database, id: string): Promise<KeyRow | null> {
  return db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.id = ?1`).bind(id).first()
}

/** Keys by id, from just after `after`, `limit` of them. */
export async function selectKeys(db: D1Database, after: string, limit: number): Promise<KeyRow[]> {
  const { results } = await db
    .prepare(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.id > ?1 ORDER BY k.id LIMIT ?2`)
    .bind(after, limit)
    .all<KeyRow>()
  return results
}

/**
 * A new secret for key `id`; every current secret of it stops working at `retireAt` (or sooner,
 * if it would already).
 */
export function rotateKey(
  db: D1Database,
  id: string,
  secret: NewSecret,
  retireAt: number,
  nowMs: number,
) {
  return write(db, nowMs, [
    db
      .prepare(
        'UPDATE api_key_secrets SET expires_at = MIN(COALESCE(expires_at, ?2), ?2) WHERE key_id = ?1',
      )
      .bind(id, retireAt),
    db
      .prepare(
        'INSERT INTO api_key_secrets (sha256, key_id, prefix, created_at) VALUES (?1, ?2, ?3, ?4)',
      )
      .bind(secret.sha256, id, secret.prefix, nowMs),
  ])
}

// ---- grants -----------------------------------------------------------------------------------

function insertGrantStatement(
  db: D1Database,
  grant: { id: string; subject: string; body: string },
  nowMs: number,
) {
  return db
    .prepare('INSERT INTO grants (id, subject, body, created_at) VALUES (?1, ?2, ?3, ?4)')
    .bind(grant.id, grant.subject, grant.body, nowMs)
}

export function insertGrant(
  db: D1Database,
  grant: { id: string; subject: string; body: string },
  nowMs: number,
) {
  return write(db, nowMs, [insertGrantStatement(db, grant, nowMs)])
}

export async function countGrants(db: D1Database, subject: string): Promise<number> {
  const row = await db
    .prepare('SELECT COUNT(*) AS n FROM grants WHERE subject = ?1')
    .bind(subject)
    .first<{ n: number }>()
  return row?.n ?? 0
}

/** Grants by id, from just after `after`, of one subject or all. */
export async function selectGrants(
  db: D1Database,
  subject: string | null,
  after: string,
  limit: number,
): Promise<GrantRow[]> {
  const { results } = await db
    .prepare(
      'SELECT * FROM grants WHERE id > ?1 AND (?2 IS NULL OR subject = ?2) ORDER BY id LIMIT ?3',
    )
    .bind(after, subject, limit)
    .all<GrantRow>()
  return results
}

// ---- quotas -----------------------------------------------------------------------------------

export function insertQuota(db: D1Database, quota: Omit<QuotaRow, 'created_at'>, nowMs: number) {
  return write(db, nowMs, [
    db
      .prepare(
        'INSERT INTO quotas (id, subject, origin, max_objects, max_bytes, window_s, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)',
      )
      .bind(
        quota.id,
        quota.subject,
        quota.origin,
        quota.max_objects,
        quota.max_bytes,
        quota.window_s,
        nowMs,
      ),
  ])
}

export async function quotaExists(
  db: D1Database,
  subject: string,
  origin: string,
): Promise<boolean> {
  const row = await db
    .prepare('SELECT 1 FROM quotas WHERE subject = ?1 AND origin = ?2')
    .bind(subject, origin)
    .first()
  return row !== null
}

// ---- revocations ------------------------------------------------------------------------------

// When the key or link a revocation names was revoked already (one row, null when it was not), and
// the record inserted only when it was not: in one batch, so two admins at once record it once.
const KEY_REVOKED_SQL = 'SELECT (SELECT revoked_at FROM api_keys WHERE id = ?1) AS since'
const LINK_REVOKED_SQL =
  "SELECT (SELECT MIN(created_at) FROM revocations WHERE link_id = ?1 AND kind = 'link') AS since"
const INSERT_REVOCATION_SQL =
  'INSERT INTO revocations (id, kind, key_id, link_id, issued_before, origin, principal, created_at) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8'
const UNLESS_KEY_REVOKED =
  ' WHERE NOT EXISTS (SELECT 1 FROM api_keys WHERE id = ?3 AND revoked_at IS NOT NULL)'
const UNLESS_LINK_REVOKED =
  " WHERE NOT EXISTS (SELECT 1 FROM revocations WHERE link_id = ?4 AND kind = 'link')"

/**
 * Records a revocation; a key's also marks the key revoked. A key or a link revoked already is
 * not recorded again: `since` answers when it was (undefined when this revocation is the first).
 */
export async function insertRevocation(
  db: D1Database,
  revocation: Omit<RevocationRow, 'created_at'>,
  nowMs: number,
): Promise<{ epoch: number; since: number | undefined }> {
  const { kind } = revocation
  const insert = db
    .prepare(
      INSERT_REVOCATION_SQL +
        (kind === 'key' ? UNLESS_KEY_REVOKED : kind === 'link' ? UNLESS_LINK_REVOKED : ''),
    )
    .bind(
      revocation.id,
      kind,
      revocation.key_id,
      revocation.link_id,
      revocation.issued_before,
      revocation.origin,
      revocation.principal,
      nowMs,
    )
  if (kind === 'links') {
    const { epoch } = await write(db, nowMs, [insert])
    return { epoch, since: undefined }
  }
  const id = kind === 'key' ? revocation.key_id : revocation.link_id
  const writes = [db.prepare(kind === 'key' ? KEY_REVOKED_SQL : LINK_REVOKED_SQL).bind(id), insert]
  if (kind === 'key') {
    writes.push(
      db
        .prepare('UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL')
        .bind(id, nowMs),
    )
  }
  const { epoch, results } = await write(db, nowMs, writes)
  const before = results[0]!.results[0] as { since: number | null } | undefined
  return { epoch, since: before?.since ?? undefined }
}

export async function countLinkRules(db: D1Database): Promise<number> {
  const row = await db
    .prepare("SELECT COUNT(*) AS n FROM revocations WHERE kind = 'links'")
    .first<{ n: number }>()
  return row?.n ?? 0
}

// ---- records of any kind ----------------------------------------------------------------------

/** The records a page of the admin API lists plainly: by id, from just after `after`. */
type Listed = { quotas: QuotaRow; revocations: RevocationRow }

/** `limit` records of `table` by id, from just after `after`. */
export async function selectPage<TTable extends keyof Listed>(
  db: D1Database,
  table: TTable,
  after: string,
  limit: number,
): Promise<Listed[TTable][]> {
  const { results } = await db
    .prepare(`SELECT * FROM ${table} WHERE id > ?1 ORDER BY id LIMIT ?2`)
    .bind(after, limit)
    .all<Listed[TTable]>()
  return results
}

/** Deletes record `id` of `table`; answers whether there was one. */
export async function deleteRecord(
  db: D1Database,
  table: 'grants' | 'quotas',
  id: string,
  nowMs: number,
) {
  const { epoch, results } = await write(db, nowMs, [
    db.prepare(`DELETE FROM ${table} WHERE id = ?1`).bind(id),
  ])
  return { epoch, deleted: results[0]!.meta.changes > 0 }
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
  if (statements.length > 0) await db.batch(statements)
}

/** Usage of any of `principals` from day `from` to day `to` (YYYY-MM-DD, inclusive). */
export async function selectUsage(
  db: D1Database,
  principals: readonly string[],
  from: string,
  to: string,
): Promise<UsageRow[]> {
  const { results } = await db
    .prepare(
      'SELECT * FROM usage WHERE principal IN (SELECT value FROM json_each(?1)) AND day >= ?2 AND day <= ?3 ORDER BY day, origin, principal',
    )
    .bind(JSON.stringify(principals), from, to)
    .all<UsageRow>()
  return results
}
