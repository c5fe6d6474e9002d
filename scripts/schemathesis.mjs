// Installs Schemathesis, the property-based OpenAPI tester the `schemathesis` test project runs
// against a local Worker (test/schemathesis/), into a Python virtual environment under .tools/,
// pinned with everything it installs (scripts/schemathesis-requirements.txt).
//
//   node scripts/schemathesis.mjs install   # create .tools/schemathesis-<version> if missing (needs Python 3.10+)
//
// The test project's global setup imports `ensureSchemathesis` from here.

import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === 'install') console.log(ensureSchemathesis())
  else {
    console.error('usage: node scripts/schemathesis.mjs install')
    process.exit(2)
  }
}
