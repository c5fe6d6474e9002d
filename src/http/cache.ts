// Cache headers for responses that carry signed URLs: a response may be reused only while every URL
// in it still works, less a margin for clock skew and the time it takes to use the URL.

import { CACHE_MARGIN_S } from '../config/limits'

/**
 * `private, max-age=N` where N leaves the earliest-expiring URL `CACHE_MARGIN_S` of life when the
 * cached copy is last used; `no-store` when there is nothing left to cache.
 *
 * @example
 * cacheControlUntil(new Date('2026-11-23T11:15:00Z'), new Date('2026-11-23T10:17:00Z'))
 * // 'private, max-age=3420'
 */
export function cacheControlUntil(expiresAt: Date, now: Date): string {
  const remaining = Math.floor((expiresAt.getTime() - now.getTime()) / 1000)
  const maxAge = remaining - CACHE_MARGIN_S
  return maxAge > 0 ? `private, max-age=${maxAge}` : 'no-store'
}

/** A strong ETag: the SHA-256 of the body, so equal bodies (same signing window) match. */
export async function etagOf(body: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body)),
  )
  let hex = ''
  for (let i = 0; i < 16; i++) hex += digest[i]!.toString(16).padStart(2, '0')
  return `"${hex}"`
}

/** True when an `If-None-Match` header lists `etag` (or `*`). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag)
}
