// Conditional requests (RFC 9110 §13.2.2): the order of evaluation, strong and weak comparison,
// dates at one-second precision, and what a read and a write make of a match.

import { describe, expect, it } from 'vitest'
import {
  evaluate,
  hasPreconditions,
  preconditionsOf,
  rangeApplies,
  type Preconditions,
} from '../../../src/core/own/conditions'

const OBJECT = { etag: '"abc"', modifiedMs: Date.parse('2026-11-01T10:00:00.700Z') }
const NONE: Preconditions = {
  ifMatch: null,
  ifNoneMatch: null,
  ifModifiedSince: null,
  ifUnmodifiedSince: null,
}
const AT = 'Sun, 01 Nov 2026 10:00:00 GMT'
const BEFORE = 'Sun, 01 Nov 2026 09:59:59 GMT'

describe('evaluate', () => {
  it.each([
    ['no precondition', {}, 'proceed', 'proceed'],
    ['If-Match naming it', { ifMatch: '"x", "abc"' }, 'proceed', 'proceed'],
    ['If-Match *', { ifMatch: '*' }, 'proceed', 'proceed'],
    ['If-Match naming another', { ifMatch: '"x"' }, 'failed', 'failed'],
    ['If-Match weakly', { ifMatch: 'W/"abc"' }, 'failed', 'failed'],
    ['If-Match malformed', { ifMatch: 'abc' }, 'failed', 'failed'],
    ['If-None-Match naming it', { ifNoneMatch: '"abc"' }, 'not-modified', 'failed'],
    ['If-None-Match weakly', { ifNoneMatch: 'W/"abc"' }, 'not-modified', 'failed'],
    ['If-None-Match *', { ifNoneMatch: '*' }, 'not-modified', 'failed'],
    ['If-None-Match naming another', { ifNoneMatch: '"x"' }, 'proceed', 'proceed'],
    ['If-Modified-Since its time', { ifModifiedSince: AT }, 'not-modified', 'proceed'],
    ['If-Modified-Since before', { ifModifiedSince: BEFORE }, 'proceed', 'proceed'],
    ['If-Modified-Since not a date', { ifModifiedSince: 'yesterday' }, 'proceed', 'proceed'],
    ['If-Unmodified-Since its time', { ifUnmodifiedSince: AT }, 'proceed', 'proceed'],
    ['If-Unmodified-Since before', { ifUnmodifiedSince: BEFORE }, 'failed', 'failed'],
    [
      'If-Modified-Since beside If-None-Match (which wins)',
      { ifNoneMatch: '"x"', ifModifiedSince: AT },
      'proceed',
      'proceed',
    ],
    [
      'If-Unmodified-Since beside If-Match (which wins)',
      { ifMatch: '"abc"', ifUnmodifiedSince: BEFORE },
      'proceed',
      'proceed',
    ],
    [
      'If-Match failing before If-None-Match',
      { ifMatch: '"x"', ifNoneMatch: '"abc"' },
      'failed',
      'failed',
    ],
  ])('%s: a read gets %s, a write %s', (_, given, read, write) => {
    const conditions = { ...NONE, ...given }
    expect(evaluate(conditions, OBJECT, true)).toBe(read)
    expect(evaluate(conditions, OBJECT, false)).toBe(write)
  })

  it('judges a missing object: If-Match fails, If-None-Match * proceeds', () => {
    expect(evaluate({ ...NONE, ifMatch: '*' }, undefined, false)).toBe('failed')
    expect(evaluate({ ...NONE, ifNoneMatch: '*' }, undefined, false)).toBe('proceed')
  })
})

describe('rangeApplies', () => {
  it.each([
    [null, true],
    ['"abc"', true],
    ['"x"', false],
    ['W/"abc"', false],
    [AT, true],
    [BEFORE, false],
    ['not a date', false],
  ])('If-Range %j: %s', (ifRange, applies) => {
    expect(rangeApplies(ifRange, OBJECT)).toBe(applies)
  })
})

describe('preconditionsOf', () => {
  it('reads the four headers, and tells whether any is there', () => {
    const conditions = preconditionsOf(new Headers({ 'if-none-match': '"a"' }))
    expect(conditions).toEqual({ ...NONE, ifNoneMatch: '"a"' })
    expect(hasPreconditions(conditions)).toBe(true)
    expect(hasPreconditions(preconditionsOf(new Headers()))).toBe(false)
  })
})
