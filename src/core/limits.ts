/** The protocol limits the pure cores enforce. The app's own limits live in src/limits.ts. */

/** SigV4 query presigning allows at most seven days. */
export const MAX_EXPIRES_S = 604_800
export const MIN_EXPIRES_S = 1

/** S3 object keys are at most 1024 bytes of UTF-8. */
export const MAX_KEY_BYTES = 1024

/** Derived SigV4 signing keys kept per isolate: one per (secret, day, region, service). */
export const SIGNING_KEY_CACHE_ENTRIES = 64

/**
 * Batch presigners kept per credentials: one per (endpoint, region, method, lifetime, signing
 * second). Enough for every origin's methods within a signing window; a new second without a
 * window replaces the oldest.
 */
export const PRESIGNER_CACHE_ENTRIES = 32

/** S3 multipart uploads: at most 10,000 parts, each at least 5 MiB but the last. */
export const MAX_PARTS = 10_000
export const MIN_PART_SIZE_BYTES = 5 * 1024 ** 2

/** RSA keys that verify JWTs: at least 2048 bits (RFC 7518 §3.3, §3.5). */
export const MIN_RSA_MODULUS_BITS = 2048
