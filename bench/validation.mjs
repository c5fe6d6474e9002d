// What validating a 10,000-key POST /v1/sign body costs inside workerd, beside the whole request
// (bench/workerd/app.ts: `validate-sign-10k` and `app-sign-10k`). run.mjs reports both; alone, in
// about a minute:
//
//   node bench/validation.mjs                    # this checkout
//   node bench/validation.mjs --baseline <ref>   # and <ref>, side by side (bench/baseline.mjs)

import { parseArgs } from 'node:util'
import { checkoutBaseline } from './baseline.mjs'
import { startBenchWorker, timeSideBySide } from './workerd.mjs'

// Three 10,000-key bodies per timed call, 25 rounds (the minimum is the steadier figure on a busy machine).
const CASES = [
  ['validate-sign-10k', 3, 25, 1],
  ['app-sign-10k', 3, 25, 1],
]

const { values } = parseArgs({ options: { baseline: { type: 'string' } } })
const baseline = values.baseline === undefined ? undefined : checkoutBaseline(values.baseline)
const checkouts = [...(baseline ? [[baseline.commit, baseline.dir]] : []), ['this checkout']]
const benches = []
try {
  for (const [, dir] of checkouts) benches.push(await startBenchWorker(dir, { app: true }))
  const timed = await timeSideBySide(benches, CASES)
  console.log('| checkout | validation (µs/key) | min–max | whole request (µs/key) | min–max |')
  console.log('|---|---:|---:|---:|---:|')
  for (const [b, [label]] of checkouts.entries()) {
    const [validation, request] = CASES.map(([name]) => {
      const row = timed[b].rows.find((r) => r.name === name)
      const perKey = (us) => (us / 10_000).toFixed(3)
      return [perKey(row.median), `${perKey(row.min)}–${perKey(row.max)}`]
    })
    console.log(`| ${label} | ${validation.join(' | ')} | ${request.join(' | ')} |`)
  }
} finally {
  for (const bench of benches) await bench.stop()
}
