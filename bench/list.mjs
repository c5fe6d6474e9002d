// `node bench/list.mjs`: the wall time of a signed listing of 20 prefixes × 500 objects through
// `wrangler dev` against versitygw (issue #6), with the S3 calls
//   (a) concurrent: one `GET /v1/list/demo` with the 20 prefixes; the Worker lists them
//       S3_CONCURRENCY at a time over its pooled connections;
//   (b) sequential from the client: 20 requests one after another, one prefix each;
//   (c) sequential inside the Worker: the request of (a) to a second Worker built from the same
//       snapshot of src/ with S3_CONCURRENCY = 1 (the snapshot is patched, src/ is not touched);
// and, for scale, the 20 ListObjectsV2 calls alone from Node, one after another and 6 at a time.
// (a), (b) and (c) are also timed against a `remote` origin: the same versitygw behind a proxy
// that holds each S3 call REMOTE_DELAY_MS, a stand-in for a store across a network.
// Every run must return all 10,000 objects in order, each with a URL; a sample of the URLs is
// fetched. A counting proxy in front of versitygw shows how many S3 calls each variant had in
// flight at once and how many connections it opened. Writes bench/LIST.md and prints it.
//
//   node bench/list.mjs [--rounds 15]

import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { request as httpRequest, createServer, Agent } from 'node:http'
import { tmpdir, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { AwsClient } from 'aws4fetch'
import { format, resolveConfig } from 'prettier'
import { VERSITYGW_VERSION, ensureVersitygw, freePort } from '../scripts/versitygw.mjs'
import { newSecret, sha256Hex } from '../scripts/secrets.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const REPORT = join(ROOT, 'bench', 'LIST.md')

const PREFIX_COUNT = 20
const OBJECTS_PER_PREFIX = 500
const TOTAL_OBJECTS = PREFIX_COUNT * OBJECTS_PER_PREFIX
const LIST_LIMIT = 10_000
const DEFAULT_ROUNDS = 15
const WARMUP_ROUNDS = 2
const SEED_CONCURRENCY = 32
/** What (c)'s Worker is built with; (a)'s keeps the value in src/constants.ts. */
const SEQUENTIAL_S3_CONCURRENCY = 1
/** The Node-only store baseline lists this many prefixes at a time (S3_CONCURRENCY as shipped). */
const NODE_CONCURRENCY = 6
/** Signed URLs fetched per variant to check they open the object they name (one per prefix). */
const URL_SAMPLE_INDEX = 250
/** What the `remote` origin's proxy adds to every S3 call: a same-region network round trip. */
const REMOTE_DELAY_MS = 20
const HARD_TIMEOUT_S = 1200
const WORKER_START_TIMEOUT_MS = 120_000
const STORE_START_TIMEOUT_MS = 15_000
const CHILD_STOP_TIMEOUT_MS = 5_000
const BUCKET = 'demo'

const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: String(DEFAULT_ROUNDS) } },
})
if (!/^[1-9]\d{0,2}$/.test(flags.rounds)) {
  console.error(
    `--rounds must be a whole number from 1 to 999, got ${JSON.stringify(flags.rounds)}`,
  )
  process.exit(2)
}
const ROUNDS = Number(flags.rounds)

const prefixOf = (i) => `bench-${String(i).padStart(2, '0')}/`
const PREFIXES = Array.from({ length: PREFIX_COUNT }, (_, i) => prefixOf(i))
// Zero-padded ASCII names, so this order is also S3's order within and across prefixes.
const EXPECTED_KEYS = PREFIXES.flatMap((prefix) =>
  Array.from(
    { length: OBJECTS_PER_PREFIX },
    (_, j) => `${prefix}object-${String(j).padStart(4, '0')}.txt`,
  ),
)
// Each object's body is its own key, so a fetched URL shows which object it opened.
const bodyOf = (key) => `${key}\n`

// Everything started is registered here and undone in reverse order, whatever way the run ends.
const cleanups = []
let shuttingDown = false
async function shutdown(code) {
  if (shuttingDown) return
  shuttingDown = true
  setTimeout(() => process.exit(code || 1), 4 * CHILD_STOP_TIMEOUT_MS).unref()
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
  console.error(`list: hard timeout of ${HARD_TIMEOUT_S} s; stopping everything`)
  void shutdown(1)
}, HARD_TIMEOUT_S * 1000)

/** An error's message with its causes: fetch's own message ("fetch failed") says nothing. */
const describe = (error) =>
  error instanceof Error
    ? error.message + (error.cause === undefined ? '' : ` (${describe(error.cause)})`)
    : String(error)

/** Maps `items` through `fn` with at most `limit` calls in flight, keeping order. */
async function pool(items, limit, fn) {
  const results = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await fn(items[i], i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/**
 * Two Worker folders under .tmp/ (inside the project, so node_modules resolves), each with a copy
 * of src/ taken now and wrangler.jsonc: both Workers run the same code whatever is edited in src/
 * meanwhile, and differ only in S3_CONCURRENCY.
 */
function snapshotWorkers() {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true })
  const dir = mkdtempSync(join(ROOT, '.tmp', 'bench-list-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const make = (name) => {
    const folder = join(dir, name)
    cpSync(join(ROOT, 'src'), join(folder, 'src'), { recursive: true })
    cpSync(join(ROOT, 'wrangler.jsonc'), join(folder, 'wrangler.jsonc'))
    symlinkSync(join(ROOT, 'public'), join(folder, 'public'))
    return folder
  }
  const concurrent = make('concurrent')
  const sequential = make('sequential')
  const constantsFile = join(sequential, 'src', 'constants.ts')
  const constants = readFileSync(constantsFile, 'utf8')
  const pattern = /^export const S3_CONCURRENCY = (\d+)$/m
  const shipped = pattern.exec(constants)
  if (shipped === null) throw new Error('src/constants.ts has no `export const S3_CONCURRENCY = N`')
  writeFileSync(
    constantsFile,
    constants.replace(pattern, `export const S3_CONCURRENCY = ${SEQUENTIAL_S3_CONCURRENCY}`),
  )
  return { concurrent, sequential, shippedConcurrency: Number(shipped[1]) }
}

/**
 * An HTTP proxy in front of versitygw that counts requests, the most in flight at once and the
 * connections opened to it, and holds each request `delayMs` before forwarding it. It forwards the
 * Host header as received, so signatures still verify.
 */
async function startCountingProxy(target, delayMs = 0) {
  const upstream = new URL(target)
  const agent = new Agent({ keepAlive: true })
  // `closeAsked`: requests that asked to close the connection after them; `closeAnswered`: answers
  // from the store that said it would close it.
  const counts = {
    requests: 0,
    inFlight: 0,
    maxInFlight: 0,
    connections: 0,
    closeAsked: 0,
    closeAnswered: 0,
  }
  const server = createServer((req, res) => {
    counts.requests++
    if (/\bclose\b/i.test(req.headers.connection ?? '')) counts.closeAsked++
    counts.maxInFlight = Math.max(counts.maxInFlight, ++counts.inFlight)
    let done = false
    const finish = () => {
      if (!done) counts.inFlight--
      done = true
    }
    res.once('close', finish)
    const forward = () => {
      const upstreamRequest = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          agent,
        },
        (answer) => {
          if (/\bclose\b/i.test(answer.headers.connection ?? '')) counts.closeAnswered++
          res.writeHead(answer.statusCode, answer.headers)
          answer.pipe(res)
        },
      )
      upstreamRequest.once('error', () => res.destroy())
      req.pipe(upstreamRequest)
    }
    if (delayMs === 0) forward()
    else setTimeout(forward, delayMs)
  })
  server.on('connection', () => counts.connections++)
  const port = await freePort()
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
        agent.destroy()
      }),
  )
  const reset = () => {
    counts.requests = 0
    counts.maxInFlight = counts.inFlight
    counts.connections = 0
    counts.closeAsked = 0
    counts.closeAnswered = 0
  }
  return { endpoint: `http://127.0.0.1:${port}`, counts, reset }
}

/**
 * versitygw as scripts/versitygw.mjs starts it, plus `--keep-alive`: without it versitygw answers
 * every request with `Connection: close`, where S3 keeps connections open, and whether the Worker
 * reuses them is part of what is measured. (startVersitygw has no option for it.)
 */
async function startStore({ dataDir, accessKeyId, secretAccessKey }) {
  const binary = ensureVersitygw()
  mkdirSync(join(dataDir, BUCKET), { recursive: true })
  const port = await freePort()
  const args = ['--access', accessKeyId, '--secret', secretAccessKey, '--region', 'us-east-1']
  args.push('--port', `127.0.0.1:${port}`, '--virtual-domain', 'localhost', '--keep-alive')
  args.push('--quiet', 'posix', dataDir)
  // No VGW_* setting may leak in from the caller's shell.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VGW_')),
  )
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'], env })
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  })
  const endpoint = `http://127.0.0.1:${port}`
  const deadline = Date.now() + STORE_START_TIMEOUT_MS
  for (;;) {
    if (child.exitCode !== null) throw new Error(`versitygw exited (${child.exitCode}):\n${stderr}`)
    try {
      // Any HTTP answer (an unsigned request gets 403) means it is serving.
      await (await fetch(endpoint, { signal: AbortSignal.timeout(1000) })).text()
      return { endpoint }
    } catch {
      if (Date.now() > deadline) throw new Error(`versitygw did not answer:\n${stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

async function seed(s3) {
  const started = performance.now()
  await pool(EXPECTED_KEYS, SEED_CONCURRENCY, async (key) => {
    const response = await s3.fetch(`${s3.endpoint}/${BUCKET}/${key}`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: bodyOf(key),
    })
    if (!response.ok) throw new Error(`seeding ${key}: ${response.status} ${await response.text()}`)
  })
  return performance.now() - started
}

/** Kills a process group we started (wrangler and the workerd processes under it). */
function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal)
  } catch (error) {
    if (error.code !== 'ESRCH') throw error
  }
}

/** `wrangler dev` for one snapshot folder, in its own process group so nothing outlives it. */
async function startWorker(folder, envFile) {
  const port = await freePort()
  // Its own devtools port too: two Workers here, and other wrangler dev runs, would share 9229.
  const inspectorPort = await freePort()
  const wrangler = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
      'dev',
      '--config',
      join(folder, 'wrangler.jsonc'),
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--env-file',
      envFile,
      '--inspector-port',
      String(inspectorPort),
      '--show-interactive-dev-session=false',
      '--log-level',
      'error',
    ],
    {
      cwd: folder,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    },
  )
  let stderr = ''
  wrangler.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  cleanups.push(async () => {
    if (wrangler.exitCode === null && wrangler.signalCode === null) {
      const exited = new Promise((resolve) => wrangler.once('exit', resolve))
      killGroup(wrangler, 'SIGTERM')
      const timer = setTimeout(() => killGroup(wrangler, 'SIGKILL'), CHILD_STOP_TIMEOUT_MS)
      await exited
      clearTimeout(timer)
    }
    // Whatever of the group is left once wrangler is gone (a workerd it did not stop).
    killGroup(wrangler, 'SIGKILL')
  })
  const base = `http://127.0.0.1:${port}`
  const deadline = Date.now() + WORKER_START_TIMEOUT_MS
  for (;;) {
    if (wrangler.exitCode !== null) {
      throw new Error(`wrangler dev exited with code ${wrangler.exitCode}:\n${stderr}`)
    }
    let response
    try {
      response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) })
    } catch {} // not listening yet
    if (response?.ok) return { base, wrangler }
    if (response) throw new Error(`/healthz answered ${response.status}: ${await response.text()}`)
    if (Date.now() > deadline) throw new Error(`wrangler dev did not answer /healthz:\n${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

function listUrl(base, origin, prefixes) {
  const query = new URLSearchParams(prefixes.map((prefix) => ['prefix', prefix]))
  query.set('limit', String(LIST_LIMIT))
  return `${base}/v1/list/${origin}?${query}`
}

async function getText(url, headers) {
  const response = await fetch(url, { headers })
  const text = await response.text()
  if (response.status !== 200) {
    throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 500)}`)
  }
  return text
}

/**
 * The variants. `run(origin)` returns the response bodies; only it is timed. `check(bodies, origin)`
 * throws unless they hold exactly the seeded objects, in order, and returns the listed items.
 */
function variants({ concurrentBase, sequentialBase, apiKey, s3, endpoints, shippedConcurrency }) {
  const headers = { authorization: `Bearer ${apiKey}` }
  const checkListing = (bodies, origin) => {
    const signedFor = `${endpoints[origin]}/${BUCKET}/`
    const items = []
    for (const body of bodies) {
      const page = JSON.parse(body)
      if (page.cursor !== null) throw new Error('a listing returned a cursor (it was cut short)')
      items.push(...page.items)
    }
    if (items.length !== TOTAL_OBJECTS) {
      throw new Error(`the listing had ${items.length} items, not ${TOTAL_OBJECTS}`)
    }
    items.forEach((item, i) => {
      if (item.key !== EXPECTED_KEYS[i]) {
        throw new Error(`item ${i} is ${JSON.stringify(item.key)}, not ${EXPECTED_KEYS[i]}`)
      }
      if (typeof item.url !== 'string' || !item.url.startsWith(signedFor)) {
        throw new Error(`item ${i} (${item.key}) has no URL signed for ${signedFor}`)
      }
    })
    return items
  }
  const nodeList = async (prefix) => {
    const query = `list-type=2&max-keys=1000&prefix=${encodeURIComponent(prefix)}`
    const response = await s3.fetch(`${s3.endpoint}/${BUCKET}/?${query}`)
    const text = await response.text()
    if (!response.ok) throw new Error(`ListObjectsV2 ${prefix}: ${response.status} ${text}`)
    return text
  }
  const checkNode = (bodies) => {
    bodies.forEach((xml, i) => {
      const keys = [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1])
      const expected = EXPECTED_KEYS.slice(i * OBJECTS_PER_PREFIX, (i + 1) * OBJECTS_PER_PREFIX)
      if (keys.join('\n') !== expected.join('\n') || !xml.includes('<IsTruncated>false<')) {
        throw new Error(`ListObjectsV2 of ${PREFIXES[i]} returned ${keys.length} other keys`)
      }
    })
    return undefined
  }
  const oneRequest = (base) => async (origin) => [
    await getText(listUrl(base, origin, PREFIXES), headers),
  ]
  return {
    a: {
      id: 'a',
      label:
        `(a) concurrent: 1 request with ${PREFIX_COUNT} prefixes, the Worker lists ` +
        `${shippedConcurrency} at a time (\`S3_CONCURRENCY\` as shipped)`,
      requests: 1,
      run: oneRequest(concurrentBase),
      check: checkListing,
    },
    b: {
      id: 'b',
      label: `(b) sequential from the client: ${PREFIX_COUNT} requests one after another, 1 prefix each`,
      requests: PREFIX_COUNT,
      run: async (origin) => {
        const bodies = []
        for (const prefix of PREFIXES) {
          bodies.push(await getText(listUrl(concurrentBase, origin, [prefix]), headers))
        }
        return bodies
      },
      check: checkListing,
    },
    c: {
      id: 'c',
      label:
        `(c) sequential in the Worker: 1 request with ${PREFIX_COUNT} prefixes to a copy of ` +
        `src/ with \`S3_CONCURRENCY = ${SEQUENTIAL_S3_CONCURRENCY}\``,
      requests: 1,
      run: oneRequest(sequentialBase),
      check: checkListing,
    },
    nodeSequential: {
      id: 'store-seq',
      label:
        `store alone (Node → versitygw, no Worker, no signing): ${PREFIX_COUNT} ` +
        'ListObjectsV2 one after another',
      requests: PREFIX_COUNT,
      run: async () => {
        const bodies = []
        for (const prefix of PREFIXES) bodies.push(await nodeList(prefix))
        return bodies
      },
      check: checkNode,
    },
    nodeConcurrent: {
      id: 'store-conc',
      label: `store alone: ${PREFIX_COUNT} ListObjectsV2, ${NODE_CONCURRENCY} at a time`,
      requests: PREFIX_COUNT,
      run: () => pool(PREFIXES, NODE_CONCURRENCY, nodeList),
      check: checkNode,
    },
  }
}

/** Fetches one signed URL per prefix and checks each opens the object it was signed for. */
async function checkUrls(items) {
  const sample = PREFIXES.map((_, i) => items[i * OBJECTS_PER_PREFIX + URL_SAMPLE_INDEX])
  await pool(sample, 4, async (item) => {
    const response = await fetch(item.url)
    const text = await response.text()
    if (response.status !== 200 || text !== bodyOf(item.key)) {
      throw new Error(`GET of the URL signed for ${item.key} answered ${response.status}: ${text}`)
    }
  })
  return sample.length
}

/** One run of a row, checked; only the requests are timed. */
async function timed({ variant, origin }) {
  const started = performance.now()
  const bodies = await variant.run(origin)
  const ms = performance.now() - started
  return { ms, items: variant.check(bodies, origin) }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1))
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8')
  const processors = cpuinfo.match(/^processor\s*:/gm)?.length ?? 0
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1].trim() ?? 'unknown CPU'
  const cores = /^cpu cores\s*:\s*(\d+)$/m.exec(cpuinfo)?.[1]
  const mhz = /^cpu MHz\s*:\s*([\d.]+)$/m.exec(cpuinfo)?.[1]
  return (
    `${processors} logical CPUs in /proc/cpuinfo (${model}` +
    `${cores ? `, ${cores} cores per socket` : ''}${mhz ? `, ${Math.round(Number(mhz))} MHz` : ''}), ` +
    `${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`
  )
}

function versions() {
  // Read from disk: not every package exports its package.json.
  const version = (name) =>
    JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version
  let commit = 'unknown'
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' })
    commit = commit.trim()
  } catch {}
  return (
    `Node ${process.version}, wrangler ${version('wrangler')}, workerd ${version('workerd')}, ` +
    `versitygw ${VERSITYGW_VERSION}, aws4fetch ${version('aws4fetch')}; src/ at commit ${commit} ` +
    'plus the working tree’s uncommitted changes, as copied at the start of the run'
  )
}

function table(rows, reference) {
  const base = median(reference.times)
  return [
    `| variant | HTTP requests | wall time, median of ${ROUNDS} | min–max | ÷ (a) |`,
    '|---|---:|---:|---:|---:|',
    ...rows.map(
      ({ variant, times }) =>
        `| ${variant.label} | ${variant.requests} | **${fmt(median(times))} ms** | ` +
        `${fmt(Math.min(...times))}–${fmt(Math.max(...times))} ms | ` +
        `${(median(times) / base).toFixed(2)} |`,
    ),
  ]
}

function report({ local, remote, probes, seedMs, urlChecks, load }) {
  const cpus = readFileSync('/proc/cpuinfo', 'utf8').match(/^processor\s*:/gm)?.length ?? 0
  const lines = [
    '# Listing many prefixes: concurrent vs sequential (issue #6)',
    '',
    `Date: ${new Date().toISOString()}. Machine: ${machine()}; 1/5/15-minute load average ` +
      `${load.before} before the run and ${load.after} after (the machine is shared; the client, ` +
      `wrangler, workerd and versitygw all run on it). ${versions()}.`,
    '',
    `versitygw (posix backend, loopback, fresh data and credentials, keep-alive on as on S3: ` +
      'by default versitygw answers every request with `Connection: close`) holds ' +
      `${PREFIX_COUNT} ` +
      `prefixes × ${OBJECTS_PER_PREFIX} objects (${TOTAL_OBJECTS.toLocaleString('en-US')}, ` +
      `bodies of about 30 bytes, seeded ${SEED_CONCURRENCY} at a time in ` +
      `${(seedMs / 1000).toFixed(1)} s). Each run lists all of them with signed GET URLs ` +
      `(\`GET /v1/list/{origin}?prefix=…&limit=${LIST_LIMIT}\`, JSON, about ` +
      `${(local.bytes / 2 ** 20).toFixed(1)} MiB) through \`wrangler dev\` on loopback, timed from ` +
      'the client until the last body is read. Each prefix is one ListObjectsV2 page ' +
      `(${OBJECTS_PER_PREFIX} < 1,000 keys). ${WARMUP_ROUNDS} warm-up rounds, then ${ROUNDS} ` +
      'timed rounds; in a round every row runs once, one at a time, in an order rotated each ' +
      'round. Both Workers run one copy of src/ taken at the start; (c) differs from (a) only ' +
      'in `S3_CONCURRENCY`.',
    '',
    '## versitygw on loopback',
    '',
    ...table(local.rows, local.rows[0]),
    '',
    'On loopback there is no network wait for concurrency to overlap: each ListObjectsV2 is CPU ' +
      'work in versitygw, and each answer CPU work in workerd (parsing, signing, JSON), all on ' +
      `the same ${cpus} logical CPUs as the client. The store-alone rows show what versitygw by ` +
      'itself gains from 6 listings at a time on this machine.',
    '',
    `## Store ${REMOTE_DELAY_MS} ms away (emulated)`,
    '',
    `The same rows against origin \`remote\`: the same versitygw behind a proxy that holds each ` +
      `S3 call ${REMOTE_DELAY_MS} ms before forwarding it, as a store across a network would. ` +
      'Only the Worker → store hop is delayed; in (b) a real client would also pay its own ' +
      `round trip to the Worker ${PREFIX_COUNT} times.`,
    '',
    ...table(remote.rows, remote.rows[0]),
    '',
    '## What the store saw',
    '',
    'Each Worker variant run twice in a row, untimed, against origin `probe`: the same versitygw ' +
      'behind a counting proxy (no delay) that forwards the Host header as received, so the ' +
      'signatures verify. Each cell is 1st run / 2nd run. (a) and (b) share one Worker and so ' +
      'one connection pool; (a) ran first.',
    '',
    '| variant | ListObjectsV2 calls | most in flight at once | connections opened | ' +
      'answers saying `Connection: close` |',
    '|---|---:|---:|---:|---:|',
    ...probes.map(
      (p) =>
        `| (${p.id}) | ${p.first.requests} / ${p.second.requests} | ` +
        `${p.first.maxInFlight} / ${p.second.maxInFlight} | ` +
        `${p.first.connections} / ${p.second.connections} | ` +
        `${p.first.closeAnswered} / ${p.second.closeAnswered} |`,
    ),
    '',
    '## Checks',
    '',
    `Every Worker run, warm-up, timed and probe, returned exactly ` +
      `${TOTAL_OBJECTS.toLocaleString('en-US')} objects, in prefix order and then key order, ` +
      'each with a URL signed for the origin asked for, and no cursor; every store-alone run got ' +
      `each prefix’s ${OBJECTS_PER_PREFIX} keys in one untruncated page. ${urlChecks} of the ` +
      'signed URLs (one per prefix from each of (a), (b) and (c)) were fetched from versitygw ' +
      'and returned the object they were signed for.',
    '',
    '## Reproduce',
    '',
    '```sh',
    'export PATH=$PWD/node_modules/.bin:$PATH   # Node 24',
    `node bench/list.mjs                       # --rounds N (default ${DEFAULT_ROUNDS})`,
    '```',
    '',
    'It needs the versitygw binary (`node scripts/versitygw.mjs install`), takes a few minutes, ' +
      `stops itself after ${HARD_TIMEOUT_S} s at most, and however it ends stops every process ` +
      'it started and removes its temporary folders (data under the OS temp dir, the src/ ' +
      'copies under .tmp/).',
    '',
  ]
  return lines.join('\n')
}

async function main() {
  const load = { before: loadAverage() }
  const dir = mkdtempSync(join(tmpdir(), 'waybill-list-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const snapshot = snapshotWorkers()
  const accessKeyId = `LIST${randomBytes(8).toString('hex').toUpperCase()}`
  const secretAccessKey = randomBytes(30).toString('base64url')
  const apiKey = `wb_list_${randomBytes(24).toString('base64url')}`

  const store = await startStore({ dataDir: join(dir, 's3'), accessKeyId, secretAccessKey })
  const client = new AwsClient({ accessKeyId, secretAccessKey, service: 's3', region: 'us-east-1' })
  const s3 = { endpoint: store.endpoint, fetch: (url, init) => client.fetch(url, init) }
  console.error(`list: seeding ${TOTAL_OBJECTS} objects…`)
  const seedMs = await seed(s3)
  const probe = await startCountingProxy(store.endpoint)
  const delayed = await startCountingProxy(store.endpoint, REMOTE_DELAY_MS)

  // The origins are defined for this run's ports (wrangler.jsonc's `demo` points at 7070, which
  // `npm start` owns): `demo` straight to versitygw, `probe` through the counting proxy, `remote`
  // through the delaying one.
  const endpoints = { demo: store.endpoint, probe: probe.endpoint, remote: delayed.endpoint }
  const origins = Object.fromEntries(
    Object.entries(endpoints).map(([name, endpoint]) => [
      name,
      {
        type: 's3',
        bucket: BUCKET,
        region: 'us-east-1',
        endpoint,
        style: 'path',
        credentials: 'DEMO',
      },
    ]),
  )
  const grants = Object.keys(origins).map((origin) => ({
    to: 'apiKey:bench',
    origin,
    actions: ['read', 'list'],
  }))
  const apiKeys = [{ id: 'bench', sha256: sha256Hex(apiKey) }]
  const envFile = join(dir, 'list.vars')
  writeFileSync(
    envFile,
    [
      `DEMO_ACCESS_KEY_ID=${accessKeyId}`,
      `DEMO_SECRET_ACCESS_KEY=${secretAccessKey}`,
      `WAYBILL_ORIGINS='${JSON.stringify(origins)}'`,
      `WAYBILL_API_KEYS='${JSON.stringify(apiKeys)}'`,
      `WAYBILL_GRANTS='${JSON.stringify(grants)}'`,
      `WAYBILL_TOKEN_SECRETS='${JSON.stringify([{ id: 'b', secret: newSecret() }])}'`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  )
  console.error('list: starting two wrangler dev…')
  const [concurrentWorker, sequentialWorker] = await Promise.all([
    startWorker(snapshot.concurrent, envFile),
    startWorker(snapshot.sequential, envFile),
  ])
  const v = variants({
    concurrentBase: concurrentWorker.base,
    sequentialBase: sequentialWorker.base,
    apiKey,
    s3,
    endpoints,
    shippedConcurrency: snapshot.shippedConcurrency,
  })
  const row = (variant, origin) => ({ variant, origin, times: [] })
  const local = {
    rows: [
      row(v.a, 'demo'),
      row(v.b, 'demo'),
      row(v.c, 'demo'),
      row(v.nodeSequential, 'demo'),
      row(v.nodeConcurrent, 'demo'),
    ],
  }
  const remote = { rows: [row(v.a, 'remote'), row(v.b, 'remote'), row(v.c, 'remote')] }
  const rows = [...local.rows, ...remote.rows]

  // Warm-up: isolates, config, signing keys, connections, versitygw's caches; URLs checked once.
  console.error('list: warming up…')
  let urlChecks = 0
  for (let round = 0; round < WARMUP_ROUNDS; round++) {
    for (const r of rows) {
      const { items } = await timed(r)
      if (round === 0 && r.origin === 'demo' && items !== undefined) {
        urlChecks += await checkUrls(items)
      }
    }
  }
  const [body] = await v.a.run('demo')
  local.bytes = body.length

  const probes = []
  for (const variant of [v.a, v.b, v.c]) {
    const sample = async () => {
      probe.reset()
      variant.check(await variant.run('probe'), 'probe')
      const counts = { ...probe.counts }
      console.error(`list: probe (${variant.id}): ${JSON.stringify(counts)}`)
      return counts
    }
    probes.push({ id: variant.id, first: await sample(), second: await sample() })
  }

  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < rows.length; k++) {
      const r = rows[(round + k) % rows.length]
      r.times.push((await timed(r)).ms)
    }
    console.error(
      `list: round ${round + 1}/${ROUNDS}: ` +
        rows.map((r) => `${r.variant.id}/${r.origin} ${fmt(r.times.at(-1))}`).join(', ') +
        ' ms',
    )
  }
  load.after = loadAverage()

  const markdown = await format(report({ local, remote, probes, seedMs, urlChecks, load }), {
    ...(await resolveConfig(REPORT)),
    parser: 'markdown',
  })
  writeFileSync(REPORT, markdown)
  console.log(markdown)
  return 0
}

main().then(
  (code) => shutdown(code),
  (error) => {
    console.error(`list: ${describe(error)}`)
    return shutdown(1)
  },
)
