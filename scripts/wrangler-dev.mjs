// Starts `wrangler dev` for this project on 127.0.0.1 with the pinned wrangler and Node, metrics off.
// Used by `npm start` (scripts/dev.mjs), the browser tests, the HTTP benchmark (bench/http.mjs) and
// the load test. The local D1 (the control plane) gets the migrations first, as a deployed one
// would: a Worker with WAYBILL_DB bound needs its tables.

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
 * exits, unless given.
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
}) {
  const state = persistTo ?? mkdtempSync(join(tmpdir(), 'waybill-state-'))
  applyLocalMigrations({ persistTo: state, root })
  const args = [
    WRANGLER,
    'dev',
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
    stdio: quiet ? 'ignore' : ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  })
  if (persistTo === undefined)
    child.once('exit', () => rmSync(state, { recursive: true, force: true }))
  return child
}
