// POST /v1/sign through `wrangler dev`, timed from outside: a 10,000-key JSON batch, and a
// 100,000-key NDJSON stream with workerd's resident memory before and after. With a baseline
// checkout (bench/baseline.mjs), both serve at once and the batches alternate between them.

import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../scripts/versitygw.mjs'
import { startWranglerDev } from '../scripts/wrangler-dev.mjs'
import { newSecret, sha256Hex } from '../scripts/secrets.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const BATCH_ROUNDS = 15

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024
}

/** The newest workerd process: the one the last `wrangler dev` started. */
const newestWorkerd = () => execFileSync('pgrep', ['-n', 'workerd'], { encoding: 'utf8' }).trim()

/** `wrangler dev` of the checkout at `root`, with an API key and the demo origin. */
async function startHttp(root) {
  const port = await freePort()
  const apiKey = `wb_bench_${randomBytes(16).toString('hex')}`
  const envFile = join(root, '.tmp', 'bench', 'http.vars')
  mkdirSync(dirname(envFile), { recursive: true })
  writeFileSync(
    envFile,
    [
      'DEMO_ACCESS_KEY_ID=WAYBILLDEMO',
      'DEMO_SECRET_ACCESS_KEY=waybill-demo-secret-local-only',
      `WAYBILL_API_KEYS='${JSON.stringify([{ id: 'demo', sha256: sha256Hex(apiKey) }])}'`,
      'WAYBILL_MAX_BATCH=100000',
      // Made for this run; a checkout from before sealed tokens ignores it.
      `WAYBILL_TOKEN_SECRETS='${JSON.stringify([{ id: 'b', secret: newSecret() }])}'`,
      '',
    ].join('\n'),
  )
  const wrangler = await startWranglerDev({
    name: `bench of ${root}`,
    port,
    envFile,
    quiet: true,
    inspectorPort: await freePort(),
    root,
    timeoutMs: 60_000,
  })
  const base = wrangler.url
  const workerd = newestWorkerd()
  const sign = async (n, accept) => {
    const body = JSON.stringify({
      origin: 'demo',
      keys: Array.from({ length: n }, (_, i) => `gallery/2026/img-${i}.jpg`),
    })
    const start = process.hrtime.bigint()
    const response = await fetch(`${base}/v1/sign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept },
      body,
    })
    const text = await response.text()
    const ms = Number(process.hrtime.bigint() - start) / 1e6
    if (response.status !== 200)
      throw new Error(`POST /v1/sign answered ${response.status}: ${text.slice(0, 300)}`)
    return { ms, text }
  }
  await sign(10_000, 'application/json') // warm up: isolate, config, signing key
  const { urls } = JSON.parse((await sign(10_000, 'application/json')).text)
  if (urls.length !== 10_000) throw new Error('short response')
  return { sign, rss: () => rssMiB(workerd), stop: wrangler.stop }
}

const summary = (samples) => ({
  median: median(samples),
  min: Math.min(...samples),
  max: Math.max(...samples),
})

/**
 * The HTTP figures for each checkout in `roots` (this one by default), each served by its own
 * `wrangler dev`; the 10,000-key batches alternate between them round by round.
 */
export async function measureHttp(roots = [ROOT]) {
  const servers = []
  try {
    for (const root of roots) servers.push(await startHttp(root))
    const batches = servers.map(() => [])
    for (let round = 0; round < BATCH_ROUNDS; round++) {
      for (const [i, server] of servers.entries()) {
        batches[i].push((await server.sign(10_000, 'application/json')).ms)
      }
    }
    const results = []
    for (const [i, server] of servers.entries()) {
      const rssBefore = server.rss()
      const stream = await server.sign(100_000, 'application/x-ndjson')
      const rssAfter = server.rss()
      const lines = stream.text.trimEnd().split('\n').length
      if (lines !== 100_000) throw new Error(`NDJSON had ${lines} lines`)
      results.push({
        batchMs: summary(batches[i]),
        ndjson: { ms: stream.ms, lines, rssBeforeMiB: rssBefore, rssAfterMiB: rssAfter },
      })
    }
    return results
  } finally {
    await Promise.all(servers.map((server) => server.stop()))
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log((await measureHttp())[0])
