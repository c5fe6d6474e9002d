// Installs Schemathesis, the property-based OpenAPI tester the `schemathesis` test project runs
// against a local Worker (test/schemathesis/), into a Python virtual environment under .tools/,
// pinned with everything it installs (scripts/schemathesis-requirements.txt).
//
//   node scripts/schemathesis.mjs install   # create .tools/schemathesis-<version> if missing (needs Python 3.10+)
//
// The test project's global setup starts the install in the background (`installInBackground`):
// the project runs last, so the suite's other tests run while pip works.

import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const REQUIREMENTS = join(ROOT, 'scripts', 'schemathesis-requirements.txt')
/** The pinned version, as the requirements name it. */
export const SCHEMATHESIS_VERSION = /^schemathesis==(\S+)$/m.exec(
  readFileSync(REQUIREMENTS, 'utf8'),
)[1]
// The version is part of the folder, so bumping it installs afresh.
const VENV = join(ROOT, '.tools', `schemathesis-${SCHEMATHESIS_VERSION}`)
const ST = join(VENV, 'bin', 'st')

/** The first Python 3.10 or later on PATH. */
function python() {
  for (const name of ['python3', 'python']) {
    const found = spawnSync(name, ['-c', 'import sys; print(sys.version_info >= (3, 10))'], {
      encoding: 'utf8',
    })
    if (found.status === 0 && found.stdout.trim() === 'True') return name
  }
  throw new Error(
    'Schemathesis needs Python 3.10 or later (with venv) on PATH, which was not found. Install it, then run: node scripts/schemathesis.mjs install',
  )
}

/** The path of the pinned `st` command, installing Schemathesis into .tools/ when missing. */
export function ensureSchemathesis({ log = console.error } = {}) {
  if (existsSync(ST)) return ST
  log(`Installing Schemathesis ${SCHEMATHESIS_VERSION} into ${VENV} (once, about a minute)…`)
  rmSync(VENV, { recursive: true, force: true })
  const steps = [
    [python(), ['-m', 'venv', VENV]],
    [
      join(VENV, 'bin', 'pip'),
      ['install', '--quiet', '--disable-pip-version-check', '-r', REQUIREMENTS],
    ],
  ]
  for (const [command, args] of steps) {
    const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] })
    if (result.status !== 0) {
      rmSync(VENV, { recursive: true, force: true })
      throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status})`)
    }
  }
  return ST
}

/**
 * The pinned `st` command's path, at once; the install, when it is missing, runs in a child
 * process. When it ends, `outcome` (a file) holds `ok`, or why it failed: `waitForInstall` reads
 * it, from any process. Call the returned `stop` to end an install still running.
 */
export function installInBackground(outcome) {
  if (existsSync(ST)) {
    writeFileSync(outcome, 'ok')
    return { st: ST, stop: () => {} }
  }
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'install'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let errors = ''
  child.stderr.setEncoding('utf8').on('data', (text) => (errors = (errors + text).slice(-4000)))
  child.on('exit', (code, signal) => {
    writeFileSync(outcome, code === 0 ? 'ok' : `exit ${code ?? signal}\n${errors}`)
  })
  child.on('error', (error) => writeFileSync(outcome, `could not start: ${error.message}`))
  return { st: ST, stop: () => child.exitCode === null && child.kill() }
}

/** Waits until `outcome` (see installInBackground) says the install ended; throws if it failed. */
export async function waitForInstall(outcome, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs
  while (!existsSync(outcome)) {
    if (Date.now() > deadline) throw new Error(`Schemathesis was not installed in ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  const text = readFileSync(outcome, 'utf8')
  if (text !== 'ok') throw new Error(`Installing Schemathesis failed: ${text}`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === 'install') console.log(ensureSchemathesis())
  else {
    console.error('usage: node scripts/schemathesis.mjs install')
    process.exit(2)
  }
}
