// Finds Debian's Chromium for the browser test, installing it with apt-get when it is missing.
//
//   node scripts/chromium.mjs    # prints the path, installing first if needed

import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const CHROMIUM_PATH = '/usr/bin/chromium'
const APT_TIMEOUT_MS = 15 * 60_000

function run(command, args, log) {
  log(`$ ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: APT_TIMEOUT_MS,
  })
  return result.status === 0
}

// apt-get directly as root, through `sudo -n` (never prompting) otherwise; undefined when neither.
function privileged() {
  if (process.getuid?.() === 0) return (args, log) => run('apt-get', args, log)
  const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore', timeout: 10_000 })
  if (sudo.status === 0) return (args, log) => run('sudo', ['-n', 'apt-get', ...args], log)
  return undefined
}

/**
 * The path of a Chromium executable. When `/usr/bin/chromium` is missing, installs Debian's
 * `chromium` package (running `apt-get update` only if the first install fails) as root or with
 * passwordless sudo; throws with what to do otherwise.
 *
 * @example
 * const executablePath = ensureChromium()
 * const browser = await chromium.launch({ executablePath })
 */
export function ensureChromium({ log = console.error } = {}) {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH
  const aptGet = privileged()
  if (aptGet === undefined) {
    throw new Error(
      `Chromium is not installed (${CHROMIUM_PATH} is missing), and installing it needs root or ` +
        'passwordless sudo. Install it yourself: sudo apt-get install -y chromium',
    )
  }
  log('Chromium is missing; installing the Debian package (once)…')
  const installed =
    aptGet(['install', '-y', 'chromium'], log) ||
    (aptGet(['update'], log) && aptGet(['install', '-y', 'chromium'], log))
  if (!installed || !existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `apt-get could not install chromium, and ${CHROMIUM_PATH} is still missing; ` +
        'see the apt-get output above.',
    )
  }
  return CHROMIUM_PATH
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(ensureChromium())
  } catch (error) {
    console.error(error.message)
    process.exit(1)
  }
}
