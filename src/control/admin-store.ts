// The admin plane's SQL (src/services/admin/), over the schema in migrations/. Each admin write runs
// as one batch (a D1 transaction) with its audit record and the bump of the change epoch, so a
// change, its record and its epoch land together (every isolate of the data plane drops its caches
// at its next reading of the epoch: ./plane.ts). Values are always bound parameters, never spliced
// into SQL. Times are epoch milliseconds.

import {
  AUDIT_RETENTION_BATCH,
  AUDIT_RETENTION_DAYS,
  DAY_MS,
  IDEMPOTENCY_CLEANUP_BATCH,
  MAX_GRANTS_PER_SUBJECT,
} from '../limits'
import type { KeyRow, GrantRow, QuotaRow, RevocationRow, UsageRow } from './store'
import { AUDIT_ACTIONS } from './admin-schemas'

const BUMP_SQL =
  'UPDATE control_epoch SET epoch = epoch + 1, changed_at = ?1 WHERE id = 1 RETURNING epoch'

type AuditAction = (typeof AUDIT_ACTIONS)[number]

/** What an admin write records in the audit trail. `before` and `after` hold no secret. */
export interface AuditEntry {
  readonly id: string
  readonly actor: string
  readonly action: AuditAction
  /** The record written, the API key and the caller it concerns. */
  readonly target: string | null
  readonly keyId: string | null
  readonly principal: string | null
  readonly requestId: string | null
  readonly before?: unknown
  readonly after?: unknown
  readonly detail?: string | undefined
}

/** A condition the audit record is written under, over the record `id` (`?12`). */
type Guard =
  `EXISTS (SELECT 1 FROM ${'grants' | 'quotas' | 'revocations' | 'api_keys'} WHERE id = ?12)`

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value))

/**
 * The audit record of a write, written only when `guard` holds for `guardId` when it runs (a
 * record inserted, or still there to delete), so a write that changed nothing records nothing.
 */
function auditStatement(
  db: D1Database,
  entry: AuditEntry,
  nowMs: number,
  guard?: { sql: Guard; id: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO audit (id, at, actor, action, outcome, target, key_id, principal, count, request_id, before, after, detail) SELECT ?1, ?2, ?3, ?4, 'ok', ?5, ?6, ?7, 1, ?8, ?9, ?10, ?11${guard === undefined ? '' : ` WHERE ${guard.sql}`}`,
    )
    .bind(
      entry.id,
      nowMs,
      entry.actor,
      entry.action,
      entry.target,
      entry.keyId,
      entry.principal,
      entry.requestId,
      json(entry.before),
      json(entry.after),
      entry.detail ?? null,
      ...(guard === undefined ? [] : [guard.id]),
    )
}

/**
 * Runs `writes`, their audit record, the trail's retention (what is older than
 * AUDIT_RETENTION_DAYS, at most AUDIT_RETENTION_BATCH rows) and the epoch's bump as one
 * transaction; answers the new epoch and the writes' results.
 */
async function write(
  db: D1Database,
  nowMs: number,
  writes: D1PreparedStatement[],
  audit: D1PreparedStatement,
) {
  const results = await db.batch([
    ...writes,
    audit,
    db
      .prepare(
        'DELETE FROM audit WHERE id IN (SELECT id FROM audit WHERE at < ?1 ORDER BY at LIMIT ?2)',
      )
      .bind(nowMs - AUDIT_RETENTION_DAYS * DAY_MS, AUDIT_RETENTION_BATCH),
    db.prepare(BUMP_SQL).bind(nowMs),
  ])
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
  audit: AuditEntry,
) {
  return write(
    db,
    nowMs,
    [
      db
        .prepare('INSERT INTO api_keys (id, label, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)')
        .bind(key.id, key.label, nowMs, key.expiresAt),
      db
        .prepare(
          'INSERT INTO api_key_secrets (sha256, key_id, prefix, created_at) VALUES (?1, ?2, ?3, ?4)',
        )
        .bind(key.secret.sha256, key.id, key.secret.prefix, nowMs),
      ...grants.map((grant) => insertGrantStatement(db, grant, nowMs)),
    ],
    auditStatement(db, audit, nowMs),
  )
}

/** Sets key `id`'s label and expiry (when it is still there). */
export function updateKey(
  db: D1Database,
  id: string,
  fields: { label: string | null; expiresAt: number | null },
  nowMs: number,
  audit: AuditEntry,
) {
  return write(
    db,
    nowMs,
    [
      db
        .prepare('UPDATE api_keys SET label = ?2, expires_at = ?3 WHERE id = ?1')
        .bind(id, fields.label, fields.expiresAt),
    ],
    auditStatement(db, audit, nowMs, {
      sql: 'EXISTS (SELECT 1 FROM api_keys WHERE id = ?12)',
      id,
    }),
  )
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
  audit: AuditEntry,
) {
  return write(
    db,
    nowMs,
    [
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
    ],
    auditStatement(db, audit, nowMs),
  )
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
  audit: AuditEntry,
) {
  return write(
    db,
    nowMs,
    [insertGrantStatement(db, grant, nowMs)],
    auditStatement(db, audit, nowMs),
  )
}

/** The grants of any of `subjects`, by id (at most as many as they may hold). */
export async function selectGrantsOf(
  db: D1Database,
  subjects: readonly string[],
): Promise<GrantRow[]> {
  const { results } = await db
    .prepare(
      'SELECT * FROM grants WHERE subject IN (SELECT value FROM json_each(?1)) ORDER BY id LIMIT ?2',
    )
    .bind(JSON.stringify(subjects), subjects.length * MAX_GRANTS_PER_SUBJECT)
    .all<GrantRow>()
  return results
}

export async function selectGrant(db: D1Database, id: string): Promise<GrantRow | null> {
  return db.prepare('SELECT * FROM grants WHERE id = ?1').bind(id).first<GrantRow>()
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

export function insertQuota(
  db: D1Database,
  quota: Omit<QuotaRow, 'created_at'>,
  nowMs: number,
  audit: AuditEntry,
) {
  return write(
    db,
    nowMs,
    [
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
    ],
    auditStatement(db, audit, nowMs),
  )
}

/**
 * Sets quota `id`'s limits in place: its id, subject, origin and window stay, and so does every
 * counter it has (a counter is named by the quota's id and the caller, src/services/quotas.ts).
 */
export function updateQuota(
  db: D1Database,
  id: string,
  limits: Pick<QuotaRow, 'max_objects' | 'max_bytes'>,
  nowMs: number,
  audit: AuditEntry,
) {
  return write(
    db,
    nowMs,
    [
      db
        .prepare('UPDATE quotas SET max_objects = ?2, max_bytes = ?3 WHERE id = ?1')
        .bind(id, limits.max_objects, limits.max_bytes),
    ],
    auditStatement(db, audit, nowMs, { sql: 'EXISTS (SELECT 1 FROM quotas WHERE id = ?12)', id }),
  )
}

export async function selectQuota(db: D1Database, id: string): Promise<QuotaRow | null> {
  return db.prepare('SELECT * FROM quotas WHERE id = ?1').bind(id).first<QuotaRow>()
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
  entry: AuditEntry,
): Promise<{ epoch: number; since: number | undefined }> {
  // Recorded only when this revocation was.
  const audit = auditStatement(db, entry, nowMs, {
    sql: 'EXISTS (SELECT 1 FROM revocations WHERE id = ?12)',
    id: revocation.id,
  })
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
    const { epoch } = await write(db, nowMs, [insert], audit)
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
  const { epoch, results } = await write(db, nowMs, writes, audit)
  const before = results[0]!.results[0] as { since: number | null } | undefined
  return { epoch, since: before?.since ?? undefined }
}

export async function selectRevocation(db: D1Database, id: string): Promise<RevocationRow | null> {
  return db.prepare('SELECT * FROM revocations WHERE id = ?1').bind(id).first<RevocationRow>()
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

/**
 * Deletes record `id` of `table`, recording it while it is there; answers whether there was one.
 * A key's revocation undone makes the key stand again: it authenticates within the control plane's
 * bound (its other revocations, if any, kept it revoked: there is at most one).
 */
export async function deleteRecord(
  db: D1Database,
  table: 'grants' | 'quotas' | 'revocations',
  id: string,
  nowMs: number,
  audit: AuditEntry,
) {
  const before = [
    auditStatement(db, audit, nowMs, { sql: `EXISTS (SELECT 1 FROM ${table} WHERE id = ?12)`, id }),
  ]
  if (table === 'revocations') {
    before.push(
      db
        .prepare(
          "UPDATE api_keys SET revoked_at = NULL WHERE id = (SELECT key_id FROM revocations WHERE id = ?1 AND kind = 'key')",
        )
        .bind(id),
    )
  }
  const results = await db.batch([
    ...before,
    db.prepare(`DELETE FROM ${table} WHERE id = ?1`).bind(id),
    db.prepare(BUMP_SQL).bind(nowMs),
  ])
  return { deleted: results.at(-2)!.meta.changes > 0 }
}

/** Usage of any of `principals` (every caller's: null) from day `from` to day `to` (inclusive). */
export async function selectUsage(
  db: D1Database,
  principals: readonly string[] | null,
  from: string,
  to: string,
): Promise<UsageRow[]> {
  const { results } = await db
    .prepare(
      'SELECT * FROM usage WHERE (?1 IS NULL OR principal IN (SELECT value FROM json_each(?1))) AND day >= ?2 AND day <= ?3 ORDER BY day, origin, principal',
    )
    .bind(principals === null ? null : JSON.stringify(principals), from, to)
    .all<UsageRow>()
  return results
}

/** What `selectTopUsage` ranks by: a usage column. */
const RANKED = {
  minted: 'minted',
  bytes: 'bytes_reserved',
  completed: 'bytes_completed',
  refused: 'refused',
} as const

/**
 * The `limit` callers with the most of `by` from day `from` to day `to`, with their totals. A
 * followed link's count (`link:<hash>`) names no caller: left out.
 */
export async function selectTopUsage(
  db: D1Database,
  by: keyof typeof RANKED,
  from: string,
  to: string,
  limit: number,
): Promise<Omit<UsageRow, 'day' | 'origin'>[]> {
  const { results } = await db
    .prepare(
      `SELECT principal, SUM(minted) AS minted, SUM(refused) AS refused, SUM(bytes_reserved) AS bytes_reserved, SUM(bytes_completed) AS bytes_completed, SUM(links_followed) AS links_followed FROM usage WHERE day >= ?1 AND day <= ?2 AND principal NOT LIKE 'link:%' GROUP BY principal HAVING SUM(${RANKED[by]}) > 0 ORDER BY SUM(${RANKED[by]}) DESC, principal LIMIT ?3`,
    )
    .bind(from, to, limit)
    .all<Omit<UsageRow, 'day' | 'origin'>>()
  return results
}

// ---- the configuration as one document ---------------------------------------------------------

/**
 * Every key (its secrets' SHA-256 too when `withHashes`: `[prefix, created_at, expires_at,
 * sha256]`), grant, quota and revocation, by id, read in one transaction.
 */
export async function selectConfiguration(db: D1Database, withHashes: boolean) {
  const secret = withHashes
    ? 'prefix, created_at, expires_at, sha256'
    : 'prefix, created_at, expires_at'
  const [keys, grants, quotas, revocations] = await db.batch([
    db.prepare(
      `SELECT k.id, k.label, k.created_at, k.expires_at, k.revoked_at, k.last_used_at, (SELECT json_group_array(json_array(${secret})) FROM (SELECT * FROM api_key_secrets WHERE key_id = k.id ORDER BY created_at)) AS secrets FROM api_keys k ORDER BY k.id`,
    ),
    db.prepare('SELECT * FROM grants ORDER BY id'),
    db.prepare('SELECT * FROM quotas ORDER BY id'),
    db.prepare('SELECT * FROM revocations ORDER BY id'),
  ])
  return {
    keys: keys!.results as KeyRow[],
    grants: grants!.results as GrantRow[],
    quotas: quotas!.results as QuotaRow[],
    revocations: revocations!.results as RevocationRow[],
  }
}

/** The ids of `ids` that name a stored key. */
export async function storedKeyIds(db: D1Database, ids: readonly string[]): Promise<Set<string>> {
  const { results } = await db
    .prepare('SELECT id FROM api_keys WHERE id IN (SELECT value FROM json_each(?1))')
    .bind(JSON.stringify(ids))
    .all<{ id: string }>()
  return new Set(results.map((row) => row.id))
}

/** What an import writes: rows as stored, each key with its secrets. */
export interface ImportedRecords {
  keys: readonly {
    row: Omit<KeyRow, 'secrets' | 'last_used_at'>
    secrets: readonly {
      sha256: string
      prefix: string
      created_at: number
      expires_at: number | null
    }[]
  }[]
  grants: readonly GrantRow[]
  quotas: readonly QuotaRow[]
  revocations: readonly RevocationRow[]
}

/**
 * Adds each record whose id is not held (a quota, neither its id nor its subject and origin), in
 * one transaction with its audit record; a record held already is left as it is. Answers how many
 * of each were added.
 */
export async function importRecords(
  db: D1Database,
  records: ImportedRecords,
  nowMs: number,
  audit: AuditEntry,
) {
  const groups = {
    keys: records.keys.map(({ row }) =>
      db
        .prepare(
          'INSERT OR IGNORE INTO api_keys (id, label, created_at, expires_at, revoked_at) VALUES (?1, ?2, ?3, ?4, ?5)',
        )
        .bind(row.id, row.label, row.created_at, row.expires_at, row.revoked_at),
    ),
    secrets: records.keys.flatMap(({ row, secrets }) =>
      secrets.map((secret) =>
        db
          .prepare(
            'INSERT OR IGNORE INTO api_key_secrets (sha256, key_id, prefix, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)',
          )
          .bind(secret.sha256, row.id, secret.prefix, secret.created_at, secret.expires_at),
      ),
    ),
    grants: records.grants.map((grant) =>
      db
        .prepare(
          'INSERT OR IGNORE INTO grants (id, subject, body, created_at) VALUES (?1, ?2, ?3, ?4)',
        )
        .bind(grant.id, grant.subject, grant.body, grant.created_at),
    ),
    quotas: records.quotas.map((quota) =>
      db
        .prepare(
          'INSERT OR IGNORE INTO quotas (id, subject, origin, max_objects, max_bytes, window_s, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)',
        )
        .bind(
          quota.id,
          quota.subject,
          quota.origin,
          quota.max_objects,
          quota.max_bytes,
          quota.window_s,
          quota.created_at,
        ),
    ),
    revocations: records.revocations.map((revocation) =>
      db
        .prepare(`INSERT OR IGNORE ${INSERT_REVOCATION_SQL.slice('INSERT '.length)}`)
        .bind(
          revocation.id,
          revocation.kind,
          revocation.key_id,
          revocation.link_id,
          revocation.issued_before,
          revocation.origin,
          revocation.principal,
          revocation.created_at,
        ),
    ),
  }
  const { results } = await write(
    db,
    nowMs,
    Object.values(groups).flat(),
    auditStatement(db, audit, nowMs),
  )
  let at = 0
  const added = (statements: readonly D1PreparedStatement[]) => {
    const changed = results.slice(at, at + statements.length)
    at += statements.length
    return changed.reduce((n, result) => n + result.meta.changes, 0)
  }
  const keys = added(groups.keys)
  added(groups.secrets)
  return {
    keys,
    grants: added(groups.grants),
    quotas: added(groups.quotas),
    revocations: added(groups.revocations),
  }
}

// ---- the audit trail ----------------------------------------------------------------------------

export interface AuditRow {
  id: string
  at: number
  actor: string
  action: AuditAction
  outcome: 'ok' | 'refused'
  target: string | null
  key_id: string | null
  principal: string | null
  count: number
  request_id: string | null
  before: string | null
  after: string | null
  detail: string | null
}

/** What a page of the audit trail is filtered by; null: anything. Times are epoch ms. */
export interface AuditFilter {
  /** The actor, or the caller an event concerns. */
  principal: string | null
  keyId: string | null
  /** `key.create`, or `key` for every `key.…` action. */
  action: string | null
  outcome: string | null
  from: number
  to: number
}

/** Events newest first, from just before `after` (its time and id), `limit` of them. */
export async function selectAudit(
  db: D1Database,
  filter: AuditFilter,
  after: { at: number; id: string } | null,
  limit: number,
): Promise<AuditRow[]> {
  const { results } = await db
    .prepare(
      "SELECT * FROM audit WHERE (?1 IS NULL OR actor = ?1 OR principal = ?1) AND (?2 IS NULL OR key_id = ?2) AND (?3 IS NULL OR action = ?3 OR action LIKE ?3 || '.%') AND (?4 IS NULL OR outcome = ?4) AND at >= ?5 AND at <= ?6 AND (?7 IS NULL OR at < ?7 OR (at = ?7 AND id < ?8)) ORDER BY at DESC, id DESC LIMIT ?9",
    )
    .bind(
      filter.principal,
      filter.keyId,
      filter.action,
      filter.outcome,
      filter.from,
      filter.to,
      after?.at ?? null,
      after?.id ?? '',
      limit,
    )
    .all<AuditRow>()
  return results
}

// ---- Idempotency-Key ----------------------------------------------------------------------------

export interface IdempotencyRow {
  request_sha256: string
  /** Null while the first request is being answered. */
  status: number | null
  answer: string | null
  expires_at: number
}

/**
 * Claims key `keySha256` of `actor` for a request (`requestSha256`): inserted unless a record of
 * it stands (one past its expiry is replaced), and expired records of anyone's deleted, a few at a
 * time. Answers the record that stands: this claim's (status null, claimed: true), or the one
 * before it.
 */
export async function claimIdempotency(
  db: D1Database,
  actor: string,
  keySha256: string,
  requestSha256: string,
  nowMs: number,
  expiresAt: number,
): Promise<{ claimed: boolean; row: IdempotencyRow }> {
  const results = await db.batch([
    db
      .prepare(
        'DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency WHERE expires_at <= ?1 LIMIT ?2)',
      )
      .bind(nowMs, IDEMPOTENCY_CLEANUP_BATCH),
    db
      .prepare(
        'INSERT INTO idempotency (actor, key_sha256, request_sha256, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (actor, key_sha256) DO UPDATE SET request_sha256 = excluded.request_sha256, status = NULL, answer = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at WHERE idempotency.expires_at <= excluded.created_at',
      )
      .bind(actor, keySha256, requestSha256, nowMs, expiresAt),
    db
      .prepare(
        'SELECT request_sha256, status, answer, expires_at FROM idempotency WHERE actor = ?1 AND key_sha256 = ?2',
      )
      .bind(actor, keySha256),
  ])
  return {
    claimed: results[1]!.meta.changes > 0,
    row: results[2]!.results[0] as IdempotencyRow,
  }
}

/** The answer to the request that claimed the key, for its retries. */
export async function keepIdempotent(
  db: D1Database,
  actor: string,
  keySha256: string,
  status: number,
  answer: string,
): Promise<void> {
  await db
    .prepare('UPDATE idempotency SET status = ?3, answer = ?4 WHERE actor = ?1 AND key_sha256 = ?2')
    .bind(actor, keySha256, status, answer)
    .run()
}

/** Lets the key go: its request kept no answer (it failed, or never ran), so a retry runs again. */
export async function releaseIdempotency(
  db: D1Database,
  actor: string,
  keySha256: string,
): Promise<void> {
  await db
    .prepare('DELETE FROM idempotency WHERE actor = ?1 AND key_sha256 = ?2 AND status IS NULL')
    .bind(actor, keySha256)
    .run()
}
