// Upload quotas, the pure part: which quota applies to a caller on an origin, and the window a
// time falls in. The counting is the Durable Object's (./quota-counter.ts); the Worker's calls to
// it are src/services/quotas.ts.

import { subjectMatches } from '../principal/subjects'
import type { Quota } from '../config'
import type { Principal } from '../principal'

/** A quota's limits, as each call to its counter carries them (settings live in D1). */
export type QuotaLimits = Pick<Quota, 'maxObjects' | 'maxBytes' | 'windowS'>

/** Objects reserved and their bytes (settled to their real size once checked), in one window. */
export interface QuotaUse {
  objects: number
  bytes: number
}

/** A counter's window as it stands (QuotaCounter.read). Times are epoch ms. */
export interface QuotaReading extends QuotaUse {
  /** Reservations whose artifact may still store (a PUT URL or POST policy not yet expired). */
  held: number
  windowStart: number
  /** When the window resets. */
  windowEnd: number
}

export type ReserveAnswer =
  | { ok: true; used: QuotaUse }
  | { ok: false; over: 'objects' | 'bytes'; used: QuotaUse; retryAfterS: number }

/**
 * The fixed window holding `nowMs`: windows start at multiples of their length since the epoch,
 * so every isolate and the counter agree on them.
 *
 * @example
 * quotaWindow({ windowS: 86_400 }, Date.parse('2026-11-23T10:00:00Z'))
 * // { start: Date.parse('2026-11-23T00:00:00Z'), end: Date.parse('2026-11-24T00:00:00Z') }
 */
export function quotaWindow(limits: Pick<Quota, 'windowS'>, nowMs: number) {
  const length = limits.windowS * 1000
  const start = Math.floor(nowMs / length) * length
  return { start, end: start + length }
}

/**
 * The name of the counter of `quotaId` for the caller bound as `binding` (`principalBinding`): one
 * Durable Object per quota and caller, the same for the data plane that counts and the admin
 * plane that reads.
 */
export function counterName(quotaId: string, binding: string): string {
  return `${quotaId}\n${binding}`
}

/** How closely a subject names one caller: the caller itself over an email, a role, anyone. */
const SPECIFICITY = { apiKey: 3, sub: 3, email: 2, role: 1, any: 0 } as const

/**
 * The quota that counts `principal`'s uploads on `origin`: of those whose subject matches, the
 * one naming the caller most closely (the caller itself, then an email, a role, `*`), the oldest
 * id first among equals. One quota per upload, so one counter decides.
 *
 * @example
 * quotaFor(config.quotas, principal, 'photos')?.maxBytes // 1073741824
 */
export function quotaFor(
  quotas: readonly Quota[],
  principal: Principal,
  origin: string,
): Quota | undefined {
  let best: Quota | undefined
  for (const quota of quotas) {
    if (quota.origin !== origin || !subjectMatches(quota.subject, principal)) continue
    const rank = SPECIFICITY[quota.subject.kind]
    const bestRank = best === undefined ? -1 : SPECIFICITY[best.subject.kind]
    if (rank > bestRank || (rank === bestRank && best !== undefined && quota.id < best.id)) {
      best = quota
    }
  }
  return best
}
