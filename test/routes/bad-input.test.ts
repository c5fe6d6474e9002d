// Every route against bad input (the table in ./bad-input-cases.ts): each row must answer its 4xx as
// an RFC 9457 problem naming the field, and nothing may answer 5xx. Some rows also run through the
// real Worker entry. Then the checks that need more than one request: reading stops at the size
// limit, and an unknown origin answers like an ungranted one (no probing the config).

import { createExecutionContext } from 'cloudflare:test'
import { env as workerBindings, exports } from 'cloudflare:workers'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { createAdminApp } from '../../src/admin/app'
import adminWorker from '../../src/admin/index'
import { createApp } from '../../src/app'
import type { AdminEnv } from '../../src/config/admin'
import { MAX_BODY_BYTES } from '../../src/limits'
import type { Env } from '../../src/env'
import {
  ACCESS_AUD,
  ACCESS_CERTS,
  ACCESS_TEAM,
  AUDIENCE,
  FakeJwksServer,
  HS256_SECRET,
  ISSUER,
  makeKey,
} from '../fixtures/auth'
import { ADMIN_TOKEN, adminEnvOf, withControl } from '../helpers/control-plane'
import { postJson } from '../helpers/requests'
import { BAD_INPUT_CASES, MIB, type BadInputCase, type Caller } from './bad-input-cases'
import {
  ALL_KEY,
  NOW,
  PHOTOS_KEY,
  problemOf,
  S3_AND_CDN_ORIGINS,
  testEnv,
  type Problem,
} from '../helpers/routes'

const testKeys = inject('testKeys')
const workerKey = inject('apiKey').key

let env: Env
let adminEnv: AdminEnv
let app: ReturnType<typeof createApp>
let adminApp: ReturnType<typeof createAdminApp>

/** The route-test env plus a CloudFront origin, JWT (HS256 and cookie) and Cloudflare Access. */
async function matrixEnv(): Promise<Env> {
  return testEnv({
    WAYBILL_ORIGINS: S3_AND_CDN_ORIGINS,
    CDN_PRIVATE_KEY: testKeys.rsaPkcs8,
    WAYBILL_TOKEN_SECRETS: JSON.stringify([
      { id: 'k0', secret: 'bad-input-matrix-link-secret-0123456789' },
    ]),
    WAYBILL_AUTH: JSON.stringify({
      jwt: { issuer: ISSUER, audience: AUDIENCE, hs256: true, cookie: 'wb_token' },
      access: { teamDomain: ACCESS_TEAM, aud: ACCESS_AUD },
    }),
    WAYBILL_JWT_HS256_SECRET: HS256_SECRET,
    WAYBILL_GRANTS: JSON.stringify([
      { to: 'apiKey:all', origin: 'photos', actions: ['read', 'write', 'delete'] },
      { to: 'apiKey:all', origin: 'docs', actions: ['read', 'write', 'delete'] },
      {
        to: 'apiKey:all',
        origin: 'cdn',
        prefix: 'users/alice/',
        actions: ['read'],
        wildcard: true,
        maxExpiresIn: 3600,
      },
      { to: 'apiKey:all', origin: 'cdn', prefix: 'public/', actions: ['read'], maxExpiresIn: 3600 },
      { to: 'apiKey:photos-only', origin: 'photos', actions: ['read'] },
    ]),
  })
}

beforeAll(async () => {
  const accessKey = await makeKey('RS256', 'access-key')
  const server = new FakeJwksServer()
  server.sets.set(ACCESS_CERTS, { keys: [accessKey.publicJwk] })
  app = createApp({ clock: () => NOW, fetch: server.fetch })
  adminApp = createAdminApp({ clock: () => NOW, fetch: server.fetch })
  // With the control plane: the pool's D1 and quota counters; the admin Worker's env beside it,
  // with an admin token.
  env = await withControl(await matrixEnv())
  adminEnv = await adminEnvOf(env)
  // The env must be valid, or every row would be the same 503.
  const health = await app.request('/healthz', {}, env)
  expect(health.status, await health.clone().text()).toBe(200)
})

interface Keys {
  valid: string
  photosOnly: string
}

const isAdmin = (row: BadInputCase) => row.path.startsWith('/admin/')
const init = (row: BadInputCase) => requestInit(row, { valid: ALL_KEY, photosOnly: PHOTOS_KEY })

function requestInit(row: BadInputCase, keys: Keys): RequestInit {
  const headers = new Headers()
  const caller: Caller = row.caller ?? 'valid'
  if (caller === 'valid') headers.set('authorization', `Bearer ${keys.valid}`)
  else if (caller === 'admin') headers.set('authorization', `Bearer ${ADMIN_TOKEN}`)
  else if (caller === 'photos-only') headers.set('authorization', `Bearer ${keys.photosOnly}`)
  else if (caller !== 'none') for (const [k, v] of Object.entries(caller.headers)) headers.set(k, v)

  let body: BodyInit | undefined
  if (row.body !== undefined) {
    headers.set('content-type', 'application/json')
    if ('json' in row.body) body = JSON.stringify(row.body.json)
    else if ('text' in row.body)
      body = typeof row.body.text === 'string' ? row.body.text : row.body.text()
    else if ('bytes' in row.body) body = row.body.bytes
    else body = row.body.stream()
  }
  for (const [name, value] of Object.entries(row.headers ?? {})) {
    if (value === null) headers.delete(name)
    else headers.set(name, value)
  }
  return { method: row.method, headers, body }
}

/** What every row's answer must be: its 4xx, as a problem that names the field. */
async function expectProblem(row: BadInputCase, response: Response): Promise<void> {
  const text = await response.clone().text()
  const context = printable(`${row.name}: ${response.status} ${text.slice(0, 300)}`)
  expect(response.status, context).toBe(row.status)
  expect(response.status, context).toBeGreaterThanOrEqual(400)
  expect(response.status, context).toBeLessThan(500)
  expect(response.headers.get('content-type'), context).toBe('application/problem+json')
  expect(response.headers.get('cache-control'), context).toBe('no-store')
  if (row.allow !== undefined) expect(response.headers.get('allow'), context).toBe(row.allow)
  if (row.status === 401) {
    expect(response.headers.get('www-authenticate'), context).toMatch(/^Bearer realm="waybill"/)
  }
  if (row.method === 'HEAD') {
    // Hono answers HEAD like GET without the body.
    expect(text, context).toBe('')
    return
  }
  const problem = (await problemOf(response)) as Problem & Record<string, unknown>
  expect(problem.type, context).toMatch(/^urn:waybill:problem:[a-z_]+$/)
  expect(typeof problem.title, context).toBe('string')
  expect(problem.title.length, context).toBeGreaterThan(0)
  expect(problem.status, context).toBe(row.status)
  expect(typeof problem.detail, context).toBe('string')
  expect(problem.detail.length, context).toBeGreaterThan(0)
  if (row.detail !== undefined) expect(problem.detail, context).toContain(row.detail)
  if (row.errorPath !== undefined) {
    expect(Array.isArray(problem.errors), context).toBe(true)
    for (const error of problem.errors!) {
      expect(typeof error.path, context).toBe('string')
      expect(typeof error.message, context).toBe('string')
    }
    expect(
      problem.errors!.map((e) => e.path),
      context,
    ).toContain(row.errorPath)
  }
}

const NEEDS_FIELD = new Set([400, 413, 415])

/** Test titles and messages cross a WebSocket as UTF-8: lone surrogates must be escaped. */
function printable(text: string): string {
  return text.replace(
    /[\ud800-\udfff]/gu,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

describe(`bad-input matrix (${BAD_INPUT_CASES.length} rows)`, () => {
  it(`has ${BAD_INPUT_CASES.length} well-formed rows covering every route`, () => {
    console.info(
      JSON.stringify({
        matrixRows: BAD_INPUT_CASES.length,
        workerRows: BAD_INPUT_CASES.filter((row) => row.worker).length,
      }),
    )
    expect(BAD_INPUT_CASES.length).toBeGreaterThanOrEqual(250)
    const names = BAD_INPUT_CASES.map((row) => row.name)
    expect(new Set(names).size, 'row names are unique').toBe(names.length)
    for (const row of BAD_INPUT_CASES) {
      expect(row.status, row.name).toBeGreaterThanOrEqual(400)
      expect(row.status, row.name).toBeLessThan(500)
      // A field error the client cannot locate is not a useful answer.
      if (NEEDS_FIELD.has(row.status) && row.method !== 'HEAD') {
        expect(row.errorPath, row.name).toBeDefined()
      }
      if (row.status === 405) expect(row.allow, row.name).toBeDefined()
      if (row.worker) {
        // The Worker's env has other origins and keys: only callers that do not depend on them.
        expect(
          row.caller === undefined || row.caller === 'none' || typeof row.caller === 'object',
        ).toBe(true)
        expect(row.knownBug, row.name).toBeUndefined()
      }
    }
    const routes = new Set(
      BAD_INPUT_CASES.map((row) => row.path.split('?')[0]!.split('/').slice(0, 3).join('/')),
    )
    for (const route of [
      '/v1/sign',
      '/v1/cookies',
      '/v1/redirect',
      '/v1/links',
      '/l/k1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA',
      '/healthz',
      '/openapi.json',
      '/admin/v1',
    ]) {
      expect(routes, route).toContain(route)
    }
  })

  for (const row of BAD_INPUT_CASES) {
    const title = `${row.name} → ${row.status}${row.errorPath === undefined ? '' : ` naming ${printable(row.errorPath)}`}`
    // The admin API's rows go to the admin Worker's app, the rest to the data plane's.
    const send = () =>
      isAdmin(row)
        ? adminApp.request(row.path, init(row), adminEnv)
        : app.request(row.path, init(row), env)
    if (row.knownBug === undefined) {
      it(title, async () => expectProblem(row, await send()))
      continue
    }
    it.fails(`${title} (known bug: ${row.knownBug})`, async () => expectProblem(row, await send()))
    it(`${row.name} is still a 4xx problem`, async () => {
      const response = await send()
      expect(response.status).toBeGreaterThanOrEqual(400)
      expect(response.status).toBeLessThan(500)
      expect(response.headers.get('content-type')).toBe('application/problem+json')
      const problem = await problemOf(response)
      expect(problem.status).toBe(response.status)
      expect(problem.detail.length).toBeGreaterThan(0)
    })
  }
})

const WORKER_ROWS = BAD_INPUT_CASES.filter((row) => row.worker)

describe(`the same rows through the Worker entry (${WORKER_ROWS.length} rows)`, () => {
  it('runs a real subset of the matrix: every route, and every status it expects', () => {
    // `/v1/<route>`, or the first segment outside /v1: `/l`, `/healthz`.
    const route = (row: BadInputCase) => {
      const [, first, second] = row.path.split('?')[0]!.split('/')
      return first === 'v1' ? `/v1/${second}` : `/${first}`
    }
    const routes = new Set(WORKER_ROWS.map(route))
    for (const name of ['sign', 'cookies', 'redirect', 'list', 'uploads', 'links']) {
      expect(routes, name).toContain(`/v1/${name}`)
    }
    for (const path of ['/l', '/healthz', '/openapi.json', '/admin']) {
      expect(routes, path).toContain(path)
    }
    expect(new Set(WORKER_ROWS.map((row) => row.status))).toEqual(
      new Set(BAD_INPUT_CASES.map((row) => row.status)),
    )
  })

  for (const row of WORKER_ROWS) {
    it(`${row.name} → ${row.status}`, async () => {
      const request = new Request(
        `http://waybill.test${row.path}`,
        requestInit(row, { valid: workerKey, photosOnly: workerKey }),
      )
      // The admin API is the admin Worker's entry (over the pool's bindings: its D1, and no admin
      // token); the data plane's Worker has none of it.
      const response = isAdmin(row)
        ? await adminWorker.fetch(request, workerBindings, createExecutionContext())
        : await exports.default.fetch(request)
      await expectProblem(row, response)
    })
  }
})

describe('body size limit', () => {
  it('stops reading a chunked body as soon as it passes the limit', async () => {
    let pulls = 0
    // Endless: if waybill read to the end, this test would never finish.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++
        controller.enqueue(new Uint8Array(MIB).fill(0x20))
      },
    })
    const response = await app.request(
      '/v1/sign',
      {
        method: 'POST',
        headers: { authorization: `Bearer ${ALL_KEY}`, 'content-type': 'application/json' },
        body,
      },
      env,
    )
    expect(response.status).toBe(413)
    expect((await problemOf(response)).errors?.[0]?.path).toBe('body')
    // 16 chunks fill the limit exactly; the 17th passes it. One more may be pulled ahead.
    expect(pulls).toBeGreaterThanOrEqual(MAX_BODY_BYTES / MIB + 1)
    expect(pulls).toBeLessThanOrEqual(MAX_BODY_BYTES / MIB + 2)
  })

  it('a declared Content-Length over the limit is refused without reading the body', async () => {
    let pulls = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++
        controller.enqueue(new TextEncoder().encode('{}'))
        controller.close()
      },
    })
    const response = await app.request(
      '/v1/cookies',
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ALL_KEY}`,
          'content-type': 'application/json',
          'content-length': String(MAX_BODY_BYTES + 1),
        },
        body,
      },
      env,
    )
    expect(response.status).toBe(413)
    expect(pulls).toBeLessThanOrEqual(1)
  })
})

describe('response overrides that are fine', () => {
  it('quotes and semicolons in contentDisposition are signed as sent', async () => {
    const value = 'attachment; filename="a \\"quoted\\" name.pdf"; x=\'y\''
    const response = await app.request(
      '/v1/sign',
      postJson(
        { origin: 'photos', items: [{ key: 'a.pdf', response: { contentDisposition: value } }] },
        ALL_KEY,
      ),
      env,
    )
    expect(response.status).toBe(200)
    const { urls } = await response.json<{ urls: { url: string }[] }>()
    const url = new URL(urls[0]!.url)
    expect(url.searchParams.get('response-content-disposition')).toBe(value)
    // Nothing that could end the query value or the URL survives unencoded.
    expect(url.search).not.toMatch(/["' ]/)
  })
})

// An unknown origin must answer exactly like a configured one the caller has no grant on, or the
// caller can list the config by probing names. The detail names the origin asked for; otherwise
// the two answers must be the same, whatever else the request gets wrong.
describe('unknown and ungranted origins answer alike', () => {
  async function answer(
    method: string,
    path: string,
    body: unknown,
    origin: string,
  ): Promise<{ status: number; problem: Problem }> {
    const init: RequestInit = {
      method,
      headers: { authorization: `Bearer ${PHOTOS_KEY}`, 'content-type': 'application/json' },
    }
    if (body !== undefined) init.body = JSON.stringify(body).replaceAll('ORIGIN', origin)
    const response = await app.request(path.replaceAll('ORIGIN', origin), init, env)
    const problem = await problemOf(response)
    return {
      status: response.status,
      problem: { ...problem, detail: problem.detail.replaceAll(origin, 'ORIGIN') },
    }
  }

  async function compare(method: string, path: string, body?: unknown, configured = 'docs') {
    const unknown = await answer(method, path, body, 'nowhere')
    expect(unknown.status).toBe(403)
    const ungranted = await answer(method, path, body, configured)
    expect(ungranted).toEqual(unknown)
  }

  it('POST /v1/sign with good keys', () =>
    compare('POST', '/v1/sign', { origin: 'ORIGIN', keys: ['a'] }))
  it('POST /v1/sign with PUT', () =>
    compare('POST', '/v1/sign', { origin: 'ORIGIN', method: 'PUT', keys: ['a'] }))
  it('GET /v1/redirect with a good key', () => compare('GET', '/v1/redirect/ORIGIN/a.jpg'))

  // Checks that depend on the origin's configuration run only after the grant check.
  it('POST /v1/sign with a key the safe policy refuses (403 like an unknown origin)', () =>
    compare('POST', '/v1/sign', { origin: 'ORIGIN', keys: ['a//b'] }))
  it('POST /v1/sign with a CloudFront-only field on an S3 origin (403 like an unknown origin)', () =>
    compare('POST', '/v1/sign', { origin: 'ORIGIN', keys: ['a'], policy: 'canned' }))
  it('GET /v1/redirect with a key the safe policy refuses (403 like an unknown origin)', () =>
    compare('GET', '/v1/redirect/ORIGIN/a//b'))
  it('POST /v1/cookies on an S3 origin (403 like an unknown origin)', () =>
    compare('POST', '/v1/cookies', { origin: 'ORIGIN' }))
  it('POST /v1/cookies on a CloudFront origin (403 naming origin)', () =>
    compare('POST', '/v1/cookies', { origin: 'ORIGIN', prefix: 'users/' }, 'cdn'))
})

describe('the redirect key comes from the path as sent', () => {
  // The origin segment is checked as sent: "ph%6Ftos" (an encoded "photos") is refused, so the
  // key is always what follows it.
  it('a percent-encoded origin name is refused or signs the key asked for', async () => {
    const response = await app.request(
      '/v1/redirect/ph%6Ftos/a.jpg',
      { headers: { authorization: `Bearer ${ALL_KEY}` } },
      env,
    )
    expect(response.status).toBeLessThan(500)
    if (response.status === 302) {
      expect(new URL(response.headers.get('location')!).pathname).toBe('/a.jpg')
    } else {
      expect(response.status).toBe(400)
    }
  })
})
