// Starts `wrangler dev` for this project on 127.0.0.1 with the pinned wrangler and Node, metrics off:
// the data plane (wrangler.jsonc) or the admin plane (wrangler.admin.jsonc), each in a process of
// its own on its own port, sharing local state. Used by `npm start` (scripts/dev.mjs), the browser
// and Schemathesis tests, the HTTP benchmark (bench/http.mjs) and the load test. The local D1 (the
// control plane) gets the migrations first, as a deployed one would: a Worker with WAYBILL_DB
// bound needs its tables. `startWranglerDev` also waits for its /healthz and reports an exit
// nobody asked for; `waitForHealthz` and `stopWranglerDev` are its two halves, for npm start.

import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const WRANGLER = join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js')

/**
 * Applies `root`'s D1 migrations (migrations/) to the local database kept under `persistTo`, as
 * `wrangler d1 migrations apply WAYBILL_DB --local` does. Nothing when `root` has none (a baseline
 * from before the control plane). Throws with wrangler's output when it fails.
 */
export function applyLocalMigrations({ persistTo, root = ROOT }) {
  if (!existsSync(join(root, 'migrations'))) return
  const result = spawnSync(
    process.execPath,
    [WRANGLER, 'd1', 'migrations', 'apply', 'WAYBILL_DB', '--local', '--persist-to', persistTo],
    {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    },
  )
  if (result.status !== 0) {
    throw new Error(`wrangler d1 migrations apply failed:\n${result.stdout}\n${result.stderr}`)
  }
}

/**
 * `inspectorPort`: wrangler's DevTools port (9229 by default); give a free one when another
 * `wrangler dev` (npm start, say) may be running, or this one fails to start. `root`: the checkout
 * to serve (a baseline's, for `npm run bench -- --baseline`), with this one's wrangler.
 * `persistTo`: where local state (D1, Durable Objects) lives; a fresh folder, removed when wrangler
 * exits, unless given. `config`: the Worker's wrangler config (the data plane's by default;
 * `wrangler.admin.jsonc` for the admin plane, which migrates nothing: it shares the data plane's
 * database). `registry`: where wrangler's dev registry lets Workers run apart find each other (the
 * admin plane's Durable Object and service bindings to the data plane); by default beside the
 * state, so that other checkouts' `wrangler dev` never answer for this one's. `logsToStderr`:
 * wrangler's output goes to stderr, all of it.
 *
 * @returns {import('node:child_process').ChildProcess}
 */
export function spawnWranglerDev({
  port,
  envFile,
  quiet = false,
  inspectorPort,
  root = ROOT,
  persistTo,
  config = 'wrangler.jsonc',
  registry,
  logsToStderr = false,
}) {
  const state = persistTo ?? mkdtempSync(join(tmpdir(), 'waybill-state-'))
  const admin = config !== 'wrangler.jsonc'
  if (!admin) applyLocalMigrations({ persistTo: state, root })
  const args = [
    WRANGLER,
    'dev',
    '--config',
    config,
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--env-file',
    envFile,
    '--persist-to',
    state,
    '--show-interactive-dev-session=false',
    ...(inspectorPort === undefined ? [] : ['--inspector-port', String(inspectorPort)]),
    ...(quiet ? ['--log-level', 'error'] : []),
  ]
  const child = spawn(process.execPath, args, {
    cwd: root,
    // Logs to stderr leave stdout to the caller's own output (`npm start -- --json`). A quiet one's
    // output is kept (its tail) for `reportUnexpectedExit`.
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : ['ignore', logsToStderr ? 2 : 'inherit', 'inherit'],
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: 'false',
      // wrangler's local trace collector (on by default in 4.131) keeps its traces in a Durable
      // Object under the persist folder, one store for every `wrangler dev` sharing that folder:
      // two Workers writing it at once can fail its SQLite with SQLITE_BUSY, and workerd dies of
      // it (npm start's admin plane did). The Workers' own log lines still print.
      X_LOCAL_OBSERVABILITY: 'false',
      WRANGLER_REGISTRY_PATH: registry ?? join(state, 'registry'),
    },
  })
  if (quiet) keepTail(child)
  if (persistTo === undefined)
    child.once('exit', () => rmSync(state, { recursive: true, force: true }))
  return child
}

const TAIL_BYTES = 16 * 1024
/** @type {WeakMap<import('node:child_process').ChildProcess, () => string>} */
const tails = new WeakMap()

/** Keeps the last TAIL_BYTES of a quiet child's stdout and stderr, together, in arrival order. */
function keepTail(child) {
  /** @type {Buffer[]} */
  const chunks = []
  let size = 0
  const keep = (chunk) => {
    chunks.push(chunk)
    size += chunk.length
    while (size - chunks[0].length >= TAIL_BYTES) size -= chunks.shift().length
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  tails.set(child, () => Buffer.concat(chunks).toString('utf8').slice(-TAIL_BYTES))
}

/**
 * Says on stderr, with the tail of its output, when `child` (from spawnWranglerDev) exits before
 * `stopping()` is true: a test run whose Worker died then tells why, quiet or not. `name` names the
 * Worker in the message.
 *
 * @param {import('node:child_process').ChildProcess} child
 * @param {string} name
 * @param {() => boolean} stopping
 */
export function reportUnexpectedExit(child, name, stopping) {
  child.once('exit', (code, signal) => {
    if (stopping()) return
    let reported = false
    const report = () => {
      if (reported) return
      reported = true
      const tail = tails.get(child)?.() ?? '(not kept: it was not quiet, its output is above)'
      process.stderr.write(
        `\nwrangler dev (${name}) exited unasked (code ${code}, signal ${signal}); the end of its output:\n${tail}\n`,
      )
    }
    // Its last words may still be in the pipes: wait for them to close, or half a second.
    const wait = setTimeout(report, 500)
    child.once('close', () => {
      clearTimeout(wait)
      report()
    })
  })
}

const STOP_TIMEOUT_MS = 5_000

/**
 * Ends `child` (a wrangler dev): SIGTERM, then SIGKILL if it is still there after five seconds.
 *
 * @param {import('node:child_process').ChildProcess} child
 * @returns {Promise<void>}
 */
export function stopWranglerDev(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    child.once('exit', () => {
      clearTimeout(kill)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

/**
 * Waits until `url` (a Worker's /healthz) answers 200. Throws when `child`, its wrangler dev,
 * exits first, when the Worker answers anything else (a 503 names a configuration's problems), or
 * after `timeoutMs`.
 *
 * @param {string} url
 * @param {import('node:child_process').ChildProcess} child
 * @param {number} timeoutMs
 */
export async function waitForHealthz(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  let last = 'no answer'
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `wrangler dev exited (${child.exitCode ?? child.signalCode}) before ${url} answered`,
      )
    }
    let response
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(2_000) })
    } catch (error) {
      last = error instanceof Error ? error.message : String(error)
      await new Promise((resolve) => setTimeout(resolve, 250))
      continue
    }
    if (response.ok) return
    throw new Error(`${url} answered ${response.status}: ${await response.text()}`)
  }
  throw new Error(`wrangler dev did not answer on ${url} within ${timeoutMs / 1000} s (${last})`)
}

/**
 * spawnWranglerDev (the same options, `port` required), then waits for its /healthz (90 s unless
 * `timeoutMs` says otherwise): `{ url, stop }`. `name` names it should it exit unasked before `stop()` (quiet, with the
 * end of its output: reportUnexpectedExit); it is stopped when it does not start.
 *
 * @param {Parameters<typeof spawnWranglerDev>[0] & { port: number, name: string, timeoutMs?: number }} options
 */
export async function startWranglerDev({ name, timeoutMs = 90_000, ...options }) {
  const child = spawnWranglerDev(options)
  let stopping = false
  reportUnexpectedExit(child, name, () => stopping)
  const stop = () => {
    stopping = true
    return stopWranglerDev(child)
  }
  const url = `http://127.0.0.1:${options.port}`
  try {
    await waitForHealthz(`${url}/healthz`, child, timeoutMs)
  } catch (error) {
    await stop()
    throw error
  }
  return { url, stop }
}
