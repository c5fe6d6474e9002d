// Every default and limit of the client, with its unit.

const MIB = 1024 * 1024

/** `upload()` with `mode: 'auto'` sends files of this size or more as multipart uploads. */
export const DEFAULT_MULTIPART_THRESHOLD_BYTES = 16 * MIB
/** Parts of one multipart upload in flight at once. */
export const DEFAULT_PART_CONCURRENCY = 4
/** Files of one `uploadMany()` in flight at once. */
export const DEFAULT_FILE_CONCURRENCY = 4
/** Retries after the first attempt, on network errors, 429 and 5xx. */
export const DEFAULT_RETRIES = 3
/** The first retry waits about this long; each next one twice as long, up to the maximum. */
export const DEFAULT_RETRY_BASE_DELAY_MS = 500
export const MAX_RETRY_DELAY_MS = 15_000
/** The most a `Retry-After` is obeyed for; longer waits are the caller's decision. */
export const MAX_RETRY_AFTER_MS = 60_000
/** A URL with less life than this left is signed again before a transfer starts. */
export const MIN_URL_LIFE_MS = 60_000
/** A URL received this recently is used even if its stated life is short (clock skew, short grants). */
export const FRESH_URL_MS = 5_000
/** Part URLs asked for in one `POST /v1/uploads/multipart/parts`. */
export const PART_URL_BATCH = 100
/** A waybill API call that has not answered within this is abandoned (and retried). */
export const API_TIMEOUT_MS = 30_000
/** A transfer to the bucket that has not moved a byte for this long is abandoned (and retried). */
export const TRANSFER_STALL_TIMEOUT_MS = 60_000
/** Where resumable multipart uploads are remembered, one storage entry per file. */
export const RESUME_KEY_PREFIX = 'waybill.upload.v1:'

/**
 * The largest file sent as one PUT or POST whose SHA-256 is computed (Web Crypto hashes a body
 * whole, so it is held in memory once); a larger one goes without a checksum, checked by its ETag.
 */
export const MAX_HASHED_PUT_BYTES = 64 * MIB

/**
 * Multipart with checksums: the parts of this many bytes are hashed before the upload starts, so
 * their URLs come with it; the others are hashed in the background, ahead of their transfers, and
 * signed in batches of those hashed.
 */
export const PREHASH_BYTES = 64 * MIB
