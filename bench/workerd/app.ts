// The app benchmark Worker: each route calls waybill's own fetch handler `n` times within one
// request (GET /healthz, a redirect, following a signed link), one app and one config per isolate
// as in production, so a whole request's cost inside the app stands out of the runtime's dispatch
// (about a millisecond per request through Miniflare). bench/workerd.mjs bundles it against this
// checkout's src/ or a baseline's, so the same requests measure both. `validate-sign-10k` is not
// a request: the /v1/sign body schema alone on an already-parsed body of 10,000 keys.

import * as v from 'valibot'
import { createApp } from '../../src/app'
import { SignBody } from '../../src/schemas/sign'

const BUCKET = 'photos'
const REGION = 'eu-west-1'
const KEY = 'gallery/2026/img-000123.jpg'
const API_KEY = 'wb_bench_app_key_not_a_secret_0123456789'
const BASE = 'https://waybill.bench'
const encoder = new TextEncoder()

const app = createApp()
let env: Promise<Record<string, unknown>> | undefined
let linkPath: Promise<string> | undefined

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
    WAYBILL_GRANTS: JSON.stringify([{ to: 'apiKey:bench', origin: 'photos', actions: ['read'] }]),
    WAYBILL_TOKEN_SECRETS: JSON.stringify([
      { id: 'b1', secret: 'bench-link-secret-not-a-secret-0' },
    ]),
    WAYBILL_REQUEST_LOG: 'errors',
  }
}

async function issueLink(ctx: ExecutionContext): Promise<string> {
  const response = await app.fetch(
    new Request(`${BASE}/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ origin: 'photos', keys: [KEY] }),
    }),
    await (env ??= makeEnv()),
    ctx,
  )
  if (response.status !== 200) throw new Error(`POST /v1/links: ${response.status}`)
  const { links } = await response.json<{ links: { url: string }[] }>()
  return new URL(links[0]!.url).pathname
}

/** A request maker, the status it must answer, and whether its body is read (a streamed answer's
 * work happens as it is read). */
type Case = [next: () => Request, expected: number, read?: boolean]

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

const CASES: Record<string, (ctx: ExecutionContext) => Case | Promise<Case>> = {
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
      true,
    ]
  },
  async 'app-link'(ctx) {
    const url = `${BASE}${await (linkPath ??= issueLink(ctx))}`
    return [() => new Request(url), 302]
  },
}

export default {
  async fetch(request: Request, _env: unknown, ctx: ExecutionContext): Promise<Response> {
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
    const make = CASES[name]
    if (make === undefined) return new Response(`unknown case ${name}`, { status: 404 })
    const [next, expected, read = false] = await make(ctx)
    const appEnv = await (env ??= makeEnv())
    // Bodies are left unread, as the runtime would stream them, unless the case reads them; every
    // status is checked.
    let response: Response | undefined
    for (let i = 0; i < calls; i++) {
      response = await app.fetch(next(), appEnv, ctx)
      if (response.status !== expected) {
        return new Response(`${name}: ${response.status} ${await response.text()}`, { status: 500 })
      }
      if (read) await response.arrayBuffer()
    }
    return Response.json({ n: calls, first: response?.headers.get('location') ?? null })
  },
}
