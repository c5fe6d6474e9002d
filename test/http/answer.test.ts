// preferred: which answer type the client's `Accept` header asks for. It replaced hono's accepts
// helper (to keep the bundle small), so it is checked against that helper on every header the
// generator below can write, and on the shapes clients send.

import fc from 'fast-check'
import type { Context } from 'hono'
import { accepts } from 'hono/accepts'
import { describe, expect, it } from 'vitest'
import { preferred } from '../../src/http/answer'

const JSON_TYPE = 'application/json'
const NDJSON = 'application/x-ndjson'
const SUPPORTED = [JSON_TYPE, NDJSON] as const

/** What hono's helper chose for the same header. */
function honoChoice(header: string | undefined): string {
  const c = { req: { header: () => header } } as unknown as Context
  return accepts(c, { header: 'Accept', supports: [...SUPPORTED], default: JSON_TYPE })
}

describe('preferred', () => {
  it.each([
    [undefined, JSON_TYPE],
    ['', JSON_TYPE],
    [NDJSON, NDJSON],
    ['*/*', JSON_TYPE],
    ['application/*', JSON_TYPE],
    [`${NDJSON}, ${JSON_TYPE};q=0.9`, NDJSON],
    [`${JSON_TYPE};q=0.5, ${NDJSON}`, NDJSON],
    [`${NDJSON};q=0, */*`, JSON_TYPE],
    [`application/*;q=0.8, ${JSON_TYPE};q=0.1`, NDJSON],
    ['APPLICATION/X-NDJSON', NDJSON],
    ['text/html, */*;q=0.8', JSON_TYPE],
  ])('answers %j with %s', (header, type) => {
    expect(preferred(header, SUPPORTED, JSON_TYPE)).toBe(type)
    expect(honoChoice(header)).toBe(type)
  })

  it('chooses as hono’s accepts helper did, for any header of these ranges and weights', () => {
    const range = fc.constantFrom(
      JSON_TYPE,
      NDJSON,
      'application/*',
      '*/*',
      '*',
      'text/html',
      'Application/JSON',
      'application/x-ndjson ',
    )
    const weight = fc.constantFrom(
      '',
      ';q=0',
      ';q=0.5',
      ';q=1',
      ';q=0.500',
      ';q=0.9',
      '; q=0.2',
      ';level=1',
    )
    const header = fc
      .array(fc.tuple(range, weight), { minLength: 1, maxLength: 5 })
      .map((parts) => parts.map(([type, q]) => type + q).join(', '))
    fc.assert(
      fc.property(header, (text) => {
        expect(preferred(text, SUPPORTED, JSON_TYPE)).toBe(honoChoice(text))
      }),
      { numRuns: 2000 },
    )
  })
})
