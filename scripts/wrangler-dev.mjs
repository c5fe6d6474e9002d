// Starts `wrangler dev` for this project on 127.0.0.1 with the pinned wrangler and Node, metrics off.
// Used by `npm start` (scripts/dev.mjs) and the HTTP benchmark (bench/http.mjs).

import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * `inspectorPort`: wrangler's DevTools port (9229 by default); give a free one when another
 * `wrangler dev` (npm start, say) may be running, or this one fails to start. `root`: the checkout
 * to serve (a baseline's, for `npm run bench -- --baseline`), with this one's wrangler.
 *
 * @returns {import('node:child_process').ChildProcess}
 */
export function spawnWranglerDev({ port, envFile, quiet = false, inspectorPort, root = ROOT }) {
  const args = [
    join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
    'dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--env-file',
    envFile,
    '--show-interactive-dev-session=false',
    ...(inspectorPort === undefined ? [] : ['--inspector-port', String(inspectorPort)]),
    ...(quiet ? ['--log-level', 'error'] : []),
  ]
  return spawn(process.execPath, args, {
    cwd: root,
    stdio: quiet ? 'ignore' : ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  })
}
