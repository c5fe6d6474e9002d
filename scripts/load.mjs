// `npm run load`: a bounded load and soak test on loopback, not part of CI. Starts versitygw (fresh
// data and credentials) and `wrangler dev`, checks that every request kind in the mix works end to
// end, drives a short baseline and then the mix with autocannon, checks again, and records
// throughput, latency, failures, workerd's resident memory and the Worker's JS heap after a forced
// garbage collection (through wrangler's DevTools port). Prints a report and writes it to
// bench/LOAD.md; exits non-zero if any response was unexpected, any request failed, wrangler dev
// died, or the hard timeout hit. Child processes and temporary files never outlive it.
//
//   node scripts/load.mjs [--duration 60] [--connections 100]
//
// The Worker runs with WAYBILL_REQUEST_LOG=errors: when a Worker logs a line for every one of 50+
// concurrent requests, wrangler dev 4.124 itself exits mid-run ("Error inside ProxyWorker: Network
// connection lost", cloudflare/workers-sdk#15451 and #15317; a one-line Worker that logs does the
// same).

import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus, tmpdir, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { AwsClient } from 'aws4fetch'
import { format, resolveConfig } from 'prettier'
import { VERSITYGW_VERSION, freePort, startVersitygw } from './versitygw.mjs'
import { spawnWranglerDev } from './wrangler-dev.mjs'
import { newSecret, sha256Hex } from './secrets.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const REPORT = join(ROOT, 'bench', 'LOAD.md')
const require = createRequire(import.meta.url)

const DEFAULT_DURATION_S = 60
const DEFAULT_CONNECTIONS = 100
// Room for starting both servers, the checks, the baseline, the idle period and stopping everything.
const HARD_TIMEOUT_MARGIN_S = 120
// A short run of the cheapest Worker route first: what wrangler dev alone manages on this machine.
const BASELINE_MAX_S = 10
const WORKER_START_TIMEOUT_MS = 60_000
const IDLE_MS = 10_000
const MEMORY_SAMPLE_MS = 1_000
const TREND_POINTS = 7
const CHILD_STOP_TIMEOUT_MS = 5_000
// One JS heap measurement through the DevTools port: connect, collect garbage, read the usage.
const HEAP_MEASURE_TIMEOUT_MS = 15_000
// workerd runs the collection the inspector asks for only when the isolate is next entered, so the
// Worker is sent a /healthz this often until the collection is reported done.
const GC_NUDGE_MS = 250
const SIGN_BATCH = 100
const UPLOAD_BYTES = 1024
const BUCKET = 'demo'
// Enough of an error body to see what went wrong; S3 errors can run to kilobytes.
const ERROR_BODY_CHARS = 400

// Keys that need encoding, so the load goes through the same escaping paths real keys do.
const OBJECTS = {
  'hello.txt': 'Hello from the waybill load test.\n',
  'photos/cat picture (1).txt': 'A key with spaces and parentheses.\n',
  'docs/résumé + notes.txt': 'A key with Unicode and a plus sign.\n',
  'emoji/🎉 party.txt': 'A key with an emoji.\n',
}
const SEEDED_KEYS = Object.keys(OBJECTS)
const SIGN_KEYS = Array.from({ length: SIGN_BATCH }, (_, i) =>
  i < SEEDED_KEYS.length ? SEEDED_KEYS[i] : `gallery/2026/img-${i}.jpg`,
)
const encodeKeyPath = (key) => key.split('/').map(encodeURIComponent).join('/')

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: String(DEFAULT_DURATION_S) },
    connections: { type: 'string', default: String(DEFAULT_CONNECTIONS) },
  },
})
const durationS = positiveInteger('--duration', flags.duration)
const connections = positiveInteger('--connections', flags.connections)
const baselineS = Math.min(BASELINE_MAX_S, durationS)
const HEAP_MEASUREMENTS = 3
const hardTimeoutS =
  durationS +
  baselineS +
  HARD_TIMEOUT_MARGIN_S +
  (HEAP_MEASUREMENTS * HEAP_MEASURE_TIMEOUT_MS) / 1000

function positiveInteger(name, value) {
  if (!/^[1-9]\d{0,5}$/.test(value)) {
    console.error(`${name} must be a whole number from 1 to 999999, got ${JSON.stringify(value)}`)
    process.exit(2)
  }
  return Number(value)
}

/** The autocannon run in progress, and why wrangler dev stopped if it did so on its own. */
let activeRun
let wranglerDied

// Everything started is registered here and undone in reverse order, whatever way the run ends.
const cleanups = []
let shuttingDown = false
async function shutdown(code) {
  if (shuttingDown) return
  shuttingDown = true
  // If stopping itself hangs, leave anyway, as a failure.
  setTimeout(() => process.exit(code || 1), 3 * CHILD_STOP_TIMEOUT_MS).unref()
  activeRun?.stop()
  for (const undo of cleanups.reverse()) {
    try {
      await undo()
    } catch (error) {
      console.error('cleanup:', error)
    }
  }
  process.exit(code)
}
process.on('SIGINT', () => void shutdown(130))
process.on('SIGTERM', () => void shutdown(143))
setTimeout(() => {
  console.error(`load: hard timeout of ${hardTimeoutS} s; stopping everything`)
  void shutdown(1)
}, hardTimeoutS * 1000)

/**
 * Every process seen under wrangler dev: pid → start time (so a reused pid is never mistaken for
 * it) and command name. wrangler runs itself in a second Node process, which runs esbuild and
 * workerd; if the first dies, the rest live on unless killed here.
 */
const processesSeen = new Map()

/** /proc/<pid>/stat fields after the command name, which is in parentheses and may hold spaces. */
function statFields(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined // it has exited
  }
}

/** The descendants of `rootPid`, as pids; each is recorded in `processesSeen`. */
function descendants(rootPid) {
  const children = new Map()
  for (const entry of readdirSync('/proc')) {
    const ppid = /^\d+$/.test(entry) ? Number(statFields(entry)?.[1]) : NaN
    if (!Number.isNaN(ppid)) children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
  }
  const found = []
  for (let i = -1; i < found.length; i++) found.push(...(children.get(found[i] ?? rootPid) ?? []))
  for (const pid of found) {
    if (processesSeen.has(pid)) continue
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
      processesSeen.set(pid, { start: statFields(pid)?.[19], comm })
    } catch {} // it has exited
  }
  return found
}

/** Whether a process seen earlier is still that same process. */
function stillRunning(pid) {
  const start = statFields(pid)?.[19]
  return start !== undefined && start === processesSeen.get(pid)?.start
}

const workerdPids = (rootPid) =>
  descendants(rootPid).filter((pid) => processesSeen.get(pid)?.comm === 'workerd')

/**
 * Resident memory (VmRSS, MiB) of the workerd processes under wrangler dev. wrangler runs two: a
 * proxy listening on the public port, and the runtime that holds the Worker's isolate.
 */
function workerdRss(wranglerPid, port) {
  const sample = { proxy: 0, worker: 0, pids: /** @type {number[]} */ ([]) }
  for (const pid of workerdPids(wranglerPid)) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      const status = readFileSync(`/proc/${pid}/status`, 'utf8')
      const role = cmdline.includes(`=127.0.0.1:${port}\0`) ? 'proxy' : 'worker'
      // A process that has exited but not been reaped has no VmRSS line.
      sample[role] += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
      sample.pids.push(pid)
    } catch {} // it exited between listing and reading
  }
  return sample
}

async function startWorker({ endpoint, accessKeyId, secretAccessKey, apiKey, dir }) {
  const envFile = join(dir, 'load.vars')
  // The origin is redefined so the Worker signs for this run's versitygw port, not the demo's 7070.
  const origins = {
    demo: {
      type: 's3',
      bucket: BUCKET,
      region: 'us-east-1',
      endpoint,
      style: 'path',
      credentials: 'DEMO',
    },
  }
  const apiKeys = [{ id: 'demo', sha256: sha256Hex(apiKey) }]
  writeFileSync(
    envFile,
    [
      `DEMO_ACCESS_KEY_ID=${accessKeyId}`,
      `DEMO_SECRET_ACCESS_KEY=${secretAccessKey}`,
      `WAYBILL_ORIGINS='${JSON.stringify(origins)}'`,
      `WAYBILL_TOKEN_SECRETS='${JSON.stringify([{ id: 'l', secret: newSecret() }])}'`,
      `WAYBILL_API_KEYS='${JSON.stringify(apiKeys)}'`,
      // Only failures are logged: wrangler dev 4.124 loses its proxy connection when a Worker
      // logs a line for every one of many concurrent requests (cloudflare/workers-sdk#15451).
      'WAYBILL_REQUEST_LOG=errors',
      '',
    ].join('\n'),
    { mode: 0o600 },
  )
  const port = await freePort()
  const inspectorPort = await freePort()
  // Quiet: at thousands of requests a second, the per-request log lines would swamp the terminal.
  const wrangler = spawnWranglerDev({ port, envFile, quiet: true, inspectorPort })
  cleanups.push(() => stopWrangler(wrangler))
  const base = `http://127.0.0.1:${port}`
  const deadline = Date.now() + WORKER_START_TIMEOUT_MS
  for (;;) {
    if (wrangler.exitCode !== null) {
      throw new Error(`wrangler dev exited with code ${wrangler.exitCode} (npm start shows why)`)
    }
    let response
    try {
      response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) })
    } catch {} // not listening yet
    if (response?.ok) {
      // If wrangler dev dies mid-run, the rest of the run would only count refused connections.
      // wrangler 4.124.0 does die under concurrent load: its proxy loses a connection to the
      // Worker ("Error inside ProxyWorker: Network connection lost") and exits 1 with an empty
      // error, https://github.com/cloudflare/workers-sdk/issues/15451.
      wrangler.once('exit', (code, signal) => {
        wranglerDied =
          `wrangler dev exited during the test (code ${code}, signal ${signal}); under load this ` +
          'is usually cloudflare/workers-sdk#15451, try fewer --connections'
        activeRun?.stop()
      })
      return { base, port, inspectorPort, wrangler }
    }
    // Any other answer (503 lists what is wrong with the configuration) will not fix itself.
    if (response) throw new Error(`/healthz answered ${response.status}: ${await response.text()}`)
    if (Date.now() > deadline) throw new Error('wrangler dev did not answer /healthz in time')
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

// wrangler stops its processes when it exits cleanly; if it has to be killed (or died), they would
// be orphaned, so every process seen under it, and anything they started since, is killed too.
async function stopWrangler(wrangler) {
  if (wrangler.pid !== undefined) descendants(wrangler.pid)
  if (wrangler.exitCode === null && wrangler.signalCode === null) {
    const exited = new Promise((resolve) => wrangler.once('exit', resolve))
    wrangler.kill('SIGTERM')
    const timer = setTimeout(() => wrangler.kill('SIGKILL'), CHILD_STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  }
  // Anything left, and anything an orphaned process started meanwhile, goes now, parents first.
  for (const pid of [...processesSeen.keys()]) if (stillRunning(pid)) descendants(pid)
  for (const pid of processesSeen.keys()) {
    try {
      if (stillRunning(pid)) process.kill(pid, 'SIGKILL')
    } catch {} // it exited in between
  }
}

/**
 * The Worker isolate's JS heap (`Runtime.getHeapUsage`, bytes) right after a full garbage
 * collection, read over the Chrome DevTools Protocol from wrangler dev's inspector port. Unlike
 * workerd's RSS, which also holds the runtime's and the allocator's memory, this grows only if
 * JavaScript objects stay reachable. A fresh connection each time, closed before returning.
 */
async function jsHeapAfterGc(inspectorPort, base) {
  const signal = AbortSignal.timeout(HEAP_MEASURE_TIMEOUT_MS)
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`, { signal })).json()
  const url = targets[0]?.webSocketDebuggerUrl
  if (url === undefined) throw new Error('the DevTools port lists no Worker')
  // wrangler's inspector proxy refuses a connection without an Origin it allows (loopback does).
  const socket = new WebSocket(url, { headers: { origin: 'http://127.0.0.1' } })
  const replies = new Map()
  let nextId = 0
  const failed = new Promise((_, reject) => {
    const fail = (why) => () => reject(new Error(`DevTools connection ${why}`))
    socket.addEventListener('error', fail('failed'))
    socket.addEventListener('close', fail('closed'))
    signal.addEventListener('abort', fail(`timed out after ${HEAP_MEASURE_TIMEOUT_MS} ms`))
  })
  failed.catch(() => {}) // only ever awaited inside a race
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(event.data)
    replies.get(message.id)?.(message)
  })
  const send = (method) => {
    const id = ++nextId
    const reply = new Promise((resolve, reject) =>
      replies.set(id, (message) =>
        message.error
          ? reject(new Error(`${method}: ${JSON.stringify(message.error)}`))
          : resolve(message.result),
      ),
    )
    socket.send(JSON.stringify({ id, method }))
    return Promise.race([reply, failed])
  }
  let nudger
  try {
    await Promise.race([new Promise((resolve) => socket.addEventListener('open', resolve)), failed])
    const collected = send('HeapProfiler.collectGarbage')
    nudger = setInterval(
      () => void fetch(`${base}/healthz`, { signal }).catch(() => {}),
      GC_NUDGE_MS,
    )
    await collected
    clearInterval(nudger)
    const usage = await send('Runtime.getHeapUsage')
    return {
      used: usage.usedSize,
      total: usage.totalSize,
      // workerd's own garbage-collected heap, and what V8 counts for ArrayBuffers and external
      // strings (the WebAssembly module's memory was not seen in it: 0 after every collection).
      embedder: usage.embedderHeapUsedSize ?? NaN,
      backing: usage.backingStorageSize ?? NaN,
    }
  } finally {
    clearInterval(nudger)
    socket.close()
  }
}

async function seed(endpoint, accessKeyId, secretAccessKey) {
  const client = new AwsClient({ accessKeyId, secretAccessKey, service: 's3', region: 'us-east-1' })
  for (const [key, body] of Object.entries(OBJECTS)) {
    const url = `${endpoint}/${BUCKET}/${encodeKeyPath(key)}`
    const response = await client.fetch(url, { method: 'PUT', body })
    if (!response.ok) throw new Error(`seeding ${key}: ${response.status} ${await response.text()}`)
  }
}

/** Fetches a URL waybill minted and checks that the store answers with the expected object. */
async function expectObject(url, key) {
  const response = await fetch(url)
  const text = await response.text()
  if (response.status !== 200 || text !== OBJECTS[key]) {
    const shown = text.slice(0, ERROR_BODY_CHARS)
    throw new Error(`GET of the URL signed for ${key} answered ${response.status}: ${shown}`)
  }
}

/**
 * The request mix. Each connection sends the kinds in table order, `weight` times each, round and
 * round. `ok` decides which statuses count as success; `check` takes one response and proves the URLs
 * in it work against versitygw. `optional` kinds are left out when their route answers 404.
 */
function requestKinds(base, apiKey) {
  // Fresh objects per request: autocannon adds Content-Length to the headers object it is given.
  const auth = () => ({ authorization: `Bearer ${apiKey}` })
  const json = () => ({ ...auth(), 'content-type': 'application/json' })
  const signBody = JSON.stringify({ origin: 'demo', keys: SIGN_KEYS })
  return [
    {
      name: 'sign',
      label: `\`POST /v1/sign\`, ${SIGN_BATCH} keys`,
      checked: 'a GET through each URL signed for a seeded object',
      weight: 1,
      urlsPerRequest: SIGN_BATCH,
      ok: (status) => status === 200,
      request: () => ({ method: 'POST', path: '/v1/sign', headers: json(), body: signBody }),
      async check(response) {
        const { urls } = await response.json()
        if (urls.length !== SIGN_BATCH) throw new Error(`sign returned ${urls.length} URLs`)
        for (const key of SEEDED_KEYS) await expectObject(urls[SIGN_KEYS.indexOf(key)].url, key)
      },
    },
    {
      name: 'redirect',
      label: '`GET /v1/redirect/demo/{key}` (302, not followed)',
      checked: 'a GET through the `Location`',
      weight: 1,
      urlsPerRequest: 1,
      ok: (status) => status === 302,
      request: (n) => ({
        method: 'GET',
        path: `/v1/redirect/demo/${encodeKeyPath(SEEDED_KEYS[n % SEEDED_KEYS.length])}`,
        headers: auth(),
      }),
      async check(response, n) {
        const key = SEEDED_KEYS[n % SEEDED_KEYS.length]
        await expectObject(response.headers.get('location'), key)
      },
    },
    {
      name: 'upload',
      label: `\`POST /v1/uploads\`, put, ${UPLOAD_BYTES} B`,
      checked: `a PUT of ${UPLOAD_BYTES} bytes to the URL, read back through a redirect`,
      weight: 1,
      urlsPerRequest: 1,
      optional: true,
      ok: (status) => status >= 200 && status < 300,
      request: (n) => ({
        method: 'POST',
        path: '/v1/uploads',
        headers: json(),
        body: JSON.stringify({
          origin: 'demo',
          key: `uploads/load-${n}.bin`,
          contentType: 'application/octet-stream',
          contentLength: UPLOAD_BYTES,
          mode: 'put',
        }),
      }),
      async check(response, n) {
        const { url, headers } = await response.json()
        const body = randomBytes(UPLOAD_BYTES)
        const put = await fetch(url, { method: 'PUT', headers, body })
        if (!put.ok) throw new Error(`PUT to the upload URL answered ${put.status}`)
        // Read it back through a redirect, so the upload is known to have landed under its key.
        const get = await fetch(`${base}/v1/redirect/demo/uploads/load-${n}.bin`, {
          headers: auth(),
        })
        const stored = Buffer.from(await get.arrayBuffer())
        if (!stored.equals(body)) throw new Error(`uploads/load-${n}.bin did not read back`)
      },
    },
  ]
}

/** The baseline: the Worker's cheapest route, through the same wrangler dev stack, signing nothing. */
const HEALTHZ = {
  name: 'healthz',
  weight: 1,
  urlsPerRequest: 0,
  ok: (status) => status === 200,
  request: () => ({ method: 'GET', path: '/healthz' }),
}

/** Sends one request of each kind and checks it; returns the kinds that can go in the mix. */
async function checkKinds(base, kinds, counter) {
  const usable = []
  for (const kind of kinds) {
    const n = counter.next++
    const { method, path, headers, body } = kind.request(n)
    const response = await fetch(base + path, { method, headers, body, redirect: 'manual' })
    if (kind.optional && response.status === 404) {
      console.error(
        `note: ${method} ${path} answered 404 (route not built yet); ${kind.name} left out`,
      )
      continue
    }
    if (!kind.ok(response.status)) {
      const text = (await response.text()).slice(0, ERROR_BODY_CHARS)
      throw new Error(`${kind.name}: ${method} ${path} answered ${response.status}: ${text}`)
    }
    await kind.check(response, n)
    usable.push(kind)
  }
  return usable
}

/** Runs autocannon over the mix for `seconds`, recording status and latency per kind. */
async function drive(base, kinds, counter, seconds) {
  const stats = new Map(kinds.map((kind) => [kind, { statuses: {}, latenciesMs: [], bad: 0 }]))
  const requests = kinds.flatMap((kind) =>
    Array.from({ length: kind.weight }, () => ({
      // Called just before each send (pipelining 1), so the context carries this request's start.
      setupRequest(request, context) {
        context.sentAt = performance.now()
        return Object.assign(request, kind.request(counter.next++))
      },
      onResponse(status, _body, context) {
        const s = stats.get(kind)
        s.latenciesMs.push(performance.now() - context.sentAt)
        s.statuses[status] = (s.statuses[status] ?? 0) + 1
        if (!kind.ok(status)) s.bad++
      },
    })),
  )
  activeRun = autocannon({ url: base, connections, duration: seconds, requests })
  const result = await activeRun
  activeRun = undefined
  // Figures from a run whose server went away describe nothing; keep the last report instead.
  if (wranglerDied) throw new Error(`${wranglerDied}; bench/LOAD.md left as it was`)
  return { result, stats }
}

function percentile(sorted, p) {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]
}

function versions() {
  const version = (name) => require(`${name}/package.json`).version
  const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' })
  let commit = 'unknown'
  try {
    commit = git('rev-parse', '--short', 'HEAD').trim()
    // Plumbing, so the index is only read: exits 1 when tracked files differ from the commit.
    git('diff-index', '--quiet', 'HEAD', '--')
  } catch {
    if (commit !== 'unknown') commit += ' with uncommitted changes'
  }
  return (
    `Node ${process.version}, wrangler ${version('wrangler')}, workerd ${version('workerd')}, ` +
    `versitygw ${VERSITYGW_VERSION}, autocannon ${version('autocannon')}; commit ${commit}`
  )
}

/** An error's message with its causes: fetch's own message ("fetch failed") says nothing. */
const describe = (error) =>
  error instanceof Error
    ? error.message + (error.cause === undefined ? '' : ` (${describe(error.cause)})`)
    : String(error)

const int = (v) => Math.round(v).toLocaleString('en-US')
const ms = (v) => (Number.isNaN(v) ? '–' : v >= 10 ? v.toFixed(0) : v.toFixed(1))
const mib = (v) => v.toFixed(0)
const heapMib = (v) => (Number.isNaN(v) ? '–' : (v / 2 ** 20).toFixed(2))
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0]

/** `count` values spread evenly over `values`, first and last included. */
function evenSteps(values, count) {
  const n = Math.min(count, values.length)
  if (n <= 1) return values.slice(0, n)
  return Array.from(
    { length: n },
    (_, i) => values[Math.round((i * (values.length - 1)) / (n - 1))],
  )
}

/** Responses whose status is wrong for their kind, over all kinds of a run. */
const unexpected = (stats) => [...stats.values()].reduce((sum, s) => sum + s.bad, 0)

function report({ mix, baseline, kinds, leftOut, memory, heap, load, after }) {
  const { result, stats } = mix
  const seconds = result.duration
  const total = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx']
  let urls = 0
  for (const [kind, s] of stats) urls += (s.latenciesMs.length - s.bad) * kind.urlsPerRequest
  const cpu = cpus()
  const lat = result.latency
  const base = baseline.result
  const workerdSeen = [...processesSeen.values()].filter((p) => p.comm === 'workerd').length
  const restarted = workerdSeen > memory.before.pids.length
  const lines = [
    '# Load test',
    '',
    `Date: ${new Date().toISOString()}. Machine: ${cpu.length} × ${cpu[0]?.model.trim()}, ` +
      `${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM; 1-minute load average ${load.before} before, ` +
      `${load.after} after. ${versions()}.`,
    '',
    `\`node scripts/load.mjs --duration ${durationS} --connections ${connections}\`: autocannon ` +
      `(in this process) against \`wrangler dev\` on 127.0.0.1 with ${connections} connections; ` +
      `each connection sends the mix (${kinds.map((k) => `${k.name} ×${k.weight}`).join(', ')}) ` +
      'in turn. The load generator, wrangler, workerd and versitygw share the machine, so these ' +
      'are figures for this machine and for wrangler dev, not for the edge.',
    ...leftOut.map(
      (kind) => `\n**${kind.name} left out**: its route answered 404 (not built yet).`,
    ),
    ...(restarted
      ? [
          '\n**wrangler dev replaced a workerd process during the run** (it does when a file of ' +
            'the project changes, and was seen to under load in an unedited copy too). The memory ' +
            'figures span the old and new processes.',
        ]
      : []),
    '',
    '| measure | value |',
    '|---|---:|',
    `| duration | ${seconds} s |`,
    `| requests | ${int(total)} |`,
    `| throughput | ${int(total / seconds)} req/s (per-second samples ${int(result.requests.min)}–${int(result.requests.max)}) |`,
    `| URLs signed | ${int(urls)} (${int(urls / seconds)} /s) |`,
    `| latency p50 / p90 / p99 / max | ${ms(lat.p50)} / ${ms(lat.p90)} / ${ms(lat.p99)} / ${ms(lat.max)} ms |`,
    `| non-2xx/3xx responses | ${result['1xx'] + result['4xx'] + result['5xx']} |`,
    `| responses with the wrong status for their kind | ${unexpected(stats)} |`,
    `| errors (of which timeouts) | ${result.errors} (${result.timeouts}) |`,
    `| baseline: \`GET /healthz\` alone for ${base.duration} s, no signing | ` +
      `${int(base.requests.total / base.duration)} req/s, p50 ${ms(base.latency.p50)} / ` +
      `p99 ${ms(base.latency.p99)} ms, ${base.errors + unexpected(baseline.stats)} failed |`,
    // A climb that flattens is the heap settling; one that keeps climbing to the end is a leak.
    `| workerd RSS, Worker runtime, from before the baseline to after the idle (even steps) | ` +
      `${evenSteps(memory.series, TREND_POINTS).map(mib).join(' → ')} MiB |`,
    ...['worker', 'proxy'].map(
      (role) =>
        `| workerd RSS, ${role === 'worker' ? 'Worker runtime' : "wrangler's proxy"}: ` +
        `before / peak / after / after ${IDLE_MS / 1000} s idle | ${mib(memory.before[role])} / ` +
        `${mib(memory.peak[role])} / ${mib(memory.after[role])} / ${mib(memory.idle[role])} MiB |`,
    ),
    // V8's own figures for the Worker's isolate: what JavaScript keeps reachable, without the
    // runtime's and the allocator's memory that RSS also counts.
    ...[
      ['used', 'JS heap used after GC, Worker isolate'],
      ['total', 'JS heap size after GC, Worker isolate'],
      ['embedder', 'embedder (workerd) heap used after GC'],
      ['backing', 'ArrayBuffer and external string storage after GC'],
    ].map(
      ([field, label]) =>
        `| ${label}: before / after / after ${IDLE_MS / 1000} s idle | ` +
        (heap.error === undefined
          ? `${['before', 'after', 'idle'].map((when) => heapMib(heap[when][field])).join(' / ')} MiB |`
          : `not measured: ${heap.error} |`),
    ),
    '',
    '| kind | request | responses | statuses | p50 ms | p99 ms | max ms |',
    '|---|---|---:|---|---:|---:|---:|',
    ...[...stats].map(([kind, s]) => {
      const sorted = s.latenciesMs.sort((a, b) => a - b)
      const statuses = Object.entries(s.statuses)
        .map(([status, count]) => `${status}: ${int(count)}`)
        .join(', ')
      return (
        `| ${kind.name} | ${kind.label} | ${int(sorted.length)} | ${statuses} | ` +
        `${ms(percentile(sorted, 0.5))} | ${ms(percentile(sorted, 0.99))} | ${ms(sorted.at(-1) ?? NaN)} |`
      )
    }),
    '',
    "JS heap: through wrangler dev's DevTools port, `HeapProfiler.collectGarbage` and then " +
      "`Runtime.getHeapUsage` on the Worker's isolate, before the baseline, right after the mix " +
      `and after the ${IDLE_MS / 1000} s idle. The collection after the mix comes before the idle ` +
      'RSS sample. The reading right after the mix can still hold requests that were in flight ' +
      'when autocannon stopped; the one after the idle is the one to compare with before.',
    '',
    'Before the run, one request of each kind was checked end to end against versitygw: ' +
      kinds.map((kind) => `${kind.name}, ${kind.checked}`).join('; ') +
      `. The same checks after the run: ${after}.`,
    '',
  ]
  return lines.join('\n')
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'waybill-load-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const accessKeyId = `LOAD${randomBytes(8).toString('hex').toUpperCase()}`
  const secretAccessKey = randomBytes(30).toString('base64url')
  const apiKey = `wb_load_${randomBytes(24).toString('base64url')}`

  const s3 = await startVersitygw({
    dataDir: join(dir, 's3'),
    accessKeyId,
    secretAccessKey,
    buckets: [BUCKET],
  })
  cleanups.push(() => s3.stop())
  await seed(s3.endpoint, accessKeyId, secretAccessKey)
  const worker = { endpoint: s3.endpoint, accessKeyId, secretAccessKey, apiKey, dir }
  const { base, port, inspectorPort, wrangler } = await startWorker(worker)

  const counter = { next: 0 }
  const allKinds = requestKinds(base, apiKey)
  const kinds = await checkKinds(base, allKinds, counter)
  const leftOut = allKinds.filter((kind) => !kinds.includes(kind))

  const memory = { peak: { proxy: 0, worker: 0 }, series: /** @type {number[]} */ ([]) }
  const sampleMemory = () => {
    const sample = workerdRss(wrangler.pid, port)
    memory.series.push(sample.worker)
    memory.peak.proxy = Math.max(memory.peak.proxy, sample.proxy)
    memory.peak.worker = Math.max(memory.peak.worker, sample.worker)
    return sample
  }
  memory.before = sampleMemory()
  if (memory.before.worker === 0 || memory.before.proxy === 0) {
    throw new Error('could not find the two workerd processes under wrangler dev')
  }
  // If the DevTools port fails, the run goes on and the report says why the heap is missing.
  const heap = {}
  const measureHeap = async (when) => {
    if (heap.error !== undefined) return
    try {
      heap[when] = await jsHeapAfterGc(inspectorPort, base)
      console.error(`load: JS heap used after GC (${when}): ${heapMib(heap[when].used)} MiB`)
    } catch (error) {
      heap.error = `${when}: ${describe(error)}`
      console.error(`load: JS heap not measured, ${heap.error}`)
    }
  }
  await measureHeap('before')
  const load = { before: loadAverage() }
  const sampler = setInterval(sampleMemory, MEMORY_SAMPLE_MS)
  console.error(`load: baseline, GET /healthz for ${baselineS} s…`)
  const baseline = await drive(base, [HEALTHZ], counter, baselineS)
  console.error(`load: the mix, ${connections} connections for ${durationS} s…`)
  const mix = await drive(base, kinds, counter, durationS)
  clearInterval(sampler)
  memory.after = sampleMemory()
  load.after = loadAverage()
  await measureHeap('after')
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS))
  memory.idle = sampleMemory()
  await measureHeap('idle')

  // The Worker must still sign working URLs after the load; a failure here still gets a report.
  const after = await checkKinds(base, kinds, counter).then(
    () => 'passed',
    (error) => `**failed**: ${describe(error)}`,
  )

  const markdown = await format(
    report({ mix, baseline, kinds, leftOut, memory, heap, load, after }),
    {
      ...(await resolveConfig(REPORT)),
      parser: 'markdown',
    },
  )
  writeFileSync(REPORT, markdown)
  console.log(markdown)
  // Every non-2xx/3xx status is also a wrong status for its kind; both are checked all the same.
  let failed = 0
  for (const { result, stats } of [baseline, mix]) {
    const non2xx3xx = result['1xx'] + result['4xx'] + result['5xx']
    failed += Math.max(non2xx3xx, unexpected(stats)) + result.errors + result.mismatches
  }
  if (after !== 'passed') failed++
  if (failed > 0) {
    console.error(`load: FAILED: ${failed} requests failed or had the wrong status (see above)`)
    return 1
  }
  return 0
}

main().then(
  (code) => shutdown(code),
  (error) => {
    console.error(`load: ${describe(error)}`)
    return shutdown(1)
  },
)
