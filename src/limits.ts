/** Limits and defaults, in one place (the cores' protocol limits included). Suffixes name the unit. */

import {
  MAX_EXPIRES_S,
  MAX_KEY_BYTES,
  MAX_PARTS,
  MIN_EXPIRES_S,
  MIN_PART_SIZE_BYTES,
} from './core/limits'

export { MAX_EXPIRES_S, MAX_KEY_BYTES, MAX_PARTS, MIN_EXPIRES_S, MIN_PART_SIZE_BYTES }
export const DEFAULT_EXPIRES_S = 900

export const DEFAULT_MAX_BATCH = 10_000
/** A hard ceiling for `WAYBILL_MAX_BATCH`, so a typo cannot ask one request to sign millions. */
export const MAX_BATCH_CEILING = 100_000
/** `POST /v1/sign` bodies (up to 100,000 keys); every other JSON body is far smaller. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024
export const MAX_SMALL_BODY_BYTES = 1024 * 1024
/**
 * JSON values (members and elements) a body may hold before it is parsed: far more than any
 * request needs (`POST /v1/sign` allows 12 per entry of its batch limit), far fewer than a hostile
 * 16 MiB body of a million members, which would cost hundreds of MiB once parsed.
 */
export const MAX_JSON_VALUES = 100_000
export const JSON_VALUES_PER_ITEM = 12
/** At least this for `POST /v1/sign`: room to say which batch is too long, past the ceiling too. */
export const MAX_SIGN_JSON_VALUES = 2 * MAX_BATCH_CEILING
/** Field errors collected per request: checking stops there, so a hostile body costs O(cap). */
export const MAX_REPORTED_ERRORS = 100
/** Keys a refusal's one sentence names (each field error names its own). */
export const MAX_NAMED_KEYS = 3

/** Items signed per step when streaming NDJSON: large enough to amortize, small enough to flush often. */
export const STREAM_CHUNK_ITEMS = 500

/** Longest signing window (`signingWindow`): URLs stay byte-identical for at most a day. */
export const MAX_SIGNING_WINDOW_S = 86_400

/** A response carrying URLs may be cached only while the URLs in it still have this much life. */
export const CACHE_MARGIN_S = 60

/** Signed links: the longest a link may work, the life of the URL a link redirects to, and the
 * default life of a link when the request gives none (each capped by the grant). */
export const MAX_LINK_EXPIRES_S = 366 * 86_400
export const LINK_URL_EXPIRES_S = 300
export const DEFAULT_LINK_EXPIRES_S = 86_400
/**
 * Most uses a counted link (`maxUses`) may allow: a ceiling, so that a typo cannot ask for
 * millions. Each counted visit is a call to the link's one Durable Object; a link meant for more
 * visitors than this is an uncounted one.
 */
export const MAX_LINK_USES = 10_000
/**
 * How long past its link's end a link's use counter keeps its count before its alarm deletes it:
 * the counter measures the link's life by its own clock, which may differ from the Worker's.
 */
export const LINK_USES_KEPT_S = 300
/** The shortest secret WAYBILL_TOKEN_SECRETS takes. */
export const MIN_TOKEN_SECRET_CHARS = 32

/** Longest file name for `download`/`inline` (file systems hold 255). */
export const MAX_FILENAME_CHARS = 255
/** A sanitized upload file name's most UTF-8 bytes, in a key chosen from a grant's `uploadKey`. */
export const MAX_FILENAME_BYTES = 200

/** Longest response-override value accepted (S3 itself limits header size to 8 KiB in total). */
export const MAX_OVERRIDE_CHARS = 1024
export const MAX_VERSION_ID_CHARS = 1024

/** Bearer tokens longer than this are refused before any parsing. */
export const MAX_TOKEN_BYTES = 8192
/** Longest token `sub` accepted: it becomes the caller's id in logs and `{sub}` prefixes. */
export const MAX_SUBJECT_CHARS = 256
/** Leeway for `exp` and `nbf` when an auth config gives none. */
export const DEFAULT_CLOCK_TOLERANCE_S = 60

/** Remote JWKS: fetch timeout, response size cap, how long keys are trusted, and the least time
 * between two fetches (so unknown `kid`s cannot make waybill hammer the issuer). */
export const JWKS_TIMEOUT_MS = 5_000
export const JWKS_MAX_BYTES = 256 * 1024
export const JWKS_MAX_AGE_MS = 10 * 60_000
export const JWKS_COOLDOWN_MS = 30_000
/** Retry-After when the JWKS cannot be fetched. */
export const JWKS_RETRY_AFTER_S = 30

/** Retry-After for a rate-limited caller: the Workers Rate Limiting binding counts per 10 or 60 s. */
export const RATE_LIMIT_RETRY_AFTER_S = 60

export const DEFAULT_CORS_MAX_AGE_S = 600

/** The Worker's own S3 API calls: time limit, retries of 5xx/429/network failures, parallel calls. */
export const S3_TIMEOUT_MS = 10_000
export const S3_RETRIES = 2
export const S3_CONCURRENCY = 6
/** ListObjectsV2 and ListParts return at most this many entries per page. */
export const S3_LIST_PAGE_MAX = 1000
/** R2's binding lists at most this many entries per call. */
export const R2_LIST_PAGE_MAX = 1000
/** Entries one `GET /v1/list` may return, across pages and prefixes. */
export const MAX_LIST_LIMIT = 10_000
export const DEFAULT_LIST_LIMIT = 1000
export const MAX_LIST_PREFIXES = 50

/** S3's upload limits: one PUT, one object, parts, and user metadata (x-amz-meta-*) in total. */
export const MAX_PUT_BYTES = 5 * 1024 ** 3
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 4
export const MAX_PART_SIZE_BYTES = 5 * 1024 ** 3
export const MAX_METADATA_BYTES = 2048
/**
 * R2 origins, whose uploads go through the Worker: the most one request body may carry by default
 * (the Workers Free and Pro plans' request limit, 100 MB) and at most (Enterprise's, 500 MB).
 */
export const DEFAULT_WORKER_BODY_BYTES = 100_000_000
export const MAX_WORKER_BODY_BYTES = 500_000_000
/** A browser form's fields, before its file: what the Worker reads of them at most. */
export const MAX_FORM_HEAD_BYTES = 64 * 1024
/** The longest an R2 origin may keep an object in the edge cache (its `edgeCacheTtl`). */
export const MAX_EDGE_CACHE_TTL_S = 7 * 86_400
/**
 * How long a PUT or POST upload's receipt can be checked after its URL or policy expires: an
 * upload that started in time may take that long to finish (a 5 GiB PUT at 12 Mbit/s).
 */
export const RECEIPT_GRACE_S = 3600
/** Part URLs signed with CreateMultipartUpload's answer; more come from /v1/uploads/multipart/parts. */
export const FIRST_PART_URLS = 100

/**
 * RSA signatures one request may cost (`WAYBILL_MAX_RSA_SIGNATURES`): each is ~0.75 ms of CPU with a
 * 2048-bit key, so the default stays near 0.2 s. Wildcard policies and ECDSA keys are the way past it.
 */
export const DEFAULT_MAX_RSA_SIGNATURES = 250
export const MAX_RSA_SIGNATURES_CEILING = 100_000

/** CloudFront canned signatures computed concurrently per step (one RSA operation each). */
export const CLOUDFRONT_SIGN_CHUNK = 256
/** Longest prefix accepted for signed cookies. */
export const MAX_COOKIE_PREFIX_BYTES = 1024

/** Upload notifications (src/services/notify.ts): each webhook attempt's time limit. */
export const WEBHOOK_TIMEOUT_MS = 5_000
/**
 * Waits before the 2nd and 3rd webhook attempts. Worst case, 3 × 5 s + 5 s = 20 s: inside the 30 s
 * workerd lets `waitUntil` run after the answer.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [1_000, 4_000]
/** Waits before the 2nd and 3rd `queue.send` of an upload notification. */
export const QUEUE_RETRY_DELAYS_MS: readonly number[] = [250, 1_000]
/** Longest error message a failed notification's log line repeats. */
export const NOTIFY_MAX_ERROR_CHARS = 200
/**
 * Least decoded bytes of WAYBILL_WEBHOOK_SECRET: the Standard Webhooks spec's floor ("between 24
 * bytes (192 bits) and 64 bytes").
 */
export const MIN_WEBHOOK_SECRET_BYTES = 24

/**
 * The control plane (src/control/plane.ts). Every admin write bumps a change epoch in D1; an
 * isolate reads it again once its reading is CONTROL_REFRESH_MS old (after the answer), and never
 * trusts one older than CONTROL_MAX_AGE_MS (then the request waits for it, or gets a 503): a
 * revoked key, grant or link is refused everywhere within CONTROL_MAX_AGE_MS.
 */
export const CONTROL_REFRESH_MS = 1_000
export const CONTROL_MAX_AGE_MS = 4_000
/** Retry-After when D1 (or a quota counter) cannot be reached. */
export const CONTROL_RETRY_AFTER_S = 5
/** Per-isolate caches, in entries; the least recently used goes first. */
export const CONTROL_KEY_CACHE_ENTRIES = 10_000
export const CONTROL_RULES_CACHE_ENTRIES = 2_000
export const CONTROL_LINK_CACHE_ENTRIES = 10_000
/** Grants, and quotas, one subject may hold in D1 (the admin API refuses more). */
export const MAX_GRANTS_PER_SUBJECT = 1_000
/** Link revocations by time (not by id) the control plane holds; the admin API refuses more. */
export const MAX_LINK_RULES = 1_000
/** Usage counters and last-used times are written after the answer, at most this often per isolate. */
export const USAGE_FLUSH_MS = 5_000
/**
 * Usage entries (day, caller, origin) a failed write keeps for the next one; what exceeds it is
 * dropped, and logged. Each is a statement of the next write's D1 batch: this keeps it small.
 */
export const USAGE_MAX_PENDING_ENTRIES = 500
/** A key's last-used time is written at most once a minute. */
export const LAST_USED_RESOLUTION_MS = 60_000
/** Keys made through the admin API, `<prefix>_<random>`: random bytes (43 base64url characters),
 * and how many of those a list shows after the prefix. */
export const STORED_KEY_RANDOM_BYTES = 32
export const STORED_KEY_SHOWN_CHARS = 4
/** API key rotation: how long the old secret keeps working by default, and at most. */
export const DEFAULT_ROTATION_OVERLAP_S = 86_400
export const MAX_ROTATION_OVERLAP_S = 30 * 86_400
/** Admin lists: entries per page by default and at most. */
export const DEFAULT_ADMIN_PAGE = 100
export const MAX_ADMIN_PAGE = 1_000
/** Usage answers: the most days one request covers. */
export const MAX_USAGE_DAYS = 366
/** Days `GET /admin/v1/usage` answers when the query names no `from`. */
export const DEFAULT_USAGE_DAYS = 30
/** A UTC day: usage is counted by day. */
export const DAY_MS = 86_400_000
/**
 * How long past its artifact's expiry (on this Worker's clock) an upload's quota reservation holds
 * the most it admits: the store judges expiry by its own clock.
 */
export const QUOTA_HOLD_MARGIN_S = 300
/** Upload quotas: the shortest and longest window. */
export const MIN_QUOTA_WINDOW_S = 60
export const MAX_QUOTA_WINDOW_S = 366 * 86_400

// ---- the admin plane (src/admin/) ---------------------------------------------------------------

/** The audit trail (D1) keeps this long; each admin write deletes what is older. */
export const AUDIT_RETENTION_DAYS = 180
/** Rows an admin write's retention delete takes at most: a write never waits on a backlog. */
export const AUDIT_RETENTION_BATCH = 500
/** A refused key's audit row covers this long: one row per key and reason, `count` of them. */
export const AUDIT_REFUSAL_WINDOW_MS = 3_600_000
/** Distinct refused keys an isolate gathers between two writes; the rest are logged only. */
export const AUDIT_MAX_PENDING_REFUSALS = 100
/**
 * `Idempotency-Key`: how long an answer is kept for a retry, and how long a key may be (at least
 * 16 characters: the answer is sealed under it, so it must be hard to guess, such as a UUID).
 */
export const IDEMPOTENCY_TTL_S = 86_400
export const MIN_IDEMPOTENCY_KEY_CHARS = 16
export const MAX_IDEMPOTENCY_KEY_CHARS = 255
/** Expired idempotency records an admin POST deletes at most. */
export const IDEMPOTENCY_CLEANUP_BATCH = 100
/** GET /admin/v1/usage/top: the most callers one answer ranks. */
export const MAX_USAGE_TOP = 100
/** POST /admin/v1/import: the most records of each kind one document may hold. */
export const MAX_IMPORT_RECORDS = 5_000
/** POST /admin/v1/import: a document of that many records, with room. */
export const MAX_IMPORT_BODY_BYTES = 8 * 1024 * 1024
