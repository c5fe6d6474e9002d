// Signed URLs an upload holds for later, and when to sign them again: one rule, on the server's
// clock (`expiresAt` is waybill's; Http.localTime places it on this machine's).

import { FRESH_URL_MS, MIN_URL_LIFE_MS } from './constants.ts'
import type { Http } from './http.ts'

/** A signed URL, and when it was received and should be signed again on this machine's clock. */
export interface Signed {
  url: string
  receivedAt: number
  renewAt: number
}

/** When URLs waybill says expire at `expiresAt` should be signed again, on this machine's clock. */
export const renewAt = (http: Pick<Http, 'localTime'>, expiresAt: string): number =>
  http.localTime(expiresAt) - MIN_URL_LIFE_MS

/** A URL received now, expiring at `expiresAt` (waybill's clock). */
export const signedNow = (
  http: Pick<Http, 'localTime'>,
  url: string,
  expiresAt: string,
): Signed => ({
  url,
  receivedAt: Date.now(),
  renewAt: renewAt(http, expiresAt),
})

/**
 * True when a URL should be signed again before a transfer: there is none, a transfer with it
 * failed (an expired URL often fails as a CORS error: a store's 403 carries no CORS headers), or
 * it has less than a minute left. A URL received a moment ago counts as fresh whatever its stated
 * life, so a short grant or a skewed clock cannot make this loop.
 */
export function stale(signed: Signed | undefined, afterFailure = false): boolean {
  if (signed === undefined || afterFailure) return true
  const now = Date.now()
  return now - signed.receivedAt >= FRESH_URL_MS && now >= signed.renewAt
}
