// Installs and runs versitygw, the S3-compatible server waybill's tests and local default use. It
// verifies SigV4 signatures, so a URL it accepts is a URL S3 would accept.
//
//   node scripts/versitygw.mjs install   # build it into .tools/bin if missing (needs Go, ~2 minutes)
//
// Tests and `npm start` import `ensureVersitygw` and `startVersitygw` from here.

import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const VERSITYGW_VERSION = 'v1.8.0'
const MODULE = `github.com/versity/versitygw/cmd/versitygw@${VERSITYGW_VERSION}`
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
// The version is part of the folder so bumping it installs afresh.
const BIN_DIR = join(ROOT, '.tools', `versitygw-${VERSITYGW_VERSION}`)
const BINARY = join(BIN_DIR, 'versitygw')

/** The path of the pinned versitygw binary, building it with `go install` when missing. */
export function ensureVersitygw({ log = console.error } = {}) {
  if (existsSync(BINARY)) return BINARY
  const go = spawnSync('go', ['version'], { encoding: 'utf8' })
  if (go.status !== 0) {
    throw new Error(
      'versitygw is not installed and Go was not found on PATH. Install Go (https://go.dev/dl/), ' +
        'then run: node scripts/versitygw.mjs install',
    )
  }
  log(`Installing versitygw ${VERSITYGW_VERSION} with ${go.stdout.trim()} (about 2 minutes, once)…`)
  mkdirSync(BIN_DIR, { recursive: true })
  const started = Date.now()
  const result = spawnSync('go', ['install', MODULE], {
    env: { ...process.env, GOBIN: BIN_DIR, GOFLAGS: '-trimpath' },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (result.status !== 0 || !existsSync(BINARY)) {
    throw new Error(`go install ${MODULE} failed (exit ${result.status})`)
  }
  log(`Installed versitygw in ${((Date.now() - started) / 1000).toFixed(0)} s: ${BINARY}`)
  return BINARY
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** Whether `port` on 127.0.0.1 can be listened on now. */
function isFree(port) {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/**
 * A free TCP port on 127.0.0.1 below the system's ephemeral range (Linux: 32768–60999), for a
 * server that starts long after the port is chosen (a page origin named in the Worker's CORS
 * setting, say): the system never hands such a port to anything else in the meantime, as it may
 * hand freePort()'s to workerd's or Chromium's own sockets.
 */
export async function portBelowEphemeral() {
  let low = 32768
  try {
    low = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    )
  } catch {
    // Not Linux: its default.
  }
  const top = Math.min(low, 32768)
  const floor = Math.max(1024, top - 12000)
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = floor + Math.floor(Math.random() * (top - floor))
    if (await isFree(port)) return port
  }
  throw new Error('no free port below the ephemeral range')
}

async function waitUntilListening(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`versitygw exited with code ${child.exitCode}`)
    try {
      // Any HTTP answer (an unsigned request gets 403) means it is serving.
      await fetch(url, { signal: AbortSignal.timeout(1000) })
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  throw new Error(`versitygw did not answer on ${url} within ${timeoutMs} ms`)
}

/**
 * Starts versitygw in posix mode on 127.0.0.1. Every top-level folder of `dataDir` is a bucket;
 * `buckets` are created as folders before it starts.
 *
 * @returns {{ endpoint: string, port: number, stop: () => Promise<void> }}
 */
export async function startVersitygw({
  dataDir,
  accessKeyId,
  secretAccessKey,
  port,
  buckets = [],
  region = 'us-east-1',
  keepAlive = true,
}) {
  const binary = ensureVersitygw()
  for (const bucket of buckets) mkdirSync(join(dataDir, bucket), { recursive: true })
  const listenPort = port ?? (await freePort())
  const args = [
    '--access',
    accessKeyId,
    '--secret',
    secretAccessKey,
    '--region',
    region,
    '--port',
    `127.0.0.1:${listenPort}`,
    '--virtual-domain',
    'localhost',
    '--quiet',
    // S3 keeps connections open; versitygw answers `Connection: close` unless told otherwise, which
    // would make every S3 call from the Worker open a new connection.
    ...(keepAlive ? ['--keep-alive'] : []),
    'posix',
    dataDir,
  ]
  let stderr = ''
  // versitygw also reads VGW_* settings from the environment (a server-wide CORS origin among
  // them); none may leak in from the caller's shell, so bucket CORS rules stay the only CORS.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VGW_')),
  )
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'], env })
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  const endpoint = `http://127.0.0.1:${listenPort}`
  try {
    await waitUntilListening(endpoint, child, 15_000)
  } catch (error) {
    child.kill('SIGKILL')
    throw new Error(`${error.message}\n${stderr}`)
  }
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), 3000).unref()
    })
  return { endpoint, port: listenPort, stop }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const command = process.argv[2]
  if (command === 'install') {
    console.log(ensureVersitygw())
  } else {
    console.error('usage: node scripts/versitygw.mjs install')
    process.exit(2)
  }
}
