-- The admin plane (issue #31): an audit trail you can query, and idempotent admin writes.

-- The audit trail the admin API answers (GET /admin/v1/audit): every admin write, in the same
-- transaction as the write, and the data plane's refusals of revoked or expired keys, one row per
-- key, reason and hour (`count` of them, `at` the last). Kept AUDIT_RETENTION_DAYS: each admin
-- write deletes what is older. Never a key, a secret or a hash: `before` and `after` are the
-- records as the admin API shows them.
CREATE TABLE audit (
  id TEXT PRIMARY KEY,
  at INTEGER NOT NULL,
  -- Who: `admin:<token id>`, `admin:access:<email>`, or the caller refused (`apiKey:<id>`).
  actor TEXT NOT NULL,
  -- What: `key.create`, `grant.delete`, …, `auth.refused`.
  action TEXT NOT NULL,
  -- `ok`, or `refused`.
  outcome TEXT NOT NULL,
  -- The record written (`k_…`, `g_…`, `q_…`, `r_…`), the API key and the caller it concerns.
  target TEXT,
  key_id TEXT,
  principal TEXT,
  count INTEGER NOT NULL DEFAULT 1,
  request_id TEXT,
  before TEXT,
  after TEXT,
  detail TEXT
);
CREATE INDEX audit_by_at ON audit (at, id);
CREATE INDEX audit_by_key ON audit (key_id, at);
CREATE INDEX audit_by_principal ON audit (principal, at);
CREATE INDEX audit_by_actor ON audit (actor, at);

-- Idempotency-Key on the admin API's POSTs (Stripe's semantics): the first answer to a key, for
-- the same admin, replayed for the same request and refused (409) for another, until it expires.
-- The key is stored as its SHA-256 only, and the answer sealed under a key derived from it: an
-- answer that shows a secret once (a new API key) cannot be read from the database alone.
CREATE TABLE idempotency (
  actor TEXT NOT NULL,
  key_sha256 TEXT NOT NULL,
  -- SHA-256 of the method, path and canonical JSON body: what "the same request" means.
  request_sha256 TEXT NOT NULL,
  -- NULL while the first request is being answered.
  status INTEGER,
  answer TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (actor, key_sha256)
);
CREATE INDEX idempotency_by_expiry ON idempotency (expires_at);
