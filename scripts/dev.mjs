// `npm start`: the embedded local default. Starts versitygw on 127.0.0.1:7070 with a demo bucket of a
// few objects whose keys need encoding and a few small images, with CORS rules that let the demo page
// upload to it, then `wrangler dev` on 127.0.0.1:8787 with the "demo" origin of wrangler.jsonc
// pointing at it, and prints the demo page's link, the demo credentials, an API key and curl lines.
//
// The demo access key and secret below are fixtures for this local server only, never real
// credentials. The API key is random per run; only its SHA-256 is given to the Worker.

import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { crc32, deflateSync } from 'node:zlib'
import { AwsClient } from 'aws4fetch'
import { applyBucketCors } from './bucket-cors.mjs'
import { startVersitygw } from './versitygw.mjs'
import { spawnWranglerDev } from './wrangler-dev.mjs'
import { buildVendorAssets } from './docs-assets.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const S3_PORT = 7070
const WORKER_PORT = 8787
const BUCKET = 'demo'
const DEMO_ACCESS_KEY_ID = 'WAYBILLDEMO'
const DEMO_SECRET_ACCESS_KEY = 'waybill-demo-secret-local-only'
// The demo page's origin, under both names a browser may use for it.
const PAGE_ORIGINS = [`http://127.0.0.1:${WORKER_PORT}`, `http://localhost:${WORKER_PORT}`]

const DEMO_OBJECTS = {
  'hello.txt': 'Hello from waybill: this object was fetched through a presigned URL.\n',
  'photos/cat picture (1).txt': 'A key with spaces and parentheses.\n',
  'docs/résumé + notes.txt': 'A key with Unicode and a plus sign.\n',
  'emoji/🎉 party.txt': 'A key with an emoji.\n',
  '日本語/ファイル.txt': 'A key in Japanese.\n',
}

/**
 * A truecolor PNG of `width` × `height` pixels, `pixel(x, y)` giving each one's `[r, g, b]` (0–255).
 * https://www.w3.org/TR/png-3/ — one IDAT, filter type 0 on every row.
 *
 * @example
 * makePng(2, 1, (x) => (x === 0 ? [255, 0, 0] : [0, 0, 255])) // a red and a blue pixel
 */
export function makePng(width, height, pixel) {
  const stride = width * 3 + 1
  const raw = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixel(x, y)
      raw.set([r, g, b], y * stride + 1 + x * 3)
    }
  }
  const chunk = (type, data) => {
    const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(typeAndData))
    return Buffer.concat([length, typeAndData, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8 bits per sample, truecolor, deflate, filter 0, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A few small generated images for the demo gallery: `{ key: { body, contentType } }`. */
export function demoImages() {
  const png = (body) => ({ body, contentType: 'image/png' })
  const clamp = (v) => Math.max(0, Math.min(255, Math.round(v)))
  return {
    'gallery/sunrise.png': png(
      makePng(160, 120, (x, y) => [clamp(255 - y), clamp(120 + x / 2), clamp(90 + y * 1.2)]),
    ),
    'gallery/checkerboard.png': png(
      makePng(160, 120, (x, y) => (((x >> 4) + (y >> 4)) % 2 ? [30, 60, 120] : [235, 240, 250])),
    ),
    'gallery/rings.png': png(
      makePng(160, 120, (x, y) => {
        const d = Math.hypot(x - 80, y - 60)
        return [clamp(128 + 127 * Math.sin(d / 4)), clamp(90 + d), clamp(200 - d)]
      }),
    ),
    'gallery/waybill.svg': {
      contentType: 'image/svg+xml',
      body:
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 120">' +
        '<rect width="160" height="120" fill="#0a58ca"/>' +
        '<path d="M20 85 L50 35 L80 85 L110 35 L140 85" fill="none" stroke="#fff" stroke-width="10"' +
        ' stroke-linejoin="round" stroke-linecap="round"/></svg>\n',
    },
  }
}

async function seed(endpoint) {
  const client = new AwsClient({
    accessKeyId: DEMO_ACCESS_KEY_ID,
    secretAccessKey: DEMO_SECRET_ACCESS_KEY,
    service: 's3',
    region: 'us-east-1',
  })
  const objects = {
    ...Object.fromEntries(
      Object.entries(DEMO_OBJECTS).map(([key, body]) => [
        key,
        { body, contentType: 'text/plain; charset=utf-8' },
      ]),
    ),
    ...demoImages(),
  }
  for (const [key, { body, contentType }] of Object.entries(objects)) {
    const path = key.split('/').map(encodeURIComponent).join('/')
    const response = await client.fetch(`${endpoint}/${BUCKET}/${path}`, {
      method: 'PUT',
      headers: { 'content-type': contentType },
      body,
    })
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

const children = []
let stopping = false
async function stopAll(code) {
  if (stopping) return
  stopping = true
  await Promise.all(children.map((stop) => stop()))
  process.exit(code)
}

async function main() {
  process.env.WRANGLER_SEND_METRICS ??= 'false'
  process.on('SIGINT', () => stopAll(0))
  process.on('SIGTERM', () => stopAll(0))
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
  await applyBucketCors({
    endpoint: s3.endpoint,
    bucket: BUCKET,
    region: 'us-east-1',
    accessKeyId: DEMO_ACCESS_KEY_ID,
    secretAccessKey: DEMO_SECRET_ACCESS_KEY,
    allowedOrigins: PAGE_ORIGINS,
  })

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

  // GET /docs loads Scalar's bundle, the demo page the client's, from the Worker's assets.
  await buildVendorAssets()
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

Open the demo page (gallery and uploads; the key stays in the link's fragment, never sent):
  ${base}/#key=${apiKey}

  local S3 (versitygw)  ${s3.endpoint}   bucket "${BUCKET}" (CORS allows ${PAGE_ORIGINS.join(', ')})
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch(async (error) => {
    console.error(`npm start failed: ${error.message}`)
    await stopAll(1)
  })
}
