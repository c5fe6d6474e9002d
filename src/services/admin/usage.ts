// Usage through the admin API: per key or caller, by day and origin, from the counters the audit
// trail keeps (src/control/plane.ts `record`, written after the answers).

import { principalHash } from '../../auth/links'
import type { Config } from '../../config'
import { selectUsage } from '../../control/store'
import { invalid } from '../../errors'
import { MAX_USAGE_DAYS } from '../../limits'
import type { UsageQuery } from '../../schemas/admin'
import { controlOf, stored } from './shared'

const DAY_MS = 86_400_000

export async function usageOf(config: Config, query: UsageQuery, now: Date) {
  const principal = query.principal ?? `api-key:${query.key!}`
  const to = query.to ?? now.toISOString().slice(0, 10)
  const from = query.from ?? new Date(Date.parse(to) - 29 * DAY_MS).toISOString().slice(0, 10)
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1
  if (days < 1 || days > MAX_USAGE_DAYS) {
    throw invalid([
      {
        path: days < 1 ? 'to' : 'from',
        message:
          days < 1
            ? 'must not be before "from"'
            : `must be at most ${MAX_USAGE_DAYS} days before "to"`,
      },
    ])
  }
  // A followed link names its issuer only by a hash of them.
  const follower = `link:${principalHash(principal)}`
  const rows = await stored(() =>
    selectUsage(controlOf(config).db, [principal, follower], from, to),
  )
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
  return { principal, from, to, days: [...merged.values()] }
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
