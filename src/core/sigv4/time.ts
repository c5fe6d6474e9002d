import { keepLast } from '../cache'

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
  return amzDateOf(epochSeconds(now))
}
const amzDateOf = keepLast((second: number): AmzDate => {
  // 2013-05-24T00:00:00.000Z → 20130524T000000Z
  const longDate = new Date(second * 1000).toISOString().replace(/[-:]|\.\d+/g, '')
  return { longDate, shortDate: longDate.slice(0, 8) }
})

/** Whole seconds since the epoch, as CloudFront policies, link tokens and sealed values count them. */
export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000)
}
