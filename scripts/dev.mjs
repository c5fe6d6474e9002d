// `npm start`: waybill on your machine, against a local S3 server with demo data.
//
//   npm start -- [--port 8787] [--admin-port 8788] [--s3-port 7070]
//                [--app-origin http://localhost:5180 …] [--keep] [--json]
//
// Starts versitygw on 127.0.0.1:<s3-port> with a bucket "demo" holding a few objects whose keys need
// encoding and a few small images, with the CORS rules browser uploads need for the demo page and
// each --app-origin; then the local D1 database (the control plane) with the migrations applied,
// and the two Workers, each a `wrangler dev` of its own sharing that local state: the data plane
// (wrangler.jsonc) on 127.0.0.1:<port> with the "demo" origin pointed at that versitygw, a
// generated WAYBILL_TOKEN_SECRETS (what seals links, upload handles, receipts and cursors), and
// WAYBILL_CORS allowing each --app-origin; and the admin plane (wrangler.admin.jsonc) on
// 127.0.0.1:<admin-port>, the admin API and UI, with an admin token (WAYBILL_ADMIN_TOKENS). Then it
// makes the API key "demo" through the admin API, as an operator would. `.dev.vars` is read as
// wrangler reads it and wins over all of that, except that --app-origin adds to its WAYBILL_CORS
// and the run's admin token to its WAYBILL_ADMIN_TOKENS (which goes to the admin plane). Each
// Worker's variables go to wrangler as one env file, so each value is a secret: wrangler's banner
// shows none of them. Prints what it set up, with curl lines that run the control plane through
// its paces; with --json, only that, as one JSON line on stdout (wrangler's logs go to stderr).
//
// Each start is a fresh demo (empty bucket re-seeded, a new database, API key, admin token and link
// secret) unless --keep, which keeps the bucket's data, the database, the key, the admin token,
// the link secret and the app origins (when none are given) in .tmp/dev/ from one start to the
// next.
//
// The demo access key and secret below are fixtures for this local server only, never real
// credentials. The API key and admin token are random; only their SHA-256 reach the Worker.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs, parseEnv } from 'node:util'
import { crc32, deflateSync } from 'node:zlib'
import { AwsClient } from 'aws4fetch'
import { DEMO_R2_ORIGIN, seedR2 } from './demo-r2.mjs'
import { applyBucketCors } from './bucket-cors.mjs'
import { startVersitygw, freePort } from './versitygw.mjs'
import { spawnWranglerDev, stopWranglerDev, waitForHealthz } from './wrangler-dev.mjs'
import { buildVendorAssets } from './docs-assets.mjs'
import { newSecret, sha256Hex } from './secrets.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const DEV_DIR = join(ROOT, '.tmp', 'dev')
const DEFAULT_WORKER_PORT = 8787
const DEFAULT_ADMIN_PORT = 8788
const DEFAULT_S3_PORT = 7070
const WRANGLER_INSPECTOR_PORT = 9229
const BUCKET = 'demo'
const DEMO_ORIGIN = 'demo'
const DEMO_ACCESS_KEY_ID = 'WAYBILLDEMO'
const DEMO_SECRET_ACCESS_KEY = 'waybill-demo-secret-local-only'
const API_KEY_ID = 'demo'
const ADMIN_TOKEN_ID = 'npm-start'

const USAGE = `usage: npm start -- [--port <n>] [--admin-port <n>] [--s3-port <n>]
                    [--app-origin <origin>]… [--keep] [--json]

  --port <n>             the callers' API (the data plane) on 127.0.0.1 (default ${DEFAULT_WORKER_PORT})
  --admin-port <n>       the admin API and UI (the admin plane) on 127.0.0.1 (default ${DEFAULT_ADMIN_PORT})
  --s3-port <n>          the local S3 server's port on 127.0.0.1 (default ${DEFAULT_S3_PORT})
  --app-origin <origin>  a page of yours that calls waybill and the bucket, e.g.
                         http://localhost:5180: added to WAYBILL_CORS and the bucket's CORS
                         rules (repeat for several)
  --keep                 keep the bucket's data, the database (keys, grants, usage), the
                         API key, the admin token, the link secret and the app origins from the
                         last start (default: a fresh demo)
  --json                 print what was set up as one JSON line on stdout (wrangler's logs go
                         to stderr)

Local secrets and settings go in .dev.vars (see .dev.vars.example); they win over npm start's.`

/**
 * The options of `npm start`, or an Error whose message says what is wrong and how to call it.
 *
 * @example
 * parseDevArgs(['--port', '8899', '--app-origin', 'http://localhost:5180'])
 * // { port: 8899, adminPort: 8788, s3Port: 7070, appOrigins: ['http://localhost:5180'],
 * //   keep: false, json: false, help: false }
 */
export function parseDevArgs(argv) {
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        'admin-port': { type: 'string' },
        's3-port': { type: 'string' },
        'app-origin': { type: 'string', multiple: true },
        keep: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }))
  } catch (error) {
    throw new Error(`${error.message}\n${USAGE}`)
  }
  const port = portOption('--port', values.port, DEFAULT_WORKER_PORT)
  const adminPort = portOption('--admin-port', values['admin-port'], DEFAULT_ADMIN_PORT)
  const s3Port = portOption('--s3-port', values['s3-port'], DEFAULT_S3_PORT)
  const ports = [
    ['--port', port],
    ['--admin-port', adminPort],
    ['--s3-port', s3Port],
  ]
  for (const [i, [name, value]] of ports.entries()) {
    const same = ports.slice(i + 1).find(([, other]) => other === value)
    if (same !== undefined) throw new Error(`${name} and ${same[0]} must differ (both ${value})`)
  }
  const appOrigins = [...new Set((values['app-origin'] ?? []).map(webOrigin))]
  return {
    port,
    adminPort,
    s3Port,
    appOrigins,
    keep: values.keep,
    json: values.json,
    help: values.help,
  }
}

function portOption(name, text, fallback) {
  if (text === undefined) return fallback
  const port = Number(text)
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) {
    throw new Error(`${name}: ${JSON.stringify(text)} is not a port (1 to 65535)`)
  }
  return port
}

/** `http://localhost:5180/` → `http://localhost:5180`; anything with a path is an error. */
function webOrigin(text) {
  const url = URL.parse(text)
  if (
    url === null ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw new Error(
      `--app-origin: ${JSON.stringify(text)} is not a web origin such as http://localhost:5180 (scheme, host and port; no path)`,
    )
  }
  return url.origin
}

/**
 * The origins the bucket's CORS rules allow: the demo page, under both names a browser may use for
 * it, and each app's.
 *
 * @example
 * bucketOrigins(8787, ['http://localhost:5180'])
 * // ['http://127.0.0.1:8787', 'http://localhost:8787', 'http://localhost:5180']
 */
export function bucketOrigins(port, appOrigins) {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, ...appOrigins]
}

/** JSON text, or undefined when it is not. */
function jsonOf(text) {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * What the two Workers get from `npm start`: npm start's values, then `.dev.vars` (`devVars`, as
 * parsed from the file) on top, except that app origins are added to its WAYBILL_CORS and the run's
 * admin token to its WAYBILL_ADMIN_TOKENS. `vars` are the data plane's: `wranglerVars` are
 * wrangler.jsonc's `vars`, whose "demo" origin is moved to `s3Endpoint`. `adminVars` are the admin
 * plane's: its admin tokens (WAYBILL_ADMIN_TOKENS is the admin plane's, never the data plane's),
 * and .dev.vars's WAYBILL_REQUEST_LOG. The API key "demo" is not here: it is made through the
 * admin API once the Workers run (`apiKey` says whether it can be: not when .dev.vars names a key
 * "demo" itself). Answers the variables and what a person needs to know about them (never a value
 * of .dev.vars).
 *
 * @example
 * const { vars, adminVars } = workerVars({ wranglerVars, devVars: {},
 *   s3Endpoint: 'http://127.0.0.1:7099', adminTokenSha256, tokenSecrets,
 *   appOrigins: ['http://localhost:5180'] })
 * vars.WAYBILL_CORS // '{"origins":["http://localhost:5180"]}'
 * adminVars.WAYBILL_ADMIN_TOKENS // '[{"id":"npm-start","sha256":"…"}]'
 */
export function workerVars({
  wranglerVars,
  devVars,
  s3Endpoint,
  adminTokenSha256,
  tokenSecrets,
  appOrigins,
}) {
  const origins = structuredClone(wranglerVars.WAYBILL_ORIGINS ?? {})
  if (origins[DEMO_ORIGIN]?.type === 's3') origins[DEMO_ORIGIN].endpoint = s3Endpoint
  // The R2 origin's objects are the Worker's own to serve: an app's page reaches them under that
  // origin's CORS setting, as it reaches the versitygw bucket under the bucket's rules.
  const r2 = origins[DEMO_R2_ORIGIN]
  if (r2?.type === 'r2' && appOrigins.length > 0 && r2.cors?.origins !== '*') {
    r2.cors = { ...r2.cors, origins: [...new Set([...(r2.cors?.origins ?? []), ...appOrigins])] }
  }
  const adminToken = { id: ADMIN_TOKEN_ID, sha256: adminTokenSha256 }
  const ours = {
    DEMO_ACCESS_KEY_ID,
    DEMO_SECRET_ACCESS_KEY,
    WAYBILL_ORIGINS: JSON.stringify(origins),
    // .dev.vars's own secrets replace the run's.
    ...(devVars.WAYBILL_TOKEN_SECRETS === undefined && {
      WAYBILL_TOKEN_SECRETS: JSON.stringify(tokenSecrets),
    }),
    ...(appOrigins.length > 0 && { WAYBILL_CORS: JSON.stringify({ origins: appOrigins }) }),
  }
  const { WAYBILL_ADMIN_TOKENS: _adminTokens, ...dataVars } = devVars
  const vars = { ...ours, ...dataVars }
  const adminVars = {
    WAYBILL_ADMIN_TOKENS: JSON.stringify([adminToken]),
    ...(devVars.WAYBILL_REQUEST_LOG !== undefined && {
      WAYBILL_REQUEST_LOG: devVars.WAYBILL_REQUEST_LOG,
    }),
  }
  const warnings = []
  let apiKey = true
  let admin = true

  if (devVars.WAYBILL_API_KEYS !== undefined) {
    const keys = jsonOf(devVars.WAYBILL_API_KEYS)
    if (Array.isArray(keys) && keys.some((key) => key?.id === API_KEY_ID)) {
      warnings.push(
        `WAYBILL_API_KEYS in .dev.vars has its own key "${API_KEY_ID}"; the run's is not made`,
      )
      apiKey = false
    }
  }
  if (devVars.WAYBILL_ADMIN_TOKENS !== undefined) {
    const tokens = jsonOf(devVars.WAYBILL_ADMIN_TOKENS)
    if (!Array.isArray(tokens)) {
      warnings.push(
        "WAYBILL_ADMIN_TOKENS in .dev.vars is not a JSON list; the run's admin token is not added",
      )
      adminVars.WAYBILL_ADMIN_TOKENS = devVars.WAYBILL_ADMIN_TOKENS
      admin = false
    } else if (tokens.some((token) => token?.id === ADMIN_TOKEN_ID)) {
      warnings.push(
        `WAYBILL_ADMIN_TOKENS in .dev.vars has its own token "${ADMIN_TOKEN_ID}"; the run's is not added`,
      )
      adminVars.WAYBILL_ADMIN_TOKENS = devVars.WAYBILL_ADMIN_TOKENS
      admin = false
    } else adminVars.WAYBILL_ADMIN_TOKENS = JSON.stringify([...tokens, adminToken])
  }
  if (devVars.WAYBILL_CORS !== undefined && appOrigins.length > 0) {
    const cors = jsonOf(devVars.WAYBILL_CORS)
    if (cors?.origins === '*') {
      // Every origin already.
    } else if (Array.isArray(cors?.origins)) {
      vars.WAYBILL_CORS = JSON.stringify({
        ...cors,
        origins: [...new Set([...cors.origins, ...appOrigins])],
      })
    } else {
      warnings.push(
        'WAYBILL_CORS in .dev.vars is not { "origins": […] }; --app-origin is not added',
      )
    }
  }
  const cors = jsonOf(vars.WAYBILL_CORS ?? 'null')
  return {
    vars,
    adminVars,
    apiKey: apiKey && admin,
    admin,
    fromDevVars: Object.keys(devVars),
    corsOrigins: cors?.origins ?? [],
    warnings,
  }
}

/**
 * An env file wrangler reads back as exactly `vars`. wrangler reads an `--env-file` with dotenv and
 * then expands $NAME and ${NAME} in it (dotenv-expand) unless the `$` is escaped as `\$`; it never
 * expands .dev.vars, so every `$` is escaped. A value goes in the first quotes it holds none of
 * (single, backtick, double; dotenv turns `\n` into a line break only inside double quotes).
 */
export function envFileText(vars) {
  const lines = Object.entries(vars).map(([name, value]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`${name}: not a variable name`)
    const escaped = value.replaceAll('$', '\\$')
    const quote = ["'", '`', '"'].find(
      (q) => !escaped.includes(q) && (q !== '"' || !/\\[nr]/.test(escaped)),
    )
    if (quote === undefined) {
      throw new Error(`${name}: its value holds every kind of quote; an env file cannot carry it`)
    }
    return `${name}=${quote}${escaped}${quote}`
  })
  return `${lines.join('\n')}\n`
}

/** What --keep keeps, or undefined (none yet, or unreadable). */
function readState(file) {
  const state = existsSync(file) ? jsonOf(readFileSync(file, 'utf8')) : undefined
  // `linkSecrets`: what a run before WAYBILL_TOKEN_SECRETS kept.
  const tokenSecrets = state?.tokenSecrets ?? state?.linkSecrets
  return typeof state?.adminToken === 'string' && Array.isArray(tokenSecrets)
    ? { ...state, tokenSecrets }
    : undefined
}

function freshState() {
  const id = `dev-${new Date().toISOString().slice(0, 10)}`
  return {
    // Made through the admin API once the Worker runs (its secret is the control plane's to make).
    apiKey: undefined,
    adminToken: newSecret('wba_'),
    tokenSecrets: [{ id, secret: newSecret() }],
    appOrigins: [],
  }
}

/**
 * Makes the API key "demo" through the admin API, as an operator would (`npm run admin -- keys
 * create --id demo`), or, kept from the last start, finds it there. Answers the key, or undefined
 * with a reason.
 */
async function seedDemoKey(base, adminToken, kept) {
  const call = (method, path, body) =>
    fetch(`${base}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  const existing = await call('GET', `/keys/${API_KEY_ID}`)
  if (existing.status === 200 && kept !== undefined) return { key: kept }
  // There, but its secret was not kept: a new one, the old one retired at once.
  const made =
    existing.status === 200
      ? await call('POST', `/keys/${API_KEY_ID}/rotate`, { overlapS: 0 })
      : await call('POST', '/keys', { id: API_KEY_ID, label: 'npm start' })
  const answer = await made.json()
  if (!made.ok) return { reason: `${made.status}: ${answer.detail}` }
  return { key: answer.key }
}

/** wrangler's DevTools port when free, else any free one (another `wrangler dev` may hold it). */
function inspectorPort() {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(freePort()))
    server.listen(WRANGLER_INSPECTOR_PORT, '127.0.0.1', () =>
      server.close(() => resolve(WRANGLER_INSPECTOR_PORT)),
    )
  })
}

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

/** Every demo object, texts and images: `{ key: { body, contentType } }`. */
function demoObjects() {
  return {
    ...Object.fromEntries(
      Object.entries(DEMO_OBJECTS).map(([key, body]) => [
        key,
        { body, contentType: 'text/plain; charset=utf-8' },
      ]),
    ),
    ...demoImages(),
  }
}

async function seed(endpoint) {
  const client = new AwsClient({
    accessKeyId: DEMO_ACCESS_KEY_ID,
    secretAccessKey: DEMO_SECRET_ACCESS_KEY,
    service: 's3',
    region: 'us-east-1',
  })
  for (const [key, { body, contentType }] of Object.entries(demoObjects())) {
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

/** How often a Worker that exits while starting is started: once more. */
const START_ATTEMPTS = 2
const children = []
let stopping = false
async function stopAll(code) {
  if (stopping) return
  stopping = true
  // main() goes on while this waits: what it starts meanwhile is stopped too (a SIGINT two to
  // four seconds into a start left the data plane's wrangler dev running, spawned meanwhile).
  for (let stopped = 0; stopped < children.length;) {
    const more = children.slice(stopped)
    stopped = children.length
    await Promise.all(more.map((stop) => stop()))
  }
  process.exit(code)
}

/** What `npm start` prints once both Workers run: where, what, and curl lines to try. */
function summary({
  base,
  adminBase,
  s3,
  kept,
  keep,
  worker,
  devVars,
  tokenSecrets,
  seeded,
  adminToken,
  allowedOrigins,
  r2,
}) {
  const key = seeded.key ?? '<your API key>'
  const admin = worker.admin ? adminToken : '<your admin token>'
  const body = JSON.stringify({ origin: 'demo', keys: Object.keys(DEMO_OBJECTS) })
  const where = relative(process.cwd(), DEV_DIR) || '.'
  const lines = [
    [
      'local S3 (versitygw)',
      `${s3.endpoint}, bucket "${BUCKET}"${kept ? ' (data kept)' : ' (fresh demo data)'}`,
    ],
    [
      'demo S3 credentials',
      `access key ${DEMO_ACCESS_KEY_ID}, secret ${DEMO_SECRET_ACCESS_KEY} (local fixture)`,
    ],
    ['admin UI', `${adminBase}/ (paste the admin token below)`],
    ['bucket CORS', allowedOrigins.join(', ')],
    [`origin "${DEMO_R2_ORIGIN}"`, `local R2 (Miniflare) through the binding DEMO_R2 (${r2})`],
    [
      'WAYBILL_CORS',
      worker.corsOrigins === '*'
        ? 'any origin'
        : worker.corsOrigins.length > 0
          ? worker.corsOrigins.join(', ')
          : `not set: only pages on ${base} may call waybill (add --app-origin)`,
    ],
    [
      `API key "${API_KEY_ID}"`,
      seeded.key !== undefined
        ? `${seeded.key}${kept?.apiKey === seeded.key ? ' (kept)' : ' (made through the admin API)'}`
        : 'not made (see below)',
    ],
    [
      `admin token "${ADMIN_TOKEN_ID}"`,
      worker.admin ? `${adminToken}${kept ? ' (kept)' : ''}` : 'not added (see below)',
    ],
    [
      'control plane (D1)',
      `${relative(process.cwd(), join(DEV_DIR, 'state')) || '.'} (migrations applied${kept ? ', data kept' : ''})`,
    ],
    [
      'token secrets (links, uploads, cursors)',
      devVars.WAYBILL_TOKEN_SECRETS !== undefined
        ? 'from .dev.vars'
        : `${kept ? 'kept' : 'generated'}, id ${tokenSecrets[0].id}`,
    ],
    [
      '.dev.vars',
      worker.fromDevVars.length > 0
        ? `${worker.fromDevVars.join(', ')} (values not shown)`
        : 'none: add local secrets and settings there (see .dev.vars.example)',
    ],
    ['kept in', `${where}/ (${keep ? 'kept with --keep' : 'fresh each start; --keep keeps it'})`],
  ]
  const width = Math.max(...lines.map(([name]) => name.length))
  return `
waybill is running (stop with Ctrl-C):
  callers    ${base}
  admin API  ${adminBase}

Open the demo page (gallery and uploads; the key stays in the link's fragment, never sent):
  ${base}/#key=${key}
  ${base}/?origin=${DEMO_R2_ORIGIN}#key=${key}  (the R2 origin, served by the Worker itself)

${lines.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`).join('\n')}
${worker.warnings.map((warning) => `  note: ${warning}\n`).join('')}
Sign the demo objects:
  curl -s -X POST ${base}/v1/sign -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' -d '${body}'

Sign one URL and fetch the object through it:
  curl -s "$(curl -s -X POST ${base}/v1/sign -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' -d '{"origin":"demo","keys":["hello.txt"]}' | node -e 'process.stdin.on("data",d=>console.log(JSON.parse(d).urls[0].url))')"

Follow the edge redirect:
  curl -sL -H 'Authorization: Bearer ${key}' ${base}/v1/redirect/demo/hello.txt

A signed link anyone may follow for a day:
  curl -s -X POST ${base}/v1/links -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' -d '{"origin":"demo","keys":["hello.txt"]}'

API reference: ${base}/docs (the document: ${base}/openapi.json)

The control plane: the admin UI at ${adminBase}/ (paste the admin token), the admin API at
${adminBase}/admin/v1 (reference: ${adminBase}/docs), or the same through npm run admin:
  export WAYBILL_ADMIN_URL=${adminBase} WAYBILL_ADMIN_TOKEN=${admin}
Make a key (it is shown this once):
  NEW=$(curl -s -X POST ${adminBase}/admin/v1/keys -H "Authorization: Bearer $WAYBILL_ADMIN_TOKEN" -H 'Content-Type: application/json' -d '{"label":"try me"}' | node -e 'process.stdin.on("data",d=>{const k=JSON.parse(d);console.log(k.id+" "+k.key)})'); echo "$NEW"
  ID=\${NEW% *} KEY=\${NEW#* }
Grant it reads of the demo bucket:
  curl -s -X POST ${adminBase}/admin/v1/grants -H "Authorization: Bearer $WAYBILL_ADMIN_TOKEN" -H 'Content-Type: application/json' -d '{"to":"apiKey:'"$ID"'","origin":"demo","actions":["read"]}'
Use it:
  curl -s -X POST ${base}/v1/sign -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d '{"origin":"demo","keys":["hello.txt"]}'
Revoke it (refused everywhere within seconds):
  curl -s -X POST ${adminBase}/admin/v1/revocations -H "Authorization: Bearer $WAYBILL_ADMIN_TOKEN" -H 'Content-Type: application/json' -d '{"kind":"key","key":"'"$ID"'"}'
Its usage, by day (written a few seconds after each request):
  curl -s "${adminBase}/admin/v1/usage?principal=apiKey:$ID" -H "Authorization: Bearer $WAYBILL_ADMIN_TOKEN"
`
}

async function main() {
  let options
  try {
    options = parseDevArgs(process.argv.slice(2))
  } catch (error) {
    console.error(error.message)
    process.exit(2)
  }
  if (options.help) {
    console.log(USAGE)
    return
  }
  const { port, adminPort, s3Port, keep, json } = options
  // With --json, stdout carries the one JSON line: what would be printed goes to stderr.
  const say = json ? console.error : console.log
  process.env.WRANGLER_SEND_METRICS ??= 'false'
  process.on('SIGINT', () => stopAll(0))
  process.on('SIGTERM', () => stopAll(0))

  const stateFile = join(DEV_DIR, 'state.json')
  const dataDir = join(DEV_DIR, 's3')
  const kept = keep ? readState(stateFile) : undefined
  if (kept === undefined) rmSync(DEV_DIR, { recursive: true, force: true })
  mkdirSync(dataDir, { recursive: true })
  const state = kept ?? freshState()
  if (options.appOrigins.length > 0 || kept === undefined) state.appOrigins = options.appOrigins
  const { adminToken, tokenSecrets, appOrigins } = state
  const saveState = () =>
    writeFileSync(stateFile, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
  saveState()

  const s3 = await startVersitygw({
    dataDir,
    accessKeyId: DEMO_ACCESS_KEY_ID,
    secretAccessKey: DEMO_SECRET_ACCESS_KEY,
    port: s3Port,
    buckets: [BUCKET],
  }).catch((error) => {
    throw new Error(
      `could not start versitygw on 127.0.0.1:${s3Port} (is the port taken?): ${error.message}`,
    )
  })
  children.push(s3.stop)
  if (kept === undefined) await seed(s3.endpoint)
  const base = `http://127.0.0.1:${port}`
  const adminBase = `http://127.0.0.1:${adminPort}`
  const allowedOrigins = bucketOrigins(port, appOrigins)
  await applyBucketCors({
    endpoint: s3.endpoint,
    bucket: BUCKET,
    region: 'us-east-1',
    accessKeyId: DEMO_ACCESS_KEY_ID,
    secretAccessKey: DEMO_SECRET_ACCESS_KEY,
    allowedOrigins,
  })

  // wrangler.jsonc's vars as wrangler reads them; .dev.vars as wrangler would (it does not read
  // it itself once given an env file).
  const { unstable_readConfig } = await import('wrangler')
  const wranglerVars = unstable_readConfig({ config: join(ROOT, 'wrangler.jsonc') }).vars
  const devVarsFile = join(ROOT, '.dev.vars')
  const devVars = existsSync(devVarsFile) ? parseEnv(readFileSync(devVarsFile, 'utf8')) : {}
  const worker = workerVars({
    wranglerVars,
    devVars,
    s3Endpoint: s3.endpoint,
    adminTokenSha256: sha256Hex(adminToken),
    tokenSecrets,
    appOrigins,
  })
  const envFile = join(DEV_DIR, 'worker.vars')
  const adminEnvFile = join(DEV_DIR, 'admin.vars')
  writeFileSync(envFile, envFileText(worker.vars), { mode: 0o600 })
  writeFileSync(adminEnvFile, envFileText(worker.adminVars), { mode: 0o600 })

  // GET /docs loads Scalar's bundle, the demo page the client's, the admin UI its own bundle, from
  // each Worker's assets.
  await buildVendorAssets()
  // The local D1 and Durable Objects, shared by both Workers and kept with --keep; the migrations
  // are applied on the way. The admin plane finds the data plane through the dev registry.
  const persistTo = join(DEV_DIR, 'state')
  const registry = join(DEV_DIR, 'registry')
  const planes = [
    { name: 'wrangler dev (data plane)', port, envFile, config: 'wrangler.jsonc', base },
    {
      name: 'wrangler dev (admin plane)',
      port: adminPort,
      envFile: adminEnvFile,
      config: 'wrangler.admin.jsonc',
      base: adminBase,
    },
  ]
  // One after the other, the admin plane once the data plane answers, as the tests start them: two
  // workerd on one local state share its SQLite files, and one that finds a file locked as it
  // opens it dies ("database is locked: SQLITE_BUSY"; spawnWranglerDev turns off the trace store
  // that did it). A plane that still exits while starting is started again, once.
  const inspectors = [await inspectorPort(), await freePort()]
  for (const [i, plane] of planes.entries()) {
    for (let attempt = 1; ; attempt++) {
      if (stopping) return
      const child = spawnWranglerDev({
        port: plane.port,
        envFile: plane.envFile,
        config: plane.config,
        inspectorPort: inspectors[i],
        persistTo,
        registry,
        logsToStderr: json,
      })
      children.push(() => stopWranglerDev(child))
      try {
        await waitForHealthz(`${plane.base}/healthz`, child, 120_000)
      } catch (error) {
        if (stopping || child.exitCode === null || attempt === START_ATTEMPTS) throw error
        console.error(`${plane.name} exited while starting (${child.exitCode}); starting it again.`)
        continue
      }
      child.once('exit', (code) => {
        if (!stopping) {
          console.error(`${plane.name} exited (${code}); stopping the rest.`)
          void stopAll(code ?? 1)
        }
      })
      break
    }
  }

  const seeded = worker.apiKey
    ? await seedDemoKey(adminBase, adminToken, kept?.apiKey)
    : { reason: 'see below' }
  if (seeded.key !== undefined) {
    state.apiKey = seeded.key
    saveState()
  } else if (worker.apiKey) {
    worker.warnings.push(`the API key "${API_KEY_ID}" could not be made: ${seeded.reason}`)
  }
  // The R2 origin's local bucket is kept with the rest of the state; a fresh one is seeded.
  const r2 =
    seeded.key === undefined
      ? 'not seeded (no API key "demo")'
      : kept === undefined
        ? await seedR2(base, seeded.key, demoObjects()).then(
            () => 'fresh demo data',
            (error) => `not seeded: ${error.message}`,
          )
        : 'data kept'
  if (json) {
    console.log(
      JSON.stringify({
        baseUrl: base,
        adminUrl: adminBase,
        apiKey: seeded.key ?? null,
        adminToken: worker.admin ? adminToken : null,
        ports: { worker: port, admin: adminPort, s3: s3Port },
        s3: {
          endpoint: s3.endpoint,
          bucket: BUCKET,
          accessKeyId: DEMO_ACCESS_KEY_ID,
          secretAccessKey: DEMO_SECRET_ACCESS_KEY,
        },
        kept: kept !== undefined,
        warnings: worker.warnings,
      }),
    )
    return
  }
  say(
    summary({
      base,
      adminBase,
      s3,
      kept,
      keep,
      worker,
      devVars,
      tokenSecrets,
      seeded,
      adminToken,
      allowedOrigins,
      r2,
    }),
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch(async (error) => {
    // Stopped while starting (Ctrl-C): the Worker it waited for went because it was asked to.
    if (!stopping) console.error(`npm start failed: ${error.message}`)
    await stopAll(1)
  })
}
