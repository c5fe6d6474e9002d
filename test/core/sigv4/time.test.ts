import { describe, expect, it } from 'vitest'
import { toAmzDate } from '../../../src/core/sigv4/time'

describe('toAmzDate', () => {
  it("writes SigV4's long and short forms, dropping the milliseconds", () => {
    expect(toAmzDate(new Date('2013-05-24T00:00:00.999Z'))).toEqual({
      longDate: '20130524T000000Z',
      shortDate: '20130524',
    })
  })

  it('answers each second with its own date, whatever was formatted before', () => {
    // The last second is kept: going back and forth between seconds (and days) must not reuse it.
    const times = [
      '2026-11-29T23:59:59.000Z',
      '2026-11-29T23:59:59.500Z',
      '2026-11-30T00:00:00.001Z',
      '2026-11-29T23:59:59.999Z',
      '1999-01-02T03:04:05.000Z',
      '2026-11-30T00:00:00.000Z',
    ]
    for (const time of times) {
      const iso = new Date(time).toISOString()
      const long = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`
      expect(toAmzDate(new Date(time)), time).toEqual({
        longDate: long,
        shortDate: long.slice(0, 8),
      })
    }
  })

  it('refuses an invalid date as toISOString does', () => {
    expect(() => toAmzDate(new Date(Number.NaN))).toThrow(RangeError)
  })
})
