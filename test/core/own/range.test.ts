// Byte ranges as waybill serves them (RFC 9110 §14): one range, ignored when it is not one this
// server honours, unsatisfiable only when it starts past the end.

import { describe, expect, it } from 'vitest'
import { contentRange, parseRange, resolveRange } from '../../../src/core/own/range'

describe('parseRange', () => {
  it.each([
    ['bytes=0-9', { offset: 0, last: 9 }],
    ['bytes=5-', { offset: 5 }],
    ['bytes=-5', { suffix: 5 }],
    [' bytes=3-3 ', { offset: 3, last: 3 }],
  ])('reads %j', (header, range) => {
    expect(parseRange(header)).toEqual(range)
  })

  it.each([null, 'bytes=9-0', 'bytes=0-1,3-4', 'items=0-1', 'bytes=-', 'bytes=a-b', 'bytes 0-1'])(
    'ignores %j',
    (header) => {
      expect(parseRange(header)).toBeUndefined()
    },
  )
})

describe('resolveRange and contentRange', () => {
  it.each([
    [{ offset: 0, last: 9 }, 100, { offset: 0, length: 10 }, 'bytes 0-9/100'],
    [{ offset: 90, last: 200 }, 100, { offset: 90, length: 10 }, 'bytes 90-99/100'],
    [{ offset: 95 }, 100, { offset: 95, length: 5 }, 'bytes 95-99/100'],
    [{ suffix: 5 }, 100, { offset: 95, length: 5 }, 'bytes 95-99/100'],
    [{ suffix: 500 }, 100, { offset: 0, length: 100 }, 'bytes 0-99/100'],
    [{ offset: 100 }, 100, undefined, 'bytes */100'],
    [{ suffix: 0 }, 100, undefined, 'bytes */100'],
    [{ suffix: 5 }, 0, undefined, 'bytes */0'],
  ])('selects %j of %i bytes', (range, size, selected, header) => {
    expect(resolveRange(range, size)).toEqual(selected)
    expect(contentRange(selected, size)).toBe(header)
  })
})
