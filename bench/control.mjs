// `npm run bench:control`: the control plane at scale, on demand (not part of npm test). A local D1
// holding 100,000 API keys and 10,000 grants, behind the app benchmark Worker in workerd
// (bench/workerd/app.ts through bench/workerd.mjs):
//
// - a redirect by a key made through the admin API, its grant in D1, from warm caches, side by
//   side with the same redirect by an env key and grant (the target: at most +1 µs);
// - the same redirect by a key no cache has seen, on every call: a cold miss (one D1 query);
// - admin writes per second (POST /admin/v1/keys, a key with one grant: one transaction);
// - the memory the caches hold when full, per isolate (in Node, with the same code: workerd shows
//   no heap), and that it stays there past their capacity.
//
// Writes bench/CONTROL.md and prints it. With `-- --baseline <git ref>`, that ref's app is seeded and
// measured the same way, its requests interleaved with this checkout's (bench/baseline.mjs).

import { build } from 'esbuild'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { parseArgs } from 'node:util'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { format, resolveConfig } from 'prettier'
import { wasmModules } from '../scripts/esbuild-plugins.mjs'
import { checkoutBaseline } from './baseline.mjs'
import { median, pairedDifference, startBenchWorker, timeSideBySide } from './workerd.mjs'
import { newSecret, sha256Hex } from '../scripts/secrets.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const REPORT = join(ROOT, 'bench', 'CONTROL.md')
const KEYS = 100_000
const GRANTS = 10_000
// D1 takes statements of at most 100 KB: a few hundred rows each, a few statements a batch.
const ROWS_PER_INSERT = 250
const ROWS_PER_BATCH = 5000
// The warm path's pairs: rounds, and redirects per sample (about 0.1 s each).
const WARM_ROUNDS = 301
const WARM_CALLS = 1000
const WARM_TRIALS = 3

const fmt = (v) => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(2))
const signed = (v) => `${v >= 0 ? '+' : '−'}${fmt(Math.abs(v))}`
const mib = (bytes) => (bytes / 1024 / 1024).toFixed(1)

/** 100,000 keys (ids k000000…), the first 10,000 with a grant each; the granted keys' secrets. */
async function seed(db) {
  const now = Date.now()
  const granted = []
  for (let start = 0; start < KEYS; start += ROWS_PER_BATCH) {
    const keys = []
    const secrets = []
    const grants = []
    for (let i = start; i < Math.min(KEYS, start + ROWS_PER_BATCH); i++) {
      const id = `k${String(i).padStart(6, '0')}`
      const key = newSecret('wb_')
      const sha256 = sha256Hex(key)
      // Generated here: ids, hex and numbers only, nothing that needs quoting.
      keys.push(`('${id}', 'bench', ${now})`)
      secrets.push(`('${sha256}', '${id}', '${key.slice(0, 7)}', ${now})`)
      if (i < GRANTS) {
        granted.push(key)
        const body = JSON.stringify({
          to: `apiKey:${id}`,
          origin: 'photos',
          prefix: '',
          actions: ['read'],
          maxExpiresIn: 604800,
          maxLinkExpiresIn: 604800,
          wildcard: false,
          deleteMismatched: false,
          overwrite: false,
        })
        grants.push(`('g_${id}', 'apiKey:${id}', '${body}', ${now})`)
      }
    }
    const inserts = (head, rows) =>
      Array.from(
        { length: Math.ceil(rows.length / ROWS_PER_INSERT) },
        (_, i) =>
          `${head} ${rows.slice(i * ROWS_PER_INSERT, (i + 1) * ROWS_PER_INSERT).join(', ')}`,
      )
    const statements = [
      ...inserts('INSERT INTO api_keys (id, label, created_at) VALUES', keys),
      ...inserts(
        'INSERT INTO api_key_secrets (sha256, key_id, prefix, created_at) VALUES',
        secrets,
      ),
      ...inserts('INSERT INTO grants (id, subject, body, created_at) VALUES', grants),
    ]
    await db.batch(statements.map((sql) => db.prepare(sql)))
  }
  const counts = await db
    .prepare(
      'SELECT (SELECT COUNT(*) FROM api_keys) AS keys, (SELECT COUNT(*) FROM grants) AS grants',
    )
    .first()
  return { granted, counts }
}

/** The caches' memory when full, in Node (bench/workerd/control-memory.ts). */
async function cacheMemory() {
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')
  const outfile = join(ROOT, '.tmp', 'bench', 'control-memory.mjs')
  mkdirSync(dirname(outfile), { recursive: true })
  await build({
    entryPoints: [join(ROOT, 'bench', 'workerd', 'control-memory.ts')],
    bundle: true,
    // As the Worker is built (wrangler.jsonc "define"; src/docs.d.ts).
    define: { DOCS: 'false' },
    format: 'esm',
    platform: 'node',
    plugins: [wasmModules('node', dirname(outfile), [])],
    outfile,
    logLevel: 'error',
  })
  const { cacheMemory: measure } = await import(pathToFileURL(outfile).href)
  const full = await measure({ keys: 10_000, callers: 2_000, links: 10_000 }, globalThis.gc)
  const twice = await measure({ keys: 20_000, callers: 4_000, links: 20_000 }, globalThis.gc)
  return { full, twice }
}

/**
 * The warm path's cost against the env's key, paired (bench/workerd.mjs, `pairedDifference`): in
 * each round, each app times a sample of env-key redirects and one of D1-key redirects back to back.
 */
async function pairedWarm(benches, rounds, n) {
  const pairs = await pairedDifference(benches, ['app-redirect', 'app-redirect-d1'], rounds, n)
  return pairs.map(({ a, b, ...difference }) => ({ env: a, d1: b, ...difference }))
}

/**
 * A seeded D1 for `root`'s app in a directory of its own; `start` runs a Worker on it (one per
 * trial: each a fresh workerd process, with caches that have seen nothing).
 */
async function seededD1(root) {
  const persist = mkdtempSync(join(tmpdir(), 'waybill-control-bench-'))
  const seeding = await startBenchWorker(root, { app: true, persist })
  const started = performance.now()
  const { granted, counts } = await seed(await seeding.mf.getD1Database('WAYBILL_DB'))
  const seedS = (performance.now() - started) / 1000
  await seeding.stop()
  return {
    counts,
    seedS,
    // The granted keys' secrets go to the Worker for the cold case: each call one it has not seen.
    start: () =>
      startBenchWorker(root, {
        app: true,
        persist,
        bindings: { BENCH_COLD_KEYS: JSON.stringify(granted) },
      }),
    remove: () => rmSync(persist, { recursive: true, force: true }),
  }
}

async function main() {
  const { values } = parseArgs({ options: { baseline: { type: 'string' } } })
  const baseline = values.baseline === undefined ? undefined : checkoutBaseline(values.baseline)
  const roots = baseline === undefined ? [ROOT] : [baseline.dir, ROOT]
  const seeded = []
  let benches = []
  try {
    for (const root of roots) seeded.push(await seededD1(root))
    // The warm pairs in several trials, each in fresh workerd processes: one process's code
    // layout and JIT choices can favour one case by a microsecond, the same in all its pairs.
    const trials = roots.map(() => [])
    let cold
    let writes
    for (let trial = 0; trial < WARM_TRIALS; trial++) {
      // Started in alternating order, as bench/run.mjs's trials are.
      benches = []
      const order = seeded.map((_, i) => (trial % 2 === 0 ? i : seeded.length - 1 - i))
      for (const i of order) benches[i] = await seeded[i].start()
      // Many rounds, the two cases back to back in each (and the two apps, with a baseline).
      const warm = await pairedWarm(benches, WARM_ROUNDS, WARM_CALLS)
      warm.forEach((paired, i) => trials[i].push(paired))
      if (trial === WARM_TRIALS - 1) {
        // 2,000 calls a sample: a warm-up and three samples take 8,000 of the 10,000 granted keys.
        cold = await timeSideBySide(benches, [['app-redirect-d1-cold', 100, 3]])
        writes = await timeSideBySide(benches, [['admin-create-key', 200, 3]])
      }
      for (const bench of benches.splice(0)) await bench.stop()
    }
    const memory = await cacheMemory()
    const warm = trials.map((pairs) => ({
      env: median(pairs.map((p) => p.env)),
      d1: median(pairs.map((p) => p.d1)),
      diff: median(pairs.map((p) => p.diff)),
      trials: pairs,
    }))

    const row = (rows, name) => rows.rows.find((r) => r.name === name)
    const figures = roots.map((_, i) => {
      const paired = warm[i]
      const miss = row(cold[i], 'app-redirect-d1-cold')
      const write = row(writes[i], 'admin-create-key')
      return {
        env: fmt(paired.env),
        d1: fmt(paired.d1),
        warm: `**${signed(paired.diff)} µs**, ${((100 * paired.diff) / paired.env).toFixed(1)} % of the env redirect (trials ${paired.trials.map((t) => signed(t.diff)).join(', ')}; half the pairs ${paired.trials.map((t) => `${signed(t.low)} to ${signed(t.high)}`).join(', ')})`,
        miss: `${fmt(miss.median / 1000)} (${fmt(miss.min / 1000)}–${fmt(miss.max / 1000)})`,
        cold: `**${fmt((miss.median - paired.d1) / 1000)}**`,
        writes: `**${fmt(1e6 / write.median)}** (${fmt(1e6 / write.max)}–${fmt(1e6 / write.min)})`,
      }
    })
    const columns =
      baseline === undefined ? ['this checkout'] : [`baseline ${baseline.commit}`, 'this checkout']
    const tableRow = (label, pick) => `| ${label} | ${figures.map(pick).join(' | ')} |`
    const { counts, seedS } = seeded.at(-1)
    const lines = [
      '# The control plane at scale',
      '',
      `Date: ${new Date().toISOString()}. Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}. \`npm run bench:control${baseline === undefined ? '' : ` -- --baseline ${values.baseline}`}\` (bench/control.mjs).`,
      '',
      `A local D1 (Miniflare's, SQLite on disk) with **${counts.keys.toLocaleString('en')} API keys** and **${counts.grants.toLocaleString('en')} grants** (seeded in ${seedS.toFixed(1)} s${baseline === undefined ? '' : ', and as many for the baseline in a D1 of its own'}), behind the app benchmark Worker in workerd. Each figure is the median of repeated runs (min–max), timed from outside minus an empty request, per call of the app's fetch handler inside one Worker request${baseline === undefined ? '' : "; the baseline's requests interleaved with this checkout's"}. The two redirects are timed in ${WARM_ROUNDS} pairs of ${WARM_CALLS.toLocaleString('en')} calls each, back to back (the order alternating), and a trial's warm cost is the median of its pairs' differences: two samples a second apart differ by more than 10 % on a shared machine, two back to back share that drift. That in ${WARM_TRIALS} trials, each in fresh workerd processes started in alternating order (one process's code layout can favour one case by a microsecond in all its pairs); the redirects' figures are the median of the trials', each trial's given. The cold miss and the writes are timed in the last trial.`,
      '',
      `| measure | ${columns.join(' | ')} |`,
      `|---|${columns.map(() => '---:').join('|')}|`,
      tableRow('`GET /v1/redirect/…`, env key and grant, no D1 (µs/request)', (f) => f.env),
      tableRow('the same by a key in D1, its grant in D1, warm caches (µs/request)', (f) => f.d1),
      tableRow(
        "**warm cache against env config**: the median of the pairs' differences (target ≤ +1 µs)",
        (f) => f.warm,
      ),
      tableRow('the same by a key no cache has seen, every call (ms/request)', (f) => f.miss),
      tableRow('**a cold miss: one D1 query** (that less the warm request, ms)', (f) => f.cold),
      tableRow(
        'admin writes (POST /admin/v1/keys with a grant, one after another, per second)',
        (f) => f.writes,
      ),
      `| the caches' memory when full (10,000 keys, 2,000 keys' and 2,000 token callers' grants, 10,000 links; MiB) | ${roots.length > 1 ? '— | ' : ''}**${mib(memory.full.bytes)}** |`,
      `| …after twice as many distinct keys, callers and links (MiB: bounded) | ${roots.length > 1 ? '— | ' : ''}${mib(memory.twice.bytes)} |`,
      '',
      'Notes:',
      '',
      "- The warm path is two map lookups (the key by the first 53 bits of its SHA-256, then the whole digest compared; the caller's grants by the key's id), the epoch's age, and the request's usage counters (nested maps keyed by strings the request already has); the key's SHA-256 is computed for the env's keys anyway.",
      "- A cold miss reads the key and its grants in one statement; D1's own latency on Cloudflare (a round trip to the database's region, or a read replica) comes on top of this local figure.",
      '- Admin writes bump the change epoch in the same transaction: every isolate drops its caches within a second or so, and the next requests miss once each. A baseline from before the admin plane (issue #31) served the admin API from the same app.',
      "- Memory is measured in Node with this checkout's plane and config code over a stand-in for D1 (bench/workerd/control-memory.ts), each key and caller with one grant. Each cache has a fixed capacity (src/limits.ts), so twice the inputs leave about as much (a Map keeps some of the room it once grew to).",
      '',
    ]
    // Formatted as `npm run check` wants it (prettier --check covers bench/).
    const text = await format(lines.join('\n'), {
      ...(await resolveConfig(REPORT)),
      parser: 'markdown',
    })
    writeFileSync(REPORT, text)
    console.log(text)
  } finally {
    for (const bench of benches) await bench?.stop()
    for (const { remove } of seeded) remove()
  }
}

await main()
