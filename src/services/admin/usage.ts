// Usage through the admin API: per key or caller, by day and origin, from the counters the audit
// trail keeps (src/control/plane.ts `record`, written after the answers).

import { principalHash } from '../../auth/links'
import { bindingOfName } from '../../principal'
import { selectUsage } from '../../control/admin-store'
import { DAY_MS, DEFAULT_USAGE_DAYS, MAX_USAGE_DAYS } from '../../limits'
import type { UsageQuery } from '../../schemas/admin'
import { stored, type AdminContext } from './shared'

/**
 * A caller's usage from `from` to `to` (days, UTC), at most MAX_USAGE_DAYS of them: an earlier
 * `from` is moved up to fit, and the answer says which days it covers; a `to` before `from` covers
 * none.
 */
export async function usageOf(ctx: AdminContext, query: UsageQuery) {
  const { now } = ctx
  const principal = query.principal
  const to = query.to ?? now.toISOString().slice(0, 10)
  const earliest = new Date(Date.parse(to) - (MAX_USAGE_DAYS - 1) * DAY_MS)
    .toISOString()
    .slice(0, 10)
  const from =
    query.from ??
    new Date(Date.parse(to) - (DEFAULT_USAGE_DAYS - 1) * DAY_MS).toISOString().slice(0, 10)
  const first = from < earliest ? earliest : from
  if (first > to) return { principal, from: first, to, days: [] }
  // A followed link names its issuer only by a hash of them.
  const follower = `link:${principalHash(bindingOfName(principal))}`
  const rows = await stored(() => selectUsage(ctx.db, [principal, follower], first, to))
  const merged = new Map<string, ReturnType<typeof emptyDay>>()
  for (const row of rows) {
    const id = `${row.day}\n${row.origin}`
    const day = merged.get(id) ?? emptyDay(row.day, row.origin)
    merged.set(id, day)
    day.minted += row.minted
    day.refused += row.refused
    day.bytesReserved += row.bytes_reserved
    day.bytesCompleted += row.bytes_completed
    day.linksFollowed += row.links_followed
  }
  return { principal, from: first, to, days: [...merged.values()] }
}

function emptyDay(day: string, origin: string) {
  return {
    day,
    origin,
    minted: 0,
    refused: 0,
    bytesReserved: 0,
    bytesCompleted: 0,
    linksFollowed: 0,
  }
}
