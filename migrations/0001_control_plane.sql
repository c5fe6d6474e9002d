-- waybill's control plane (issue #23): API keys (hashes only), grants, revocations, quotas and
-- usage, changed at run time through the admin API (/admin/v1). Times are epoch milliseconds.
-- Applied by `wrangler d1 migrations apply WAYBILL_DB` (npm start does it locally, the tests too).

-- An API key: the caller `api-key:<id>`, which grants name as "apiKey:<id>".
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  label TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  revoked_at INTEGER,
  last_used_at INTEGER
);

-- A key's secrets, as SHA-256 hashes only: one, or two while a rotation overlaps (the old one then
-- has an expiry). `prefix` is what lists show of it ("wb_Ab3x"), never enough to use it.
CREATE TABLE api_key_secrets (
  sha256 TEXT PRIMARY KEY,
  key_id TEXT NOT NULL REFERENCES api_keys (id),
  prefix TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER
);
CREATE INDEX api_key_secrets_by_key ON api_key_secrets (key_id);

-- A grant, as WAYBILL_GRANTS holds one (canonical JSON, checked by the same schema), and its "to".
CREATE TABLE grants (
  id TEXT PRIMARY KEY,
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX grants_by_subject ON grants (subject);

-- Upload quotas: objects and bytes per window, for each caller a subject names, on one origin.
CREATE TABLE quotas (
  id TEXT PRIMARY KEY,
  subject TEXT NOT NULL,
  origin TEXT NOT NULL,
  max_objects INTEGER,
  max_bytes INTEGER,
  window_s INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (subject, origin)
);

-- Revocations: a key, a link by its id, or links by issue time (and origin, caller).
CREATE TABLE revocations (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('key', 'link', 'links')),
  key_id TEXT,
  link_id TEXT,
  issued_before INTEGER,
  origin TEXT,
  principal TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX revocations_by_link ON revocations (link_id);
CREATE INDEX revocations_by_kind ON revocations (kind);

-- Usage by day (UTC), caller and origin. A followed link counts under `link:<issuer hash>`, the
-- only name of its issuer a link carries.
CREATE TABLE usage (
  day TEXT NOT NULL,
  principal TEXT NOT NULL,
  origin TEXT NOT NULL,
  minted INTEGER NOT NULL DEFAULT 0,
  refused INTEGER NOT NULL DEFAULT 0,
  bytes_reserved INTEGER NOT NULL DEFAULT 0,
  bytes_completed INTEGER NOT NULL DEFAULT 0,
  links_followed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (principal, day, origin)
);

-- Bumped in the same batch as every admin write: each isolate reads it at most once a second and
-- drops its caches when it moved, so a change reaches every isolate within seconds.
CREATE TABLE control_epoch (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  epoch INTEGER NOT NULL,
  changed_at INTEGER NOT NULL
);
INSERT INTO control_epoch (id, epoch, changed_at) VALUES (1, 0, 0);
