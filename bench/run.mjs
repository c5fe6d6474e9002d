// `npm run bench`: signing cost per URL, waybill against the libraries people would otherwise use,
// side by side in one run, inside workerd and in Node. Both runtimes run the same implementation
// table (bench/workerd/worker.ts) through the same harness (bench/workerd.mjs); a fast wrong signer
// fails the run before anything is timed. Results go to bench/RESULTS.md and stdout.

import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { checkoutBaseline } from './baseline.mjs'
import { BUNDLE_BUDGET_KIB, bundleLines, bundleSize, coldStarts, floorBundle } from './bundle.mjs'
import { measureHttp } from './http.mjs'
import {
  checkImplementations,
  median,
  pairedDifference,
  startBenchWorker,
  startNodeBench,
  timeRequests,
  timeSideBySide,
} from './workerd.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const MINIFLARE_VERSION = createRequire(import.meta.url)('miniflare/package.json').version

const S3 = ['waybill', 'aws4fetch', 'smithy', 'sdk-getSignedUrl', 'webcrypto-floor']
const CASES = [
  ...[1, 100, 10_000].flatMap((n) => [
    ...S3.map((name) => [name, n, name === 'sdk-getSignedUrl' ? 3 : 9]),
    // A lone URL whose batch constants are built for it, not kept: see the note under the table.
    ...(n === 1 ? [['waybill-uncached', 1, 9]] : []),
  ]),
  ['cf-waybill-rsa', 500, 7],
  ['cf-raw-rsa-floor', 500, 7],
  ['cf-sdk-cloudfront-signer', 200, 3],
  ['cf-aws-cloudfront-sign', 200, 3],
  ['cf-waybill-ecdsa', 2000, 7],
  ['cf-waybill-wildcard', 10_000, 9],
  ['waybill-hashing-only', 10_000, 9],
  // An R2 origin's own URLs (served through the binding), against S3's at the same N.
  ['r2-waybill', 10_000, 9],
  // …and verifying them, as each download does first.
  ['r2-verify', 10_000, 9],
  ['media-type-canonical', 10_000, 9],
]

// Whole requests inside the app (bench/workerd/app.ts): 10,000 calls of its fetch handler per
// timed request, so the runtime's own dispatch is a rounding error.
const APP_CASES = [
  ['app-healthz', 10_000, 9],
  ['app-redirect', 10_000, 9],
  // The same redirect by a key made through the admin API, its grant in D1: warm caches.
  ['app-redirect-d1', 10_000, 9],
  ['app-link', 10_000, 9],
  // 2,000 distinct links in turn: each visit a link's first (no verification kept).
  ['app-link-fresh', 10_000, 9],
  // A link that key issued: following it judges its key through the control plane's caches.
  ['app-link-d1', 10_000, 9],
  // Issuing a PUT upload, and its completion check (a stand-in store answers its HeadObject).
  ['app-upload', 10_000, 9],
  ['app-check', 10_000, 9],
  // 10,000 keys a request: three requests per timed call, each call once (no repetitions).
  ['app-sign-10k', 3, 9, 1],
  // The same body's validation alone (SignBody on the parsed body), three per timed call.
  ['validate-sign-10k', 3, 9, 1],
  // Downloading a 1 KiB object from R2 through the app's own signed URL, and through the bare
  // binding: what serving through waybill adds.
  ['app-r2-get', 2_000, 9],
  ['r2-bare-get', 2_000, 9],
  // The same two with an in-memory stand-in for the bucket (bench/workerd/app.ts): local R2's
  // millisecond a get, and its jitter, out of the difference.
  ['app-r2-memory-get', 10_000, 9],
  // The same download through the router and the middleware chain (downloads skip both).
  ['app-r2-memory-get-routed', 10_000, 9],
  ['r2-bare-memory-get', 10_000, 9],
]
const R2_CASES = new Set([
  'app-r2-get',
  'r2-bare-get',
  'app-r2-memory-get',
  'app-r2-memory-get-routed',
  'r2-bare-memory-get',
])
// Before and after compare every request a baseline has: signed links and the control plane
// (e8fbc01 or later); R2 origins came later.
const APP_COMPARED = APP_CASES.filter(([name]) => !R2_CASES.has(name))

/** The cases compared with a baseline: waybill's own signing, one URL to a large batch. */
const COMPARED = [
  ['waybill', 1, 15],
  ['waybill', 100, 15],
  ['waybill', 10_000, 15],
]

/**
 * A change beyond noise: slower in every trial by more than this (a fraction). Two workerd
 * processes of one checkout differ by up to about 13 % in a trial on this machine (an A/A run,
 * issue #29's note), in either direction; a real slowdown is slower in each trial.
 */
const NOISE = 0.05

/**
 * This checkout against `ref`, side by side: signing in workerd, whole requests inside the app,
 * POST /v1/sign through wrangler dev (each in `trials` trials of fresh processes, the start order
 * alternating), then the deploy bundle and a fresh isolate's first /healthz.
 */
async function compareWith(ref, trials) {
  const baseline = checkoutBaseline(ref)
  // Per trial: [before, after] for each measure.
  const runs = []
  for (let trial = 0; trial < trials; trial++) {
    const roots = trial % 2 === 0 ? [baseline.dir, ROOT] : [ROOT, baseline.dir]
    const inOrder = (pair) => (trial % 2 === 0 ? pair : [pair[1], pair[0]])
    const signing = inOrder(await sideBySide(roots, {}, COMPARED))
    const requests = inOrder(await sideBySide(roots, { app: true }, APP_COMPARED))
    const http = inOrder(await measureHttp(roots))
    const pick = (n) => signing.map(({ rows }) => rows.find((r) => r.n === n).median)
    const perRequest = (name, per = 1) =>
      requests.map(({ rows }) => rows.find((r) => r.name === name).median / per)
    runs.push({
      s3One: pick(1),
      s3Hundred: pick(100),
      s3TenThousand: pick(10_000),
      healthz: perRequest('app-healthz'),
      redirect: perRequest('app-redirect'),
      redirectRatio: requests.map(({ rows }) => ratioOf(rows, 'app-redirect')),
      link: perRequest('app-link'),
      linkFresh: perRequest('app-link-fresh'),
      linkD1: perRequest('app-link-d1'),
      upload: perRequest('app-upload'),
      check: perRequest('app-check'),
      sign10k: perRequest('app-sign-10k', 10_000),
      validate10k: perRequest('validate-sign-10k', 10_000),
      httpBatch: http.map((h) => h.batchMs.median),
    })
    console.error(`bench: baseline trial ${trial + 1} of ${trials} done`)
  }
  const sizes = [bundleSize(baseline.dir), bundleSize()]
  const cold = await coldStarts(sizes)
  const pct = (before, after) => after / before - 1
  const change = (fraction) => `${fraction >= 0 ? '+' : '−'}${Math.abs(fraction * 100).toFixed(0)}%`
  const flagged = []
  // A timed row: the medians of its trials' medians, the change between them, each trial's change,
  // and whether it is slower beyond noise (slower than NOISE in every trial).
  const timed = (label, key, unit, digits = 1) => {
    const befores = runs.map((run) => run[key][0])
    const afters = runs.map((run) => run[key][1])
    const changes = runs.map((run) => pct(run[key][0], run[key][1]))
    const slower = changes.every((c) => c > NOISE)
    if (slower) flagged.push(label)
    return `| ${label} | ${median(befores).toFixed(digits)} ${unit} | ${median(afters).toFixed(digits)} ${unit} | ${change(pct(median(befores), median(afters)))} | ${changes.map(change).join(', ')} | ${slower ? '**slower**' : 'no'} |`
  }
  const once = (label, [before, after], unit, digits = 1) =>
    `| ${label} | ${before.toFixed(digits)} ${unit} | ${after.toFixed(digits)} ${unit} | ${change(pct(before, after))} | | |`
  const table = [
    timed('S3 URL, N = 1 (workerd, µs/URL)', 's3One', 'µs'),
    timed('S3 URL, N = 100 (workerd, µs/URL)', 's3Hundred', 'µs'),
    timed('S3 URL, N = 10,000 (workerd, µs/URL)', 's3TenThousand', 'µs', 2),
    timed('`GET /healthz` inside the app (workerd, µs/request)', 'healthz', 'µs'),
    timed('`GET /v1/redirect/…` inside the app (workerd, µs/request)', 'redirect', 'µs'),
    `| …redirect ÷ healthz | ${median(runs.map((run) => run.redirectRatio[0])).toFixed(2)}× | ${median(runs.map((run) => run.redirectRatio[1])).toFixed(2)}× | | | |`,
    timed('`GET /l/{token}` inside the app (workerd, µs/request)', 'link', 'µs'),
    timed(
      '…2,000 distinct links in turn, each a first visit (workerd, µs/request)',
      'linkFresh',
      'µs',
    ),
    timed('…a link a key in D1 issued (workerd, µs/request)', 'linkD1', 'µs'),
    timed('`POST /v1/uploads`, one PUT (workerd, µs/request)', 'upload', 'µs'),
    timed('`POST /v1/uploads/complete` (workerd, µs/request)', 'check', 'µs'),
    timed('`POST /v1/sign`, 10,000 keys inside the app (workerd, µs/key)', 'sign10k', 'µs', 2),
    timed('…of which validating its body (workerd, µs/key)', 'validate10k', 'µs', 2),
    timed('`POST /v1/sign`, 10,000 keys through wrangler dev (median ms)', 'httpBatch', 'ms', 0),
    once(
      'Deploy bundle, gzip (KiB)',
      sizes.map((size) => size.gzip / 1024),
      'KiB',
    ),
    once(
      "A fresh isolate's first `/healthz`: new Miniflare to answer (ms)",
      cold.map((c) => c.totalMs),
      'ms',
      0,
    ),
    once(
      '…of which the first request itself (ms)',
      cold.map((c) => c.requestMs),
      'ms',
    ),
  ]
  return [
    `## Before and after (baseline ${baseline.commit}, \`${ref}\`)`,
    '',
    `Measured side by side in this run: ${trials} trials, each with a fresh workerd (or wrangler dev) for either checkout, their start order alternating, the two alternating round by round within a trial. Before and after are the medians of the trials' medians; "trials" gives each trial's change. A row is **slower beyond noise** when it is slower by more than ${NOISE * 100}% in every trial: two processes of one checkout differ by up to about 13% in a trial here, either way.`,
    '',
    `Slower beyond noise: ${flagged.length === 0 ? '**none**' : flagged.map((label) => `**${label}**`).join(', ')}.`,
    '',
    '| measure | before | after | change | trials | slower beyond noise |',
    '|---|---:|---:|---:|---:|---|',
    ...table,
    '',
  ]
}

/** `cases` timed side by side on a fresh bench Worker for each of `roots`, then both stopped. */
async function sideBySide(roots, options, cases) {
  const benches = []
  try {
    for (const root of roots) benches.push(await startBenchWorker(root, options))
    return await timeSideBySide(benches, cases)
  } finally {
    for (const bench of benches) await bench.stop()
  }
}

/** `name`'s median per request over the health check's. */
function ratioOf(rows, name) {
  const of = (n) => rows.find((r) => r.name === n).median
  return of(name) / of('app-healthz')
}

/** `ratioOf`, as `1.23×`. */
const ratio = (rows, name) => `${ratioOf(rows, name).toFixed(2)}×`

// The R2 download's cost over the bare get, also timed in pairs (bench/workerd.mjs,
// `pairedDifference`): rounds, and calls per sample (about 0.1 s each).
const R2_PAIRS = { rounds: 101, calls: 2_000 }

/**
 * The cases timed on a fresh bench Worker, then the app's on a fresh app Worker; with `pairs`
 * (`[a, b]` of app cases), what each `b` costs over its `a`, paired, by `b`'s name.
 */
async function measure(start, appCases = APP_CASES, pairs = []) {
  const bench = await start()
  let timed
  try {
    const checked = await checkImplementations(bench)
    timed = { checked, ...(await timeRequests(bench, CASES)) }
  } finally {
    await bench.stop()
  }
  const app = await start({ app: true })
  try {
    const rows = await timeRequests(app, appCases)
    const paired = {}
    for (const [a, b] of pairs) {
      ;[paired[b]] = await pairedDifference([app], [a, b], R2_PAIRS.rounds, R2_PAIRS.calls)
    }
    return { ...timed, app: rows, paired }
  } finally {
    await app.stop()
  }
}

function appTable(app) {
  return [
    '| request | µs/request (median) | min–max | × healthz |',
    '|---|---:|---:|---:|',
    ...app.rows.map(
      (row) =>
        `| ${APP_LABELS[row.name]} | ${fmt(row.median)} | ${fmt(row.min)}–${fmt(row.max)} | ${ratio(app.rows, row.name)} |`,
    ),
  ]
}

const APP_LABELS = {
  'app-healthz': '`GET /healthz`',
  'app-redirect': '`GET /v1/redirect/photos/…` (API key)',
  'app-redirect-d1': '…the same by a key in D1, its grant in D1 (warm caches)',
  'app-link': '`GET /l/{token}` (a signed link, followed again and again)',
  'app-link-fresh': '…2,000 distinct links in turn (each a first visit)',
  'app-link-d1': '…a link a key in D1 issued (its key judged, warm caches)',
  'app-r2-get': '`GET /o/media/…` (an R2 origin: a 1 KiB object through its signed URL)',
  'r2-bare-get': '…the same object through the bare R2 binding (no waybill)',
  'app-r2-memory-get': '`GET /o/memory/…` (the same, the bucket an in-memory stand-in)',
  'app-r2-memory-get-routed': '…the same through the router and the middleware chain',
  'r2-bare-memory-get': '…the same object from the stand-in, bare (no waybill)',
  'app-upload': '`POST /v1/uploads`, one PUT (API key)',
  'app-check': '`POST /v1/uploads/complete` (a stand-in store answers HeadObject)',
  'app-sign-10k': '`POST /v1/sign`, 10,000 keys (API key)',
  'validate-sign-10k': 'its body schema alone (`SignBody`, 10,000 keys, parsed body)',
}

const signed = (v) => `${v >= 0 ? '+' : '−'}${fmt(Math.abs(v))}`
const fmt = (v) => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(2))

function tables(rows) {
  const s3 = rows.filter(
    (r) =>
      !r.name.startsWith('cf-') &&
      r.name !== 'waybill-hashing-only' &&
      r.name !== 'media-type-canonical',
  )
  const cf = rows.filter((r) => r.name.startsWith('cf-'))
  const ours = (n) => s3.find((r) => r.n === n && r.name === 'waybill').median
  const floor = cf.find((r) => r.name === 'cf-raw-rsa-floor').median
  const line = (row, base) =>
    `| ${row.n} | ${row.name} | ${fmt(row.median)} | ${fmt(row.min)}–${fmt(row.max)} | ${(row.median / base).toFixed(2)} |`
  return [
    '| N | implementation | µs/URL (median) | min–max | × waybill |',
    '|---:|---|---:|---:|---:|',
    ...s3.map((row) => line(row, ours(row.n))),
    '',
    '| N | implementation | µs/URL (median) | min–max | × raw RSA sign |',
    '|---:|---|---:|---:|---:|',
    ...cf.map((row) => line(row, floor)),
  ]
}

async function main() {
  const { values } = parseArgs({
    options: { baseline: { type: 'string' }, trials: { type: 'string', default: '3' } },
  })
  const trials = Number(values.trials)
  if (!Number.isInteger(trials) || trials < 1)
    throw new Error('--trials must be a whole number ≥ 1')
  const comparison = values.baseline === undefined ? [] : await compareWith(values.baseline, trials)
  const workerd = await measure((options) => startBenchWorker(ROOT, options), APP_CASES, [
    ['r2-bare-memory-get', 'app-r2-memory-get'],
  ])
  // Node has no D1: the control plane's cases are workerd's only.
  const node = await measure(
    (options) => startNodeBench(ROOT, options),
    APP_CASES.filter(
      ([name]) => name !== 'app-redirect-d1' && name !== 'app-link-d1' && !R2_CASES.has(name),
    ),
  )
  const size = bundleSize()
  const [cold, floor] = await coldStarts([size, floorBundle()])
  const [http] = await measureHttp()
  const get = (rows, name, n) =>
    rows.find((r) => r.name === name && (n === undefined || r.n === n)).median
  const w = (name) => get(workerd.rows, name, name.startsWith('cf-') ? undefined : 10_000)
  const split = { full: w('waybill'), hashing: w('waybill-hashing-only') }
  const r2Paired = workerd.paired['app-r2-memory-get']

  const lines = [
    '# Benchmark results',
    '',
    `Date: ${new Date().toISOString()}. Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, workerd from miniflare ${MINIFLARE_VERSION}.`,
    'Presigned S3 GET URLs (virtual-hosted) and CloudFront URLs, fixed clock; µs per URL, median of repeated runs (min–max).',
    '',
    '## Summary (workerd, N = 10,000)',
    '',
    `- waybill: **${fmt(w('waybill'))} µs/URL** (target ≤ 5).`,
    `- A single URL (N = 1): **${fmt(get(workerd.rows, 'waybill', 1))} µs** with the batch's constants kept per isolate (target ≤ 8); ${fmt(get(workerd.rows, 'waybill-uncached', 1))} µs when they are built for it (the first request of a signing second).`,
    `- Whole requests inside the app: \`GET /healthz\` ${fmt(get(workerd.app.rows, 'app-healthz'))} µs, a redirect ${fmt(get(workerd.app.rows, 'app-redirect'))} µs (**${ratio(workerd.app.rows, 'app-redirect')}**), following a link ${fmt(get(workerd.app.rows, 'app-link'))} µs (**${ratio(workerd.app.rows, 'app-link')}**; goal ≤ 1.5×).`,
    `- What a redirect cannot skip: \`/healthz\` plus signing one URL with the batch's constants kept (the N = 1 row above) is already **${((get(workerd.app.rows, 'app-healthz') + get(workerd.rows, 'waybill', 1)) / get(workerd.app.rows, 'app-healthz')).toFixed(2)}×** \`/healthz\`, before its route, its 302, authenticating the caller, validating and authorizing; so a redirect ≤ 1.5× leaves all of those ${fmt(0.5 * get(workerd.app.rows, 'app-healthz') - get(workerd.rows, 'waybill', 1))} µs.`,
    `- The control plane from warm caches: a redirect by a key made through the admin API, its grant in D1, ${fmt(get(workerd.app.rows, 'app-redirect-d1'))} µs, **${signed(get(workerd.app.rows, 'app-redirect-d1') - get(workerd.app.rows, 'app-redirect'))} µs** against the env's key and grant (target ≤ +1; \`npm run bench:control\` measures it with 100,000 keys, and a cold miss).`,
    `- A whole \`POST /v1/sign\` of 10,000 keys inside the app: **${fmt(get(workerd.app.rows, 'app-sign-10k') / 10_000)} µs/key** (goal ≤ 2.0), of which validating the body ${fmt(get(workerd.app.rows, 'validate-sign-10k') / 10_000)} µs/key.`,
    `- A media type parsed into its canonical form: ${fmt(w('media-type-canonical'))} µs per type (a response override or an upload's type, per item).`,
    `- R2 through the binding: minting waybill's own URLs ${fmt(w('r2-waybill'))} µs/URL at N = 10,000, against ${fmt(w('waybill'))} for S3's (target ≤ S3's). Serving a 1 KiB object through a signed URL adds **${signed(r2Paired.diff)} µs** per download to the bucket's get (target ≤ +10; the median of ${R2_PAIRS.rounds} paired differences, half of them ${signed(r2Paired.low)} to ${signed(r2Paired.high)}; both with an in-memory stand-in for the bucket, ${fmt(r2Paired.b)} against ${fmt(r2Paired.a)} µs in those pairs, ${fmt(get(workerd.app.rows, 'app-r2-memory-get'))} against ${fmt(get(workerd.app.rows, 'r2-bare-memory-get'))} in the table below; the same URL each time, so its verification is kept after the first, where a URL's first verification takes ${fmt(w('r2-verify'))} µs; through the router and the middleware chain, as before downloads skipped them, ${fmt(get(workerd.app.rows, 'app-r2-memory-get-routed'))} µs), beside the app's own \`GET /healthz\` (the shell every request crosses) at ${fmt(get(workerd.app.rows, 'app-healthz'))} µs; with local R2 itself ${fmt(get(workerd.app.rows, 'app-r2-get'))} against ${fmt(get(workerd.app.rows, 'r2-bare-get'))} µs (${signed(get(workerd.app.rows, 'app-r2-get') - get(workerd.app.rows, 'r2-bare-get'))}).`,
    `- aws4fetch ${fmt(w('aws4fetch'))} µs: waybill is **${(w('aws4fetch') / w('waybill')).toFixed(1)}×** faster (target ≥ 18×).`,
    `- @aws-sdk/s3-request-presigner getSignedUrl ${fmt(w('sdk-getSignedUrl'))} µs: **${(w('sdk-getSignedUrl') / w('waybill')).toFixed(0)}×** (target ≥ 90×).`,
    `- Web Crypto floor (one digest + one HMAC per URL) ${fmt(w('webcrypto-floor'))} µs.`,
    `- CloudFront RSA-2048 canned ${fmt(w('cf-waybill-rsa'))} µs = **${(w('cf-waybill-rsa') / w('cf-raw-rsa-floor')).toFixed(2)}×** a raw crypto.subtle.sign (target ≤ 1.05×); ECDSA P-256 ${fmt(w('cf-waybill-ecdsa'))} µs, **${(w('cf-waybill-rsa') / w('cf-waybill-ecdsa')).toFixed(1)}×** faster than RSA (target ≥ 8×); a 10,000-key wildcard batch **${((w('cf-waybill-wildcard') * 10_000) / 1000).toFixed(1)} ms** (target ≤ 30).`,
    `- \`POST /v1/sign\` with 10,000 keys through \`wrangler dev\`, whole request from outside: **${http.batchMs.median.toFixed(0)} ms** median of 15 (${http.batchMs.min.toFixed(0)}–${http.batchMs.max.toFixed(0)}; target ≤ 120).`,
    `- NDJSON stream of ${http.ndjson.lines.toLocaleString('en')} URLs: ${http.ndjson.ms.toFixed(0)} ms; workerd's resident memory ${http.ndjson.rssBeforeMiB.toFixed(0)} → ${http.ndjson.rssAfterMiB.toFixed(0)} MiB (the isolate limit is 128 MB; the stream signs 500 URLs per pull).`,
    `- Deployable bundle (wrangler deploy --dry-run): ${(size.raw / 1024).toFixed(1)} KiB, **${(size.gzip / 1024).toFixed(1)} KiB gzip** (target ≤ ${BUNDLE_BUDGET_KIB}); a fresh isolate's first request ${cold.requestMs.toFixed(1)} ms (target ≤ 10; a Worker that only answers: ${floor.requestMs.toFixed(1)} ms). Details under "The bundle".`,
    '',
    'Before timing, in each runtime: waybill, aws4fetch and @smithy/signature-v4 produced identical signatures for ' +
      `${workerd.checked} keys; every waybill and AWS SDK URL (the SDK signs extra parameters: X-Amz-Content-Sha256, x-id, x-amz-checksum-mode) verified against an independent node:crypto SigV4 computation; the CloudFront signatures of @aws-sdk/cloudfront-signer and aws-cloudfront-sign equalled waybill's, and waybill's RSA, ECDSA and wildcard signatures verified with node:crypto.`,
    '',
    '## workerd',
    '',
    `Whole requests timed from outside (Miniflare dispatchFetch), minus an empty request (median ${fmt(workerd.emptyUs)} µs), divided by the URLs signed; batches smaller than 2,000 run repeatedly inside one request, and the cases are interleaved round by round.`,
    '',
    ...tables(workerd.rows),
    '',
    "`waybill` at N = 1 signs as a request does, through the per-isolate cache of a batch's constants (src/core/s3/presign-cache.ts); `waybill-uncached` builds them for its one URL.",
    '',
    '### Whole requests inside the app',
    '',
    "bench/workerd/app.ts calls the app's fetch handler 10,000 times within one request, with one config (an S3 origin, an API key, a link secret; request log on errors only), so the runtime's dispatch (the empty request above) does not hide the app's own cost.",
    '',
    ...appTable(workerd.app),
    '',
    '## Node',
    '',
    `The same Worker's fetch handler called in-process (empty request ${fmt(node.emptyUs)} µs).`,
    '',
    ...tables(node.rows),
    '',
    ...appTable(node.app),
    '',
    ...comparison,
    '## The bundle',
    '',
    ...bundleLines(size, cold, floor),
    '',
    "## Where a URL's time goes (workerd, N = 10,000)",
    '',
    `A URL costs ${fmt(split.full)} µs. Assembling a canonical request in the hash buffer and hashing it plus the HMAC (8 SHA-256 compressions) alone costs ${fmt(split.hashing)} µs (${((split.hashing / split.full) * 100).toFixed(0)}%); the rest is key validation and encoding, the item objects and the URL string. The hashing runs in WebAssembly, four URLs side by side (SIMD); a lone URL takes the single-lane path (\`waybill-hashing-one-lane\` in bench/workerd/worker.ts).`,
    '',
    'Reproduce: `npm run bench`, or `npm run bench -- --baseline <git ref>` to also measure that ref side by side (`--trials N`, 3 by default; about half an hour in all on this machine). The machine this ran on is a shared 2-core VM: medians move by ±20% between runs, more for whole requests inside the app.',
    '',
  ]
  const text = lines.join('\n')
  writeFileSync(join(ROOT, 'bench', 'RESULTS.md'), text)
  console.log(text)
}

await main()
