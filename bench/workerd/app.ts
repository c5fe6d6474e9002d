// The app benchmark Worker: each route calls waybill's own fetch handler `n` times within one
// request (GET /healthz, a redirect, following a signed link), one app and one config per isolate
// as in production, so a whole request's cost inside the app stands out of the runtime's dispatch
// (about a millisecond per request through Miniflare). bench/workerd.mjs bundles it against this
// checkout's src/ or a baseline's, so the same requests measure both. `validate-sign-10k` is not
// a request: the /v1/sign body schema alone on an already-parsed body of 10,000 keys.
//
// With a D1 binding (WAYBILL_DB, given by bench/workerd.mjs and bench/control.mjs), the control
// plane's cases too: a redirect by a key made through the admin API, its grant in D1, from warm
// caches (`app-redirect-d1`), a link that key issued (`app-link-d1`), the same redirect with a key
// no cache has seen on every call (the cold miss, from the keys bench/control.mjs stored in
// BENCH_COLD_KEYS), and an admin write.
//
// The upload cases: issuing a PUT upload (`app-upload`), and its completion check
// (`app-check`), whose HeadObject a stand-in store answers inside this Worker (see `fakeStore`).

import * as v from 'valibot'
import { createAdminApp } from '../../src/admin/app'
import { createApp } from '../../src/app'
import { bridgeOf } from '../../src/bridge'
import { SignBody } from '../../src/schemas/sign'

const BUCKET = 'photos'
const REGION = 'eu-west-1'
const KEY = 'gallery/2026/img-000123.jpg'
const API_KEY = 'wb_bench_app_key_not_a_secret_0123456789'
const BASE = 'https://waybill.bench'
const encoder = new TextEncoder()

const ADMIN_TOKEN = 'wba_bench_admin_token_not_a_secret_0123456789'

const app = createApp()
/** The same app with downloads through own URLs routed like every other request (src/app.ts). */
const routedApp = createApp({ routeDownloads: true })
/** The admin Worker's app (a baseline before it had one: the app itself, bench/workerd.mjs). */
const adminApp = createAdminApp()
let env: Promise<Record<string, unknown>> | undefined
let controlEnv: Promise<Record<string, unknown>> | undefined
let adminEnv: Promise<Record<string, unknown>> | undefined
let linkPath: Promise<string> | undefined
let storedLinkPath: Promise<string> | undefined
let storedKey: Promise<string> | undefined
let upload: Promise<{ receipt: string; tag: string | undefined }> | undefined
let coldKeys: string[] | undefined
let cold = 0

const hex = (bytes: ArrayBuffer) =>
  Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('')

/** The same config with the control plane bound: D1. */
async function makeControlEnv(bindings: Record<string, unknown>): Promise<Record<string, unknown>> {
  return { ...(await (env ??= makeEnv())), WAYBILL_DB: bindings.WAYBILL_DB }
}

/**
 * The admin Worker's env: the control plane's D1, an admin token, and the data plane's bridge
 * (over the same config). A baseline's one app reads the admin token from the same env.
 */
async function makeAdminEnv(bindings: Record<string, unknown>): Promise<Record<string, unknown>> {
  const sha256 = hex(await crypto.subtle.digest('SHA-256', encoder.encode(ADMIN_TOKEN)))
  const data = await (controlEnv ??= makeControlEnv(bindings))
  return {
    ...data,
    WAYBILL_ADMIN_TOKENS: JSON.stringify([{ id: 'bench', sha256 }]),
    WAYBILL_DATA_PLANE: bridgeOf(data),
  }
}

/** A request to the app as the admin. */
async function adminRequest(
  path: string,
  body: unknown,
  bindings: Record<string, unknown>,
  ctx: ExecutionContext,
) {
  return adminApp.fetch(
    new Request(`${BASE}/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    await (adminEnv ??= makeAdminEnv(bindings)),
    ctx,
  )
}

/** A key made through the admin API, with a grant to read the bucket: the D1 cases' caller. */
async function makeStoredKey(bindings: Record<string, unknown>, ctx: ExecutionContext) {
  const response = await adminRequest(
    '/keys',
    { label: 'bench', grants: [{ origin: 'photos', prefix: 'gallery/', actions: ['read'] }] },
    bindings,
    ctx,
  )
  if (response.status !== 201) throw new Error(`POST /admin/v1/keys: ${response.status}`)
  return (await response.json<{ key: string }>()).key
}

/** One config for every case; request logging on errors only, as a busy deployment would run. */
async function makeEnv(): Promise<Record<string, unknown>> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(API_KEY)))
  const sha256 = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')
  return {
    WAYBILL_ORIGINS: JSON.stringify({
      photos: { type: 's3', bucket: BUCKET, region: REGION, credentials: 'BENCH' },
    }),
    BENCH_ACCESS_KEY_ID: 'AKIDBENCHMARK',
    BENCH_SECRET_ACCESS_KEY: 'bench/secret/not+real',
    WAYBILL_API_KEYS: JSON.stringify([{ id: 'bench', sha256 }]),
    WAYBILL_GRANTS: JSON.stringify([
      { to: 'apiKey:bench', origin: 'photos', prefix: 'gallery/', actions: ['read'] },
      { to: 'apiKey:bench', origin: 'photos', prefix: 'uploads/', actions: ['write'] },
    ]),
    WAYBILL_TOKEN_SECRETS: JSON.stringify([
      { id: 'b1', secret: 'bench-link-secret-not-a-secret-0' },
    ]),
    WAYBILL_REQUEST_LOG: 'errors',
  }
}

async function issueLink(
  ctx: ExecutionContext,
  key = API_KEY,
  on: Promise<Record<string, unknown>> = (env ??= makeEnv()),
): Promise<string> {
  return (await issueLinks(ctx, [KEY], key, on))[0]!
}

/** Links to `keys`, one each, issued in one request: their paths. */
async function issueLinks(
  ctx: ExecutionContext,
  keys: readonly string[],
  key = API_KEY,
  on: Promise<Record<string, unknown>> = (env ??= makeEnv()),
): Promise<string[]> {
  const response = await app.fetch(
    new Request(`${BASE}/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ origin: 'photos', keys }),
    }),
    await on,
    ctx,
  )
  if (response.status !== 200) throw new Error(`POST /v1/links: ${response.status}`)
  const { links } = await response.json<{ links: { url: string }[] }>()
  return links.map(({ url }) => new URL(url).pathname)
}

/**
 * Distinct links followed in turn by `app-link-fresh`: more than a cache of verified links holds
 * (512, src/auth/links.ts), so each visit is a link's first as far as the app can tell.
 */
const FRESH_LINKS = Array.from(
  { length: 2_000 },
  (_, i) => `gallery/2026/fresh-${String(i).padStart(4, '0')}.jpg`,
)
let freshLinkPaths: Promise<string[]> | undefined

/** The upload the check case checks: a 10-byte PUT, issued once. */
const UPLOAD = {
  origin: 'photos',
  key: 'uploads/bench.txt',
  contentType: 'text/plain',
  contentLength: 10,
}
const UPLOAD_HEADERS = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }

async function issueUpload(ctx: ExecutionContext) {
  const response = await app.fetch(
    new Request(`${BASE}/v1/uploads`, {
      method: 'POST',
      headers: UPLOAD_HEADERS,
      body: JSON.stringify(UPLOAD),
    }),
    await (env ??= makeEnv()),
    ctx,
  )
  if (response.status !== 200) throw new Error(`POST /v1/uploads: ${response.status}`)
  const { receipt, headers } = await response.json<{
    receipt: string
    headers: Record<string, string>
  }>()
  return { receipt, tag: headers['x-amz-meta-waybill-upload'] }
}

/**
 * The bucket's HeadObject, answered here: the object the upload stored, carrying its tag where the
 * upload signs one, and an ETag the check names. Everything else goes to the real fetch.
 */
function fakeStore(tag: string | undefined): void {
  const real = globalThis.fetch
  globalThis.fetch = (input, init) => {
    const request = new Request(input, init)
    if (new URL(request.url).host !== `${BUCKET}.s3.${REGION}.amazonaws.com`) return real(request)
    const now = new Date().toUTCString()
    return Promise.resolve(
      new Response(null, {
        headers: {
          'content-length': '10',
          'content-type': 'text/plain',
          etag: '"bench"',
          'last-modified': now,
          date: now,
          ...(tag === undefined ? {} : { 'x-amz-meta-waybill-upload': tag }),
        },
      }),
    )
  }
}

/**
 * A request maker, the status it must answer, and how: `read`, its body is read (a streamed
 * answer's work happens as it is read); `control`, the app is given the control plane's D1.
 */
type Case = [
  next: () => Request,
  expected: number,
  how?: { read?: boolean; control?: boolean; r2?: boolean; admin?: boolean; routed?: boolean },
]

// The R2 delivery cases: a 1 KiB object in a local bucket (binding BENCH_R2), read through the
// app with a signed URL of its own (`app-r2-get`: verify, the issuer's standing, the binding's
// get, the answer's headers) and through the bare binding (`r2-bare-get`): the difference is
// what serving through waybill adds to each download.
const R2_KEY = 'gallery/2026/img-000123.jpg'
const R2_OBJECT = new Uint8Array(1024).fill(42)
let r2Env: Promise<Record<string, unknown>> | undefined
let r2Url: Promise<string> | undefined
let r2MemoryUrl: Promise<string> | undefined

/**
 * An in-memory stand-in for the bucket: the same object, answered without I/O. Local R2 takes about
 * a millisecond a get, and varies by more than the few microseconds waybill adds; with this
 * stand-in on both sides (`app-r2-memory-get`, `r2-bare-memory-get`), their difference is what
 * serving through waybill adds, measured to the microsecond.
 */
const UPLOADED = new Date('2026-11-01T00:00:00Z')
const memoryBucket = {
  head: (key: string) => Promise.resolve(key === R2_KEY ? memoryObject() : null),
  get: (key: string) =>
    Promise.resolve(
      key === R2_KEY
        ? Object.assign(memoryObject(), { body: new Blob([R2_OBJECT]).stream() })
        : null,
    ),
  put: () => Promise.reject(new Error('read-only stand-in')),
  delete: () => Promise.reject(new Error('read-only stand-in')),
  createMultipartUpload: () => Promise.reject(new Error('read-only stand-in')),
}
function memoryObject() {
  return {
    key: R2_KEY,
    size: R2_OBJECT.byteLength,
    etag: 'bench-etag',
    httpEtag: '"bench-etag"',
    uploaded: UPLOADED,
    httpMetadata: { contentType: 'image/jpeg' },
    customMetadata: {},
    writeHttpMetadata(headers: Headers) {
      headers.set('content-type', 'image/jpeg')
    },
  }
}

/**
 * The app's config with an R2 origin `media` on BENCH_R2, which the API key may read, and `memory`
 * on the in-memory stand-in (BENCH_R2_MEMORY).
 */
async function makeR2Env(bindings: Record<string, unknown>): Promise<Record<string, unknown>> {
  const base = await (env ??= makeEnv())
  await (bindings.BENCH_R2 as R2Bucket).put(R2_KEY, R2_OBJECT, {
    httpMetadata: { contentType: 'image/jpeg' },
  })
  return {
    ...base,
    BENCH_R2: bindings.BENCH_R2,
    BENCH_R2_MEMORY: memoryBucket,
    WAYBILL_ORIGINS: JSON.stringify({
      ...(JSON.parse(base.WAYBILL_ORIGINS as string) as object),
      media: { type: 'r2', binding: 'BENCH_R2' },
      memory: { type: 'r2', binding: 'BENCH_R2_MEMORY' },
    }),
    WAYBILL_GRANTS: JSON.stringify([
      ...(JSON.parse(base.WAYBILL_GRANTS as string) as object[]),
      { to: 'apiKey:bench', origin: 'media', prefix: 'gallery/', actions: ['read'] },
      { to: 'apiKey:bench', origin: 'memory', prefix: 'gallery/', actions: ['read'] },
    ]),
  }
}

async function signR2Url(
  bindings: Record<string, unknown>,
  ctx: ExecutionContext,
  origin = 'media',
) {
  const response = await app.fetch(
    new Request(`${BASE}/v1/sign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ origin, keys: [R2_KEY] }),
    }),
    await (r2Env ??= makeR2Env(bindings)),
    ctx,
  )
  if (response.status !== 200) throw new Error(`POST /v1/sign (r2): ${response.status}`)
  return (await response.json<{ urls: { url: string }[] }>()).urls[0]!.url
}

/**
 * A bare Worker's read of `bucket`: the key from the request's path, the object's headers, its body.
 * What a Worker serving R2 does at the least; the request is made per call, as for the app's cases
 * (the runtime makes one for every request either way).
 */
async function bareGet(bucket: Pick<R2Bucket, 'get'>, request: Request): Promise<Response> {
  const key = decodeURIComponent(new URL(request.url).pathname.slice(BARE_PREFIX.length))
  const object = await bucket.get(key)
  if (object === null) throw new Error(`bare get: no object at ${key}`)
  const headers = new Headers()
  object.writeHttpMetadata(headers)
  headers.set('etag', object.httpEtag)
  return new Response(object.body, { headers })
}
const BARE_PREFIX = '/bare/'
const BARE_URL = `${BASE}${BARE_PREFIX}${R2_KEY}`

/** Cases that are not the app's requests: the bare binding's read, for the R2 baseline. */
const BARE: Record<string, (bindings: Record<string, unknown>) => Promise<Response>> = {
  async 'r2-bare-get'(bindings) {
    await (r2Env ??= makeR2Env(bindings))
    return bareGet(bindings.BENCH_R2 as R2Bucket, new Request(BARE_URL))
  },
  'r2-bare-memory-get'() {
    return bareGet(memoryBucket as unknown as R2Bucket, new Request(BARE_URL))
  },
}

/** A `POST /v1/sign` body of 10,000 keys, built once. */
const SIGN_BODY = JSON.stringify({
  origin: 'photos',
  keys: Array.from(
    { length: 10_000 },
    (_, i) => `gallery/2026/img-${String(i).padStart(6, '0')}.jpg`,
  ),
})

/** The same body, parsed once: what validation alone costs, without reading, signing or answering. */
const SIGN_INPUT: unknown = JSON.parse(SIGN_BODY)

/** Validation only: true when the schema passed the input. */
const VALIDATIONS: Record<string, () => boolean> = {
  'validate-sign-10k': () => v.safeParse(SignBody, SIGN_INPUT).success,
}

const CASES: Record<
  string,
  (ctx: ExecutionContext, bindings: Record<string, unknown>) => Case | Promise<Case>
> = {
  'app-healthz'() {
    return [() => new Request(`${BASE}/healthz`), 200]
  },
  'app-redirect'() {
    const init = { headers: { authorization: `Bearer ${API_KEY}` } }
    return [() => new Request(`${BASE}/v1/redirect/photos/${KEY}`, init), 302]
  },
  // A whole batch request: authentication, body reading and validation, authorize per key, the
  // signing, and the answer's JSON. bench/run.mjs reports it per key.
  'app-sign-10k'() {
    const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }
    return [
      () => new Request(`${BASE}/v1/sign`, { method: 'POST', headers, body: SIGN_BODY }),
      200,
      { read: true },
    ]
  },
  // The same link followed again and again (a shared download): from the second visit on, its
  // token's verification is kept (src/auth/links.ts).
  async 'app-link'(ctx) {
    const url = `${BASE}${await (linkPath ??= issueLink(ctx))}`
    return [() => new Request(url), 302]
  },
  /** Links followed for the first time: 2,000 distinct ones in turn, each verified afresh. */
  async 'app-link-fresh'(ctx) {
    const paths = await (freshLinkPaths ??= issueLinks(ctx, FRESH_LINKS))
    let next = 0
    return [() => new Request(`${BASE}${paths[next++ % paths.length]}`), 302]
  },
  /** A link issued by a key made through the admin API: the control plane judges that key. */
  async 'app-link-d1'(ctx, bindings) {
    const key = await (storedKey ??= makeStoredKey(bindings, ctx))
    const path = await (storedLinkPath ??= issueLink(
      ctx,
      key,
      (controlEnv ??= makeControlEnv(bindings)),
    ))
    return [() => new Request(`${BASE}${path}`), 302, { control: true }]
  },
  /** Issuing one PUT upload: its permit, tag, URL and receipt. */
  'app-upload'() {
    const body = JSON.stringify(UPLOAD)
    return [
      () => new Request(`${BASE}/v1/uploads`, { method: 'POST', headers: UPLOAD_HEADERS, body }),
      200,
      { read: true },
    ]
  },
  /** The completion check of that upload: its receipt, a HeadObject, the answer. */
  async 'app-check'(ctx) {
    const { receipt, tag } = await (upload ??= issueUpload(ctx))
    fakeStore(tag)
    const { origin, key } = UPLOAD
    const body = JSON.stringify({ origin, key, receipt, etag: '"bench"' })
    return [
      () =>
        new Request(`${BASE}/v1/uploads/complete`, {
          method: 'POST',
          headers: UPLOAD_HEADERS,
          body,
        }),
      200,
      { read: true },
    ]
  },
  async 'app-redirect-d1'(ctx, bindings) {
    const key = await (storedKey ??= makeStoredKey(bindings, ctx))
    const init = { headers: { authorization: `Bearer ${key}` } }
    return [() => new Request(`${BASE}/v1/redirect/photos/${KEY}`, init), 302, { control: true }]
  },
  /** Each call a key no cache has seen: its lookup and grants are one D1 query. */
  'app-redirect-d1-cold'(_ctx, bindings) {
    coldKeys ??= JSON.parse(bindings.BENCH_COLD_KEYS as string) as string[]
    const keys = coldKeys
    return [
      () => {
        const key = keys[cold++]
        if (key === undefined) throw new Error('out of cold keys: store more in BENCH_COLD_KEYS')
        return new Request(`${BASE}/v1/redirect/photos/${KEY}`, {
          headers: { authorization: `Bearer ${key}` },
        })
      },
      302,
      { control: true },
    ]
  },
  async 'app-r2-get'(ctx, bindings) {
    const url = await (r2Url ??= signR2Url(bindings, ctx))
    return [() => new Request(url), 200, { read: true, r2: true }]
  },
  async 'app-r2-memory-get'(ctx, bindings) {
    const url = await (r2MemoryUrl ??= signR2Url(bindings, ctx, 'memory'))
    return [() => new Request(url), 200, { read: true, r2: true }]
  },
  /** The same download through the router and the middleware chain, as every other request. */
  async 'app-r2-memory-get-routed'(ctx, bindings) {
    const url = await (r2MemoryUrl ??= signR2Url(bindings, ctx, 'memory'))
    return [() => new Request(url), 200, { read: true, r2: true, routed: true }]
  },
  /** An admin write: a key with one grant (three rows and the epoch, one transaction). */
  'admin-create-key'() {
    let i = 0
    return [
      () =>
        new Request(`${BASE}/admin/v1/keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            label: `bench ${i++}`,
            grants: [{ origin: 'photos', prefix: `tenants/${i}/`, actions: ['read'] }],
          }),
        }),
      201,
      { admin: true },
    ]
  },
}

export default {
  async fetch(
    request: Request,
    bindings: Record<string, unknown>,
    ctx: ExecutionContext,
  ): Promise<Response> {
    const url = new URL(request.url)
    const name = url.pathname.slice(1)
    if (name === 'empty') return new Response('{}')
    const calls =
      Number(url.searchParams.get('n') ?? '1') * Number(url.searchParams.get('reps') ?? '1')
    const validate = VALIDATIONS[name]
    if (validate !== undefined) {
      for (let i = 0; i < calls; i++) {
        if (!validate()) return new Response(`${name}: refused`, { status: 500 })
      }
      return Response.json({ n: calls })
    }
    const bare = BARE[name]
    if (bare !== undefined) {
      for (let i = 0; i < calls; i++) await (await bare(bindings)).arrayBuffer()
      return Response.json({ n: calls })
    }
    const make = CASES[name]
    if (make === undefined) return new Response(`unknown case ${name}`, { status: 404 })
    const [
      next,
      expected,
      { read = false, control = false, r2 = false, admin = false, routed = false } = {},
    ] = await make(ctx, bindings)
    const appEnv = admin
      ? await (adminEnv ??= makeAdminEnv(bindings))
      : r2
        ? await (r2Env ??= makeR2Env(bindings))
        : control
          ? await (controlEnv ??= makeControlEnv(bindings))
          : await (env ??= makeEnv())
    const worker = admin ? adminApp : routed ? routedApp : app
    // Bodies are left unread, as the runtime would stream them, unless the case reads them; every
    // status is checked.
    let response: Response | undefined
    for (let i = 0; i < calls; i++) {
      response = await worker.fetch(next(), appEnv, ctx)
      if (response.status !== expected) {
        return new Response(`${name}: ${response.status} ${await response.text()}`, { status: 500 })
      }
      if (read) await response.arrayBuffer()
    }
    return Response.json({ n: calls, first: response?.headers.get('location') ?? null })
  },
}
