// Usage through the admin API: per caller or for every caller, by day and origin, and the callers
// that did the most; from the counters the audit trail keeps (src/control/plane.ts `record`,
// written after the answers).

import { principalHash } from '../../principal/subjects'
import { bindingOfName } from '../../principal'
import { selectTopUsage, selectUsage } from '../../control/admin-store'
import type { UsageRow } from '../../control/store'
import { DAY_MS, DEFAULT_USAGE_DAYS, MAX_USAGE_DAYS } from '../../limits'
import type { UsageQuery, UsageTopQuery } from '../../control/admin-schemas'
import { stored, type AdminContext } from './shared'

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/**
 * The days `query` asks for: `to` (today by default) and `from` (30 days before it by default),
 * at most MAX_USAGE_DAYS of them, the last ones (`first` is moved up to fit). None when `to`
 * comes before `from`.
 */
function daysOf(ctx: AdminContext, query: { from?: string | undefined; to?: string | undefined }) {
  const to = query.to ?? day(ctx.now.getTime())
  const earliest = day(Date.parse(to) - (MAX_USAGE_DAYS - 1) * DAY_MS)
  const from = query.from ?? day(Date.parse(to) - (DEFAULT_USAGE_DAYS - 1) * DAY_MS)
  return { first: from < earliest ? earliest : from, to }
}

/**
 * A caller's usage (with its links followed, counted under the hash a link names it by), or every
 * caller's together, by day and origin.
 */
export async function usageOf(ctx: AdminContext, query: UsageQuery) {
  const principal = query.principal ?? null
  const { first, to } = daysOf(ctx, query)
  if (first > to) return { principal, from: first, to, days: [] }
  const callers =
    principal === null ? null : [principal, `link:${principalHash(bindingOfName(principal))}`]
  const rows = await stored(() => selectUsage(ctx.db, callers, first, to))
  const merged = new Map<string, ReturnType<typeof emptyDay>>()
  for (const row of rows) {
    const id = `${row.day}\n${row.origin}`
    const sum = merged.get(id) ?? emptyDay(row.day, row.origin)
    merged.set(id, sum)
    add(sum, row)
  }
  return { principal, from: first, to, days: [...merged.values()] }
}

/** The callers that did the most over the days `query` asks for, by what it ranks them by. */
export async function topUsage(ctx: AdminContext, query: UsageTopQuery) {
  const { first, to } = daysOf(ctx, query)
  const callers =
    first > to ? [] : await stored(() => selectTopUsage(ctx.db, query.by, first, to, query.limit))
  return {
    by: query.by,
    from: first,
    to,
    callers: callers.map((row) => ({
      principal: row.principal,
      minted: row.minted,
      refused: row.refused,
      bytesReserved: row.bytes_reserved,
      bytesCompleted: row.bytes_completed,
      linksFollowed: row.links_followed,
    })),
  }
}

function add(sum: ReturnType<typeof emptyDay>, row: UsageRow): void {
  sum.minted += row.minted
  sum.refused += row.refused
  sum.bytesReserved += row.bytes_reserved
  sum.bytesCompleted += row.bytes_completed
  sum.linksFollowed += row.links_followed
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
