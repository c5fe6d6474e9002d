// `npm run build -w client` (scripts/build-client.mjs): a budget for each entry of the package's
// exports, and the table it prints. (That the build holds them, and prints them, the package
// test shows from the run `npm pack` makes: test/client/package.node.test.ts.)

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CLIENT_GZIP_BUDGET_BYTES, formatSizes } from '../../scripts/build-client.mjs'

const KIB = 1024
const exported = Object.keys(
  (JSON.parse(readFileSync('client/package.json', 'utf8')) as { exports: Record<string, unknown> })
    .exports,
).filter((entry) => entry !== './package.json')

describe('the client build', () => {
  it('gives every entry a budget: the core 8 KiB, React the hooks’ 2 KiB and 2 more for its components', () => {
    expect(Object.keys(CLIENT_GZIP_BUDGET_BYTES).sort()).toEqual([...exported].sort())
    expect(CLIENT_GZIP_BUDGET_BYTES['.']).toBe(8 * KIB)
    expect(CLIENT_GZIP_BUDGET_BYTES['./react']).toBe(2 * KIB + 2 * KIB)
  })

  it('marks an entry over its budget', () => {
    const table = formatSizes([
      { entry: '.', bytes: 30_000, gzipBytes: 9 * KIB, budgetBytes: 8 * KIB },
      { entry: './react', bytes: 6_000, gzipBytes: 3 * KIB, budgetBytes: 4 * KIB },
    ])
    expect(table.split('\n')).toEqual([
      '  waybill-client         29.3 KiB minified, 9.0 KiB gzip: OVER the budget of 8.0 KiB',
      '  waybill-client/react   5.9 KiB minified, 3.0 KiB gzip: within the budget of 4.0 KiB',
    ])
  })
})
