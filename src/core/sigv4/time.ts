/** The two date forms SigV4 uses: `20130524T000000Z` and `20130524`. */
export interface AmzDate {
  readonly longDate: string
  readonly shortDate: string
}

/**
 * Formats `now` (UTC) for SigV4. Sub-second precision is dropped, as every SigV4 signer does.
 * Requests of the same second share one date: the last second formatted is kept (its ISO text
 * costs more than the rest of an upload's constants).
 */
export function toAmzDate(now: Date): AmzDate {
  const second = Math.floor(now.getTime() / 1000)
  if (second === lastAmzDate.second) return lastAmzDate.date
  const iso = now.toISOString() // 2013-05-24T00:00:00.000Z
  const longDate =
    iso.slice(0, 4) +
    iso.slice(5, 7) +
    iso.slice(8, 13) +
    iso.slice(14, 16) +
    iso.slice(17, 19) +
    'Z'
  const date = Object.freeze({ longDate, shortDate: longDate.slice(0, 8) })
  lastAmzDate = { second, date }
  return date
}
let lastAmzDate: { second: number; date: AmzDate } = {
  second: Number.NaN,
  date: { longDate: '', shortDate: '' },
}

/** Whole seconds since the epoch, as CloudFront policies, link tokens and sealed values count them. */
export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000)
}
