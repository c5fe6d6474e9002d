// `npm start`: the embedded local default. Starts versitygw on 127.0.0.1:7070 with a demo bucket of a
// few objects whose keys need encoding, then `wrangler dev` on 127.0.0.1:8787 with the "demo" origin
// of wrangler.jsonc pointing at it, and prints the demo credentials, an API key and a curl line.
//
// The demo access key and secret below are fixtures for this local server only, never real
// credentials. The API key is random per run; only its SHA-256 is given to the Worker.

import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AwsClient } from 'aws4fetch'
import { startVersitygw } from './versitygw.mjs'
import { spawnWranglerDev } from './wrangler-dev.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const S3_PORT = 7070
const WORKER_PORT = 8787
const BUCKET = 'demo'
const DEMO_ACCESS_KEY_ID = 'WAYBILLDEMO'
const DEMO_SECRET_ACCESS_KEY = 'waybill-demo-secret-local-only'

const DEMO_OBJECTS = {
  'hello.txt': 'Hello from waybill: this object was fetched through a presigned URL.\n',
  'photos/cat picture (1).txt': 'A key with spaces and parentheses.\n',
  'docs/résumé + notes.txt': 'A key with Unicode and a plus sign.\n',
  'emoji/🎉 party.txt': 'A key with an emoji.\n',
  '日本語/ファイル.txt': 'A key in Japanese.\n',
}

process.env.WRANGLER_SEND_METRICS ??= 'false'

const children = []
let stopping = false
async function stopAll(code) {
  if (stopping) return
  stopping = true
  await Promise.all(children.map((stop) => stop()))
  process.exit(code)
}
process.on('SIGINT', () => stopAll(0))
process.on('SIGTERM', () => stopAll(0))

async function seed(endpoint) {
  const client = new AwsClient({
    accessKeyId: DEMO_ACCESS_KEY_ID,
    secretAccessKey: DEMO_SECRET_ACCESS_KEY,
    service: 's3',
    region: 'us-east-1',
  })
  for (const [key, body] of Object.entries(DEMO_OBJECTS)) {
    const path = key.split('/').map(encodeURIComponent).join('/')
    const response = await client.fetch(`${endpoint}/${BUCKET}/${path}`, { method: 'PUT', body })
    if (!response.ok)
      throw new Error(`seeding ${key} failed: ${response.status} ${await response.text()}`)
  }
}

async function waitForWorker(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with code ${child.exitCode}`)
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) })
      if (response.ok) return
      throw new Error(`${url} answered ${response.status}: ${await response.text()}`)
    } catch (error) {
      if (error instanceof Error && error.message.includes('answered')) throw error
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
  throw new Error(`wrangler dev did not answer on ${url} within ${timeoutMs / 1000} s`)
}

async function main() {
  const tmp = join(ROOT, '.tmp')
  const dataDir = join(tmp, 'dev-s3')
  rmSync(dataDir, { recursive: true, force: true })
  mkdirSync(dataDir, { recursive: true })

  const s3 = await startVersitygw({
    dataDir,
    accessKeyId: DEMO_ACCESS_KEY_ID,
    secretAccessKey: DEMO_SECRET_ACCESS_KEY,
    port: S3_PORT,
    buckets: [BUCKET],
  }).catch((error) => {
    throw new Error(
      `could not start versitygw on 127.0.0.1:${S3_PORT} (is the port taken?): ${error.message}`,
    )
  })
  children.push(s3.stop)
  await seed(s3.endpoint)

  const apiKey = `wb_demo_${randomBytes(24).toString('base64url')}`
  const sha256 = createHash('sha256').update(apiKey).digest('hex')
  const envFile = join(tmp, 'dev.vars')
  writeFileSync(
    envFile,
    [
      `DEMO_ACCESS_KEY_ID=${DEMO_ACCESS_KEY_ID}`,
      `DEMO_SECRET_ACCESS_KEY=${DEMO_SECRET_ACCESS_KEY}`,
      `WAYBILL_API_KEYS='${JSON.stringify([{ id: 'demo', sha256, label: 'npm start' }])}'`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  )

  const wrangler = spawnWranglerDev({ port: WORKER_PORT, envFile })
  children.push(
    () =>
      new Promise((resolve) => {
        if (wrangler.exitCode !== null) return resolve()
        wrangler.once('exit', () => resolve())
        wrangler.kill('SIGTERM')
      }),
  )
  wrangler.once('exit', (code) => {
    if (!stopping) {
      console.error(`wrangler dev exited (${code}); stopping versitygw.`)
      void stopAll(code ?? 1)
    }
  })

  const base = `http://127.0.0.1:${WORKER_PORT}`
  await waitForWorker(`${base}/healthz`, wrangler, 120_000)

  const body = JSON.stringify({ origin: 'demo', keys: Object.keys(DEMO_OBJECTS) })
  console.log(`
waybill is running at ${base} (stop with Ctrl-C)

  local S3 (versitygw)  ${s3.endpoint}   bucket "${BUCKET}"
  demo S3 credentials   access key ${DEMO_ACCESS_KEY_ID}, secret ${DEMO_SECRET_ACCESS_KEY} (local fixture)
  API key (this run)    ${apiKey}

Sign the demo objects:
  curl -s -X POST ${base}/v1/sign -H 'Authorization: Bearer ${apiKey}' -H 'Content-Type: application/json' -d '${body}'

Sign one URL and fetch the object through it:
  curl -s "$(curl -s -X POST ${base}/v1/sign -H 'Authorization: Bearer ${apiKey}' -H 'Content-Type: application/json' -d '{"origin":"demo","keys":["hello.txt"]}' | node -e 'process.stdin.on("data",d=>console.log(JSON.parse(d).urls[0].url))')"

Follow the edge redirect:
  curl -sL -H 'Authorization: Bearer ${apiKey}' ${base}/v1/redirect/demo/hello.txt

API description: ${base}/openapi.json
`)
}

main().catch(async (error) => {
  console.error(`npm start failed: ${error.message}`)
  await stopAll(1)
})
