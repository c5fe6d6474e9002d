// Runs bench/workerd/worker.ts inside workerd (Miniflare, the runtime wrangler dev uses) or
// in-process in Node, times whole requests minus an empty one, divided by the URLs signed, and
// checks every implementation's signatures before timing any of them.

import { build } from 'esbuild'
import { nodeBuiltins, wasmModules } from '../scripts/esbuild-plugins.mjs'
import { readD1Migrations } from '@cloudflare/vitest-plugin'
import { Miniflare, convertV4MiniflareOptions } from 'miniflare'
import { createHash, createHmac, generateKeyPairSync, verify } from 'node:crypto'
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const COMPATIBILITY_DATE = '2026-08-01'

function makeKeys() {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return {
    env: {
      RSA_PEM: rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }),
      EC_PEM: ec.privateKey.export({ type: 'sec1', format: 'pem' }),
    },
    rsaPublic: rsa.publicKey,
    ecPublic: ec.publicKey,
  }
}

/**
 * What a baseline from before the admin plane (issue #31) lacks, as it was there: one app served
 * the admin API too, and there was no bridge to the data plane.
 */
const BEFORE_ADMIN_PLANE = {
  'src/admin/app': (root) =>
    `export { createApp as createAdminApp } from ${JSON.stringify(join(root, 'src', 'app.ts'))}`,
  'src/bridge': () => 'export const bridgeOf = () => undefined',
}

/**
 * `cloudflare:workers` for the Node columns: the base classes the app's bridge and Durable Objects
 * extend, holding what workerd would give them. Nothing timed in Node calls them.
 */
const workersInNode = {
  name: 'workers-in-node',
  setup(build) {
    build.onResolve({ filter: /^cloudflare:workers$/ }, () => ({
      path: 'cloudflare:workers',
      namespace: 'workers-in-node',
    }))
    build.onLoad({ filter: /.*/, namespace: 'workers-in-node' }, () => ({
      contents: `
        class Base { constructor(ctx, env) { this.ctx = ctx; this.env = env } }
        export class WorkerEntrypoint extends Base {}
        export class DurableObject extends Base {}`,
      loader: 'js',
    }))
  },
}

/**
 * This checkout's `bench/workerd/app.ts` with its `../../src/` imports taken from `root`'s src/:
 * the same requests against this checkout or a baseline's app.
 */
function srcOf(root) {
  return {
    name: 'src-of',
    setup(build) {
      build.onResolve({ filter: /^\.\.\/\.\.\/src\// }, (args) => {
        const path = args.path.slice('../../'.length)
        const shim = BEFORE_ADMIN_PLANE[path]
        if (
          shim !== undefined &&
          !existsSync(join(root, `${path}.ts`)) &&
          !existsSync(join(root, path))
        ) {
          return { path, namespace: 'before-admin-plane', pluginData: shim(root) }
        }
        return build.resolve(`./${path}`, { kind: args.kind, resolveDir: root })
      })
      build.onLoad({ filter: /.*/, namespace: 'before-admin-plane' }, (args) => ({
        contents: args.pluginData,
        loader: 'js',
        resolveDir: root,
      }))
    },
  }
}

/**
 * Bundles `<root>/bench/workerd/worker.ts` (this checkout's, or a baseline's: bench/baseline.mjs),
 * or with `app`, this checkout's app benchmark against `<root>/src`.
 */
async function bundle(platform, root, app = false) {
  const outfile = join(root, '.tmp', 'bench', `${app ? 'app' : 'worker'}-${platform}.mjs`)
  mkdirSync(dirname(outfile), { recursive: true })
  const wasm = []
  const plugins = app ? [srcOf(root)] : []
  await build({
    entryPoints: [join(app ? ROOT : root, 'bench', 'workerd', app ? 'app.ts' : 'worker.ts')],
    bundle: true,
    // The app with its descriptions, as it was measured before they became a build constant
    // (src/docs.d.ts; a baseline that imports it from '#docs' keeps its own).
    define: { DOCS: 'true' },
    format: 'esm',
    platform,
    ...(platform === 'browser'
      ? {
          conditions: ['workerd', 'worker', 'browser'],
          external: ['cloudflare:*'],
          plugins: [...plugins, nodeBuiltins, wasmModules(platform, dirname(outfile), wasm)],
        }
      : {
          plugins: [...plugins, workersInNode, wasmModules(platform, dirname(outfile), wasm)],
          banner: {
            js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
          },
        }),
    outfile,
    logLevel: 'error',
  })
  return { outfile, wasm }
}

function caller(dispatch) {
  return async (path) => {
    const response = await dispatch(`http://bench${path}`)
    const text = await response.text()
    if (!response.ok) throw new Error(`${path}: ${response.status} ${text.slice(0, 500)}`)
    return JSON.parse(text)
  }
}

/**
 * The benchmark Worker in workerd (Miniflare, the runtime wrangler dev uses); with `app`, the app
 * benchmark (bench/workerd/app.ts) against `root`'s app, with a local D1 (WAYBILL_DB) migrated as
 * `wrangler d1 migrations apply` would, kept in `persist` when given, and more `bindings`.
 */
export async function startBenchWorker(root = ROOT, { app = false, persist, bindings = {} } = {}) {
  const { outfile, wasm } = await bundle('browser', root, app)
  const keys = makeKeys()
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      ...(persist === undefined ? {} : { resourcePersistencePath: persist }),
      // A profile of the Worker: BENCH_INSPECT=<port> opens workerd's inspector (Chrome DevTools).
      ...(process.env.BENCH_INSPECT ? { inspectorPort: Number(process.env.BENCH_INSPECT) } : {}),
      workers: [
        {
          name: 'bench',
          modulesRoot: dirname(outfile),
          modules: [
            { type: 'ESModule', path: outfile },
            ...wasm.map((path) => ({ type: 'CompiledWasm', path })),
          ],
          compatibilityDate: COMPATIBILITY_DATE,
          // The AWS SDK's CloudFront signer and aws-cloudfront-sign need node:crypto.
          compatibilityFlags: ['nodejs_compat'],
          bindings: { ...keys.env, ...bindings },
          ...(app ? { d1Databases: { WAYBILL_DB: 'waybill-bench' }, r2Buckets: ['BENCH_R2'] } : {}),
        },
      ],
    }),
  )
  await mf.ready
  if (app) await migrate(await mf.getD1Database('WAYBILL_DB'))
  return {
    ...keys,
    mf,
    call: caller((url) => mf.dispatchFetch(url)),
    stop: () => mf.dispose(),
  }
}

/** This checkout's migrations (migrations/), each in one batch; those applied before are skipped. */
async function migrate(db) {
  await db.exec('CREATE TABLE IF NOT EXISTS bench_migrations (name TEXT PRIMARY KEY)')
  for (const { name, queries } of await readD1Migrations(join(ROOT, 'migrations'))) {
    const done = await db
      .prepare('SELECT 1 FROM bench_migrations WHERE name = ?')
      .bind(name)
      .first()
    if (done !== null) continue
    await db.batch([
      ...queries.map((query) => db.prepare(query)),
      db.prepare('INSERT INTO bench_migrations (name) VALUES (?)').bind(name),
    ])
  }
}

/** The same Worker's fetch handler called in-process in Node, for the Node columns. */
export async function startNodeBench(root = ROOT, { app = false } = {}) {
  const { outfile } = await bundle('node', root, app)
  const keys = makeKeys()
  const worker = (await import(pathToFileURL(outfile).href)).default
  return {
    ...keys,
    // An ExecutionContext for code that schedules work after the answer (none of it is timed).
    call: caller((url) =>
      worker.fetch(new Request(url), keys.env, { waitUntil() {}, passThroughOnException() {} }),
    ),
    stop: async () => {},
  }
}

const signatureOf = (url, name = 'X-Amz-Signature') => new URL(url).searchParams.get(name)
const fromCloudFrontBase64 = (value) =>
  Buffer.from(value.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'), 'base64')

function cloudFrontVerifies(url, publicKey) {
  const parsed = new URL(url)
  const signature = fromCloudFrontBase64(parsed.searchParams.get('Signature'))
  const encoded = parsed.searchParams.get('Policy')
  const policy = encoded
    ? fromCloudFrontBase64(encoded).toString('utf8')
    : `{"Statement":[{"Resource":${JSON.stringify(url.slice(0, url.indexOf('?')))},"Condition":{"DateLessThan":{"AWS:EpochTime":${parsed.searchParams.get('Expires')}}}}]}`
  return verify('sha1', Buffer.from(policy), publicKey, signature)
}

const SECRET = 'bench/secret/not+real' // bench/workerd/worker.ts's fixture credentials
const rfc3986 = (value) =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase(),
  )

/**
 * Recomputes a presigned URL's SigV4 signature from the URL alone with node:crypto, independently of
 * every implementation under test (the SDK signs extra query parameters, so byte equality with the
 * others is not possible for it).
 */
function sigV4Verifies(signedUrl) {
  const url = new URL(signedUrl)
  const params = [...url.searchParams].filter(([name]) => name !== 'X-Amz-Signature')
  const query = params
    .map(([name, value]) => [rfc3986(name), rfc3986(value)])
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&')
  const canonical = [
    'GET',
    url.pathname,
    query,
    `host:${url.host}`,
    '',
    'host',
    'UNSIGNED-PAYLOAD',
  ].join('\n')
  const [, date, region, service] = url.searchParams.get('X-Amz-Credential').split('/')
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    url.searchParams.get('X-Amz-Date'),
    `${date}/${region}/${service}/aws4_request`,
    createHash('sha256').update(canonical).digest('hex'),
  ].join('\n')
  let key = `AWS4${SECRET}`
  for (const part of [date, region, service, 'aws4_request'])
    key = createHmac('sha256', key).update(part).digest()
  return (
    createHmac('sha256', key).update(stringToSign).digest('hex') ===
    url.searchParams.get('X-Amz-Signature')
  )
}

/** Fails unless every implementation signs the same inputs the same way (or verifiably). */
export async function checkImplementations({ call, rsaPublic, ecPublic }) {
  const n = 50
  const ours = (await call(`/waybill?n=${n}&all`)).all
  for (const url of ours)
    if (!sigV4Verifies(url)) throw new Error(`waybill: ${url} does not verify`)
  for (const name of ['aws4fetch', 'smithy']) {
    const theirs = (await call(`/${name}?n=${n}&all`)).all
    theirs.forEach((url, i) => {
      if (signatureOf(url) !== signatureOf(ours[i]))
        throw new Error(`${name} disagrees with waybill on key ${i}`)
    })
  }
  // The AWS SDK signs extra parameters (X-Amz-Content-Sha256, x-id, x-amz-checksum-mode): its
  // URLs are checked by recomputing their signatures.
  for (const name of ['sdk-request-presigner', 'sdk-getSignedUrl']) {
    for (const url of (await call(`/${name}?n=${n}&all`)).all) {
      if (!sigV4Verifies(url)) throw new Error(`${name}: ${url} does not verify`)
    }
  }

  const rsaOurs = (await call(`/cf-waybill-rsa?n=${n}&all`)).all
  for (const name of ['cf-sdk-cloudfront-signer', 'cf-aws-cloudfront-sign']) {
    const theirs = (await call(`/${name}?n=${n}&all`)).all
    theirs.forEach((url, i) => {
      if (signatureOf(url, 'Signature') !== signatureOf(rsaOurs[i], 'Signature'))
        throw new Error(`${name} disagrees with waybill on key ${i}`)
    })
  }
  for (const [name, publicKey] of [
    ['cf-waybill-rsa', rsaPublic],
    ['cf-waybill-ecdsa', ecPublic],
    ['cf-waybill-wildcard', rsaPublic],
  ]) {
    for (const url of (await call(`/${name}?n=${n}&all`)).all) {
      if (!cloudFrontVerifies(url, publicKey))
        throw new Error(`${name}: a signature does not verify`)
    }
  }
  return n
}

/** The middle value (the upper of the two middle ones for an even count). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/**
 * µs per URL for each case `[name, n, repeats]`. A batch of n runs `reps` times inside one request
 * (reps × n ≥ 2,000) so the request's own cost is small next to the signing; the empty request's
 * median is subtracted anyway. Cases are interleaved round by round, so drift in a noisy machine
 * spreads over all of them instead of favouring whichever ran first.
 */
export async function timeRequests(bench, cases) {
  const [timed] = await timeSideBySide([bench], cases)
  return timed
}

/** Each Worker's empty request, the median of `rounds` (µs): what a timed call less it is the app's. */
export async function emptyMedians(benches, rounds = 100) {
  const empties = []
  for (const { call } of benches) {
    const samples = []
    for (let r = 0; r < rounds; r++) {
      const start = process.hrtime.bigint()
      await call('/empty')
      samples.push(Number(process.hrtime.bigint() - start) / 1000)
    }
    empties.push(median(samples))
  }
  return empties
}

/**
 * What case `b` costs over case `a` on each benchmark Worker, paired: in each round, each Worker
 * times a sample of `n` calls of `a` and one of `b` back to back (the order alternating), and the
 * difference is taken within the pair. Two samples a second apart can differ by more than 10 % on a
 * shared machine, far more than the few microseconds such a difference is; two back to back share
 * that drift, so the median of many pairs' differences is steadier than a difference of medians.
 * Per Worker: each case's median, and the differences' median and middle half (µs per call).
 */
export async function pairedDifference(benches, [a, b], rounds, n) {
  const empties = await emptyMedians(benches)
  const time = async (index, name) => {
    const start = process.hrtime.bigint()
    await benches[index].call(`/${name}?n=${n}&reps=1`)
    return Math.max(0, Number(process.hrtime.bigint() - start) / 1000 - empties[index]) / n
  }
  for (let index = 0; index < benches.length; index++) {
    for (const name of [a, b]) await time(index, name) // warm up
  }
  const results = benches.map(() => ({ a: [], b: [], diff: [] }))
  for (let round = 0; round < rounds; round++) {
    for (let index = 0; index < benches.length; index++) {
      const [first, second] = round % 2 === 0 ? [a, b] : [b, a]
      const x = await time(index, first)
      const y = await time(index, second)
      const [ta, tb] = round % 2 === 0 ? [x, y] : [y, x]
      results[index].a.push(ta)
      results[index].b.push(tb)
      results[index].diff.push(tb - ta)
    }
  }
  const quartile = (values, q) =>
    [...values].sort((x, y) => x - y)[Math.floor(q * (values.length - 1))]
  return results.map((result) => ({
    a: median(result.a),
    b: median(result.b),
    diff: median(result.diff),
    low: quartile(result.diff, 0.25),
    high: quartile(result.diff, 0.75),
  }))
}

/**
 * `timeRequests` for several benchmark Workers at once (a baseline checkout and this one): each
 * round runs every case on each Worker in turn, so a noisy machine's drift falls on all alike.
 */
export async function timeSideBySide(benches, cases) {
  const empties = await emptyMedians(benches)
  const plans = benches.map(() =>
    cases.map(([name, n, repeats, reps]) => ({
      name,
      n,
      repeats,
      // Small batches run repeatedly inside one request, unless the case says how often.
      reps: reps ?? Math.max(1, Math.ceil(2000 / n)),
      samples: [],
    })),
  )
  for (const [b, { call }] of benches.entries()) {
    for (const plan of plans[b]) await call(`/${plan.name}?n=${plan.n}&reps=${plan.reps}`) // warm up
  }
  const rounds = Math.max(...cases.map(([, , repeats]) => repeats))
  for (let round = 0; round < rounds; round++) {
    for (let p = 0; p < cases.length; p++) {
      for (const [b, { call }] of benches.entries()) {
        const plan = plans[b][p]
        if (round >= plan.repeats) continue
        const start = process.hrtime.bigint()
        await call(`/${plan.name}?n=${plan.n}&reps=${plan.reps}`)
        const us = Number(process.hrtime.bigint() - start) / 1000
        plan.samples.push(Math.max(0, us - empties[b]) / (plan.n * plan.reps))
      }
    }
  }
  return plans.map((benchPlans, b) => ({
    emptyUs: empties[b],
    rows: benchPlans.map(({ name, n, samples }) => ({
      name,
      n,
      median: median(samples),
      min: Math.min(...samples),
      max: Math.max(...samples),
    })),
  }))
}
