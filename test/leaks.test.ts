// No secret leaves waybill except where it must: a representative run of successful and failing
// requests, with every console method captured, and then no log line and no error response may
// hold an S3 secret or session token, an API key, a JWT, the HS256 secret, private key material or
// a signature waybill handed out.

import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { afterEach, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest'
import { createApp } from '../src/app'
import { CONTROL_MAX_AGE_MS, MAX_BODY_BYTES } from '../src/limits'
import type { Env } from '../src/env'
import {
  AUDIENCE,
  FakeJwksServer,
  HS256_SECRET,
  ISSUER,
  JWKS_URL,
  makeKey,
  sign,
  type TestKey,
} from './fixtures/auth'
import { sha256Hex } from './helpers/hex'
import { postJson } from './helpers/requests'
import { e2eOrigin, workerEnv } from './helpers/worker-env'
import { ALL_KEY, NOW, PHOTOS_KEY, problemOf, S3_AND_CDN_ORIGINS, testEnv } from './helpers/routes'

const testKeys = inject('testKeys')

const S3_SECRET = 'leaksTestSecret/Never+Logged/0123456789abcdefABCDEF'
const SESSION_TOKEN = 'IQoJb3JpZ2luX2VjELeaksTestSessionToken/0123+456789abcdefXYZ=='
const WRONG_API_KEY = 'wb_someone_elses_key_9876543210'
const OTHER_HS256_SECRET = 'not-the-configured-hs256-secret-0123456789'
const LINK_SECRET = 'leaksTestLinkSecret/Never+Logged/0123456789'
// Fresh each run; the receiver (test/global-setup.ts) has its own, so deliveries are refused (401).
const WEBHOOK_SECRET_BASE64 = btoa(
  String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))),
)
const WEBHOOK_SECRET = `whsec_${WEBHOOK_SECRET_BASE64}`
const OLD_LINK_SECRET = 'leaksTestOldLinkSecret/Never+Logged/98765'
const NOW_S = NOW.getTime() / 1000

let lines: string[] = []

beforeEach(() => {
  lines = []
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      lines.push(
        args
          .map((a) =>
            typeof a === 'string' ? a : a instanceof Error ? String(a.stack) : JSON.stringify(a),
          )
          .join(' '),
      )
    })
  }
})
afterEach(() => vi.restoreAllMocks())

/** The base64 body of a PEM in 32-character pieces: any one of them in a text is key material. */
function pemPieces(pem: string): string[] {
  const base64 = pem
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('-----'))
    .join('')
  const pieces: string[] = []
  for (let i = 0; i + 32 <= base64.length; i += 32) pieces.push(base64.slice(i, i + 32))
  return pieces
}

/** A secret as it may appear: raw, percent-encoded, JSON-escaped. */
function forms(secret: string): string[] {
  return [...new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])]
}

async function leaksEnv(overrides: Partial<Env> = {}): Promise<Env> {
  return testEnv({
    WAYBILL_ORIGINS: S3_AND_CDN_ORIGINS,
    MAIN_SECRET_ACCESS_KEY: S3_SECRET,
    MAIN_SESSION_TOKEN: SESSION_TOKEN,
    // As a secret often arrives: one line with literal \n.
    CDN_PRIVATE_KEY: testKeys.rsaPkcs1.replace(/\n/g, '\\n'),
    WAYBILL_AUTH: JSON.stringify({
      jwt: { issuer: ISSUER, audience: AUDIENCE, jwksUrl: JWKS_URL, hs256: true, cookie: 'wb' },
    }),
    WAYBILL_JWT_HS256_SECRET: HS256_SECRET,
    WAYBILL_TOKEN_SECRETS: JSON.stringify([
      { id: 'new', secret: LINK_SECRET },
      { id: 'old', secret: OLD_LINK_SECRET },
    ]),
    WAYBILL_GRANTS: JSON.stringify([
      { to: 'apiKey:all', origin: 'photos', actions: ['read', 'write', 'delete'], overwrite: true },
      { to: 'apiKey:all', origin: 'docs', actions: ['read'] },
      { to: 'apiKey:all', origin: 'cdn', actions: ['read'], wildcard: true },
      { to: 'apiKey:photos-only', origin: 'photos', actions: ['read'] },
      { to: 'sub:alice', origin: 'photos', prefix: 'users/{sub}/', actions: ['read', 'write'] },
    ]),
    ...overrides,
  })
}

function headerText(headers: Headers): string {
  const text: string[] = []
  headers.forEach((value, name) => text.push(`${name}: ${value}`))
  return text.join('\n')
}

interface Answer {
  label: string
  status: number
  headers: string
  body: string
}

let rsKey: TestKey
beforeAll(async () => {
  rsKey = await makeKey('RS256')
})

describe('secrets never reach a log line or an error response', () => {
  it('across successes and every kind of error', async () => {
    const server = new FakeJwksServer()
    server.sets.set(JWKS_URL, { keys: [rsKey.publicJwk] })
    const app = createApp({ clock: () => NOW, fetch: server.fetch })
    const env = await leaksEnv()
    const hs = { alg: 'HS256' as const, secret: new TextEncoder().encode(HS256_SECRET) }
    const hsJwt = await sign(hs, {})
    const rsJwt = await sign(rsKey, {})
    const expiredJwt = await sign(hs, {}, { iat: NOW_S - 7200, exp: NOW_S - 3600 })
    const forgedJwt = await sign(
      { alg: 'HS256', secret: new TextEncoder().encode(OTHER_HS256_SECRET) },
      {},
    )
    const tamperedJwt = `${rsJwt.slice(0, -4)}${rsJwt.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`
    const unknownKidJwt = await sign({ ...rsKey, kid: 'not-in-the-set' }, {})

    const answers: Answer[] = []
    const call = async (
      label: string,
      path: string,
      init: { method?: string; headers?: Record<string, string>; body?: BodyInit } = {},
      callEnv: Env = env,
      callApp = app,
    ) => {
      const headers = { ...init.headers }
      if (init.body !== undefined) headers['content-type'] ??= 'application/json'
      const response = await callApp.request(
        path,
        {
          method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
          headers,
          body: init.body,
        },
        callEnv,
      )
      answers.push({
        label,
        status: response.status,
        headers: headerText(response.headers),
        body: await response.text(),
      })
    }
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
    const json = (value: unknown) => JSON.stringify(value)

    // Successes: S3 (with a session token), CloudFront URLs and cookies, redirects, NDJSON, JWTs.
    await call('sign s3', '/v1/sign', {
      headers: bearer(ALL_KEY),
      body: json({ origin: 'photos', keys: ['a.jpg', 'b c.jpg'] }),
    })
    await call('sign s3 PUT', '/v1/sign', {
      headers: bearer(ALL_KEY),
      body: json({ origin: 'photos', method: 'PUT', items: [{ key: 'up.bin' }] }),
    })
    await call('sign s3 ndjson', '/v1/sign', {
      headers: { ...bearer(ALL_KEY), accept: 'application/x-ndjson' },
      body: json({ origin: 'photos', keys: ['n1', 'n2'] }),
    })
    await call('sign cloudfront canned', '/v1/sign', {
      headers: bearer(ALL_KEY),
      body: json({ origin: 'cdn', keys: ['x.jpg', 'y.jpg'] }),
    })
    await call('sign cloudfront wildcard', '/v1/sign', {
      headers: bearer(ALL_KEY),
      body: json({ origin: 'cdn', keys: ['w/1.jpg', 'w/2.jpg'], policy: 'wildcard' }),
    })
    await call('cookies', '/v1/cookies', {
      headers: bearer(ALL_KEY),
      body: json({ origin: 'cdn', prefix: 'p/' }),
    })
    await call('redirect s3', '/v1/redirect/photos/r.jpg', { headers: bearer(ALL_KEY) })
    await call('redirect cloudfront', '/v1/redirect/cdn/r.jpg', { headers: bearer(ALL_KEY) })
    await call('sign with HS256 JWT', '/v1/sign', {
      headers: bearer(hsJwt),
      body: json({ origin: 'photos', keys: ['users/alice/h.jpg'] }),
    })
    await call('sign with RS256 JWT', '/v1/sign', {
      headers: bearer(rsJwt),
      body: json({ origin: 'photos', keys: ['users/alice/r.jpg'] }),
    })
    await call('redirect with JWT cookie', '/v1/redirect/photos/users/alice/c.jpg', {
      headers: { cookie: `wb=${hsJwt}` },
    })
    await call('links s3', '/v1/links', {
      headers: bearer(ALL_KEY),
      body: json({
        origin: 'photos',
        items: [{ key: 'l1.jpg', download: true }, { key: 'l2.jpg' }],
      }),
    })
    await call('links cloudfront', '/v1/links', {
      headers: bearer(ALL_KEY),
      body: json({ origin: 'cdn', keys: ['l3.jpg'] }),
    })
    const issued = answers
      .filter((a) => a.label.startsWith('links '))
      .flatMap((a) => (JSON.parse(a.body) as { links: { url: string }[] }).links)
      .map(({ url }) => new URL(url).pathname)
    expect(issued).toHaveLength(3)
    for (const [i, path] of issued.entries()) await call(`follow link ${i}`, path)
    const successes = answers.filter((a) => a.status < 400)
    expect(successes.map((a) => `${a.label} ${a.status}`)).toEqual([
      'sign s3 200',
      'sign s3 PUT 200',
      'sign s3 ndjson 200',
      'sign cloudfront canned 200',
      'sign cloudfront wildcard 200',
      'cookies 200',
      'redirect s3 302',
      'redirect cloudfront 302',
      'sign with HS256 JWT 200',
      'sign with RS256 JWT 200',
      'redirect with JWT cookie 302',
      'links s3 200',
      'links cloudfront 200',
      'follow link 0 302',
      'follow link 1 302',
      'follow link 2 302',
    ])

    // 401 of every kind, with the credential in the request.
    await call('401 none', '/v1/sign', { body: json({ origin: 'photos', keys: ['a'] }) })
    await call('401 unknown API key', '/v1/sign', {
      headers: bearer(WRONG_API_KEY),
      body: json({ origin: 'photos', keys: ['a'] }),
    })
    await call('401 API key as Basic', '/v1/sign', {
      headers: { authorization: `Basic ${btoa(`x:${ALL_KEY}`)}` },
      body: json({ origin: 'photos', keys: ['a'] }),
    })
    await call('401 API key in a malformed header', '/v1/sign', {
      headers: { authorization: `Bearer ${ALL_KEY} ${ALL_KEY}` },
      body: json({ origin: 'photos', keys: ['a'] }),
    })
    await call('401 API key padded over the size cap', '/v1/sign', {
      headers: bearer(`${ALL_KEY}${'x'.repeat(9000)}`),
      body: json({ origin: 'photos', keys: ['a'] }),
    })
    await call('401 expired JWT', '/v1/sign', {
      headers: bearer(expiredJwt),
      body: json({ origin: 'photos', keys: ['users/alice/a'] }),
    })
    await call('401 JWT with another HS256 secret', '/v1/sign', {
      headers: bearer(forgedJwt),
      body: json({ origin: 'photos', keys: ['users/alice/a'] }),
    })
    await call('401 tampered RS256 JWT', '/v1/sign', {
      headers: bearer(tamperedJwt),
      body: json({ origin: 'photos', keys: ['users/alice/a'] }),
    })
    await call('401 expired JWT cookie', '/v1/redirect/photos/users/alice/a', {
      headers: { cookie: `wb=${expiredJwt}` },
    })
    // 403, 400, 413, 415, 405, 404.
    await call('403 ungranted origin', '/v1/sign', {
      headers: bearer(PHOTOS_KEY),
      body: json({ origin: 'docs', keys: ['a'] }),
    })
    await call('403 key outside the JWT grant', '/v1/sign', {
      headers: bearer(hsJwt),
      body: json({ origin: 'photos', keys: ['users/bob/a'] }),
    })
    await call('403 write without a grant', '/v1/sign', {
      headers: bearer(PHOTOS_KEY),
      body: json({ origin: 'photos', method: 'PUT', keys: ['a'] }),
    })
    await call('400 bad key', '/v1/sign', {
      headers: bearer(ALL_KEY),
      body: json({ origin: 'photos', keys: ['', 'a//b'] }),
    })
    await call('400 unknown field', '/v1/sign', {
      headers: bearer(ALL_KEY),
      body: json({ origin: 'photos', keys: ['a'], secret: true }),
    })
    await call('400 malformed JSON', '/v1/sign', { headers: bearer(ALL_KEY), body: '{"origin":' })
    await call('400 bad override', '/v1/sign', {
      headers: bearer(ALL_KEY),
      body: json({ origin: 'photos', items: [{ key: 'a', response: { contentType: 'a\r\nb' } }] }),
    })
    await call('403 cookies on S3', '/v1/cookies', {
      headers: bearer(ALL_KEY),
      body: json({ origin: 'photos' }),
    })
    await call('400 redirect expiresIn', '/v1/redirect/photos/a?expiresIn=0', {
      headers: bearer(ALL_KEY),
    })
    await call('413', '/v1/sign', {
      headers: { ...bearer(ALL_KEY), 'content-length': String(MAX_BODY_BYTES + 1) },
      body: '{}',
    })
    await call('415', '/v1/cookies', {
      headers: { ...bearer(ALL_KEY), 'content-type': 'text/plain' },
      body: '{}',
    })
    await call('405', '/v1/sign', { method: 'GET', headers: bearer(ALL_KEY) })
    await call('404', '/v1/nothing', { headers: bearer(ALL_KEY) })
    const token = issued[0]!.slice('/l/'.length)
    const [kid, payload, tag] = token.split('.') as [string, string, string]
    const flipped = `${tag.slice(0, -2)}${tag.endsWith('AA') ? 'BB' : 'AA'}`
    await call('403 tampered link', `/l/${kid}.${payload}.${flipped}`)
    await call('403 link under another secret id', `/l/old.${payload}.${tag}`)
    await call('404 malformed link', `/l/${token}${'x'.repeat(3000)}`)
    await call('401 JWT with an unknown kid', '/v1/sign', {
      headers: bearer(unknownKidJwt),
      body: json({ origin: 'photos', keys: ['users/alice/a'] }),
    })
    // 503: the JWKS cannot be fetched (a fresh app, so nothing is cached).
    const down = new FakeJwksServer()
    down.down = true
    await call(
      '503 JWKS down',
      '/v1/sign',
      { headers: bearer(rsJwt), body: json({ origin: 'photos', keys: ['users/alice/a'] }) },
      env,
      createApp({ clock: () => NOW, fetch: down.fetch }),
    )
    // 503: bad configs that hold the secrets themselves. A fresh app per env: the config is cached.
    const badConfigs: Array<[string, Partial<Env>]> = [
      ['session token with a space', { MAIN_SESSION_TOKEN: `${SESSION_TOKEN} x` }],
      ['secret with a newline', { MAIN_SECRET_ACCESS_KEY: `${S3_SECRET}\n` }],
      ['truncated PEM', { CDN_PRIVATE_KEY: testKeys.rsaPkcs1.slice(0, 900) }],
      [
        'PEM with a bad line',
        { CDN_PRIVATE_KEY: testKeys.rsaPkcs1.replace(/\n(.{10})/, '\n!!$1') },
      ],
      [
        'raw API key where its hash belongs',
        { WAYBILL_API_KEYS: JSON.stringify([{ id: 'all', sha256: ALL_KEY }]) },
      ],
      ['raw API key in broken JSON', { WAYBILL_API_KEYS: `[{"id":"all","sha256":"${ALL_KEY}"` }],
      ['HS256 secret too short', { WAYBILL_JWT_HS256_SECRET: HS256_SECRET.slice(0, 20) }],
      [
        'link secret too short',
        {
          WAYBILL_TOKEN_SECRETS: JSON.stringify([{ id: 'new', secret: LINK_SECRET.slice(0, 20) }]),
        },
      ],
      [
        'link secrets in broken JSON',
        { WAYBILL_TOKEN_SECRETS: `[{"id":"new","secret":"${LINK_SECRET}"` },
      ],
      [
        'webhook secret cut short',
        {
          WAYBILL_WEBHOOK_URL: 'https://hooks.example/waybill',
          WAYBILL_WEBHOOK_SECRET: WEBHOOK_SECRET.slice(0, 30),
        },
      ],
      [
        'webhook secret without its prefix',
        {
          WAYBILL_WEBHOOK_URL: 'https://hooks.example/waybill',
          WAYBILL_WEBHOOK_SECRET: WEBHOOK_SECRET_BASE64,
        },
      ],
      ['webhook secret without a URL', { WAYBILL_WEBHOOK_SECRET: WEBHOOK_SECRET }],
    ]
    for (const [name, overrides] of badConfigs) {
      await call(
        `503 ${name}`,
        '/v1/sign',
        { headers: bearer(ALL_KEY), body: json({ origin: 'photos', keys: ['a'] }) },
        await leaksEnv(overrides),
        createApp({ clock: () => NOW }),
      )
    }

    // Each failing call answered the status its label names.
    const labelled = answers.filter((a) => /^\d{3} /.test(a.label))
    expect(labelled.map((a) => `${a.label.slice(0, 3)} ${a.label}`)).toEqual(
      labelled.map((a) => `${a.status} ${a.label}`),
    )
    const statuses = answers.map((a) => a.status)
    for (const status of [401, 403, 400, 413, 415, 405, 404, 503])
      expect(statuses).toContain(status)
    expect(answers.filter((a) => a.status === 503)).toHaveLength(badConfigs.length + 1)
    expect(
      statuses.some((s) => s >= 500 && s !== 503),
      JSON.stringify(answers.map((a) => [a.label, a.status])),
    ).toBe(false)

    // What was handed out: signatures in URLs, Location headers and cookies.
    const handedOut = successes.map((a) => `${a.headers}\n${a.body}`).join('\n')
    const amzSignatures = [...handedOut.matchAll(/X-Amz-Signature=([0-9a-f]{64})/g)].map(
      (m) => m[1]!,
    )
    const cfSignatures = [
      ...handedOut.matchAll(/[?&]Signature=([A-Za-z0-9~_-]{40,})/g),
      ...handedOut.matchAll(/CloudFront-Signature["=:]+([A-Za-z0-9~_-]{40,})/g),
    ].map((m) => m[1]!)
    expect(amzSignatures.length).toBeGreaterThanOrEqual(8)
    expect(cfSignatures.length).toBeGreaterThanOrEqual(4)
    // The session token is in S3 URLs by design (X-Amz-Security-Token); proves the run used it.
    expect(handedOut).toContain(encodeURIComponent(SESSION_TOKEN))

    const secrets: Array<[string, string]> = [
      ['S3 secret', S3_SECRET],
      ['session token', SESSION_TOKEN],
      ['API key', ALL_KEY],
      ['photos API key', PHOTOS_KEY],
      ['wrong API key', WRONG_API_KEY],
      ['HS256 secret', HS256_SECRET],
      ['other HS256 secret', OTHER_HS256_SECRET],
      ['link secret', LINK_SECRET],
      ['old link secret', OLD_LINK_SECRET],
      ['link secret prefix', LINK_SECRET.slice(0, 20)],
      ['webhook secret', WEBHOOK_SECRET],
      ['webhook secret key', WEBHOOK_SECRET_BASE64],
      ['webhook secret start', WEBHOOK_SECRET.slice(0, 30)],
      ...issued.map((path, i): [string, string] => [`link token ${i}`, path.slice('/l/'.length)]),
      ['HS256 JWT', hsJwt],
      ['RS256 JWT', rsJwt],
      ['expired JWT', expiredJwt],
      ['forged JWT', forgedJwt],
      ['tampered JWT', tamperedJwt],
      ['unknown-kid JWT', unknownKidJwt],
      ['HS256 JWT signature', hsJwt.split('.')[2]!],
      ['RS256 JWT signature', rsJwt.split('.')[2]!],
      ...pemPieces(testKeys.rsaPkcs1).map((p, i): [string, string] => [`PEM piece ${i}`, p]),
      ...amzSignatures.map((s, i): [string, string] => [`X-Amz-Signature ${i}`, s]),
      ...cfSignatures.map((s, i): [string, string] => [`CloudFront signature ${i}`, s]),
    ]

    // The capture works: one request line per request, each parsed.
    const requestLines = lines.filter((line) => line.includes('"message":"request"'))
    expect(requestLines).toHaveLength(answers.length)
    for (const line of requestLines) expect(JSON.parse(line)).toHaveProperty('status')
    expect(lines.some((line) => line.includes('JWKS fetch failed'))).toBe(true)

    const logged = lines.join('\n')
    const errorAnswers = answers.filter((a) => a.status >= 400)
    for (const [name, secret] of secrets) {
      for (const form of forms(secret)) {
        expect(logged.includes(form), `${name} in a log line`).toBe(false)
        for (const answer of errorAnswers) {
          expect(answer.body.includes(form), `${name} in the body of ${answer.label}`).toBe(false)
          expect(answer.headers.includes(form), `${name} in the headers of ${answer.label}`).toBe(
            false,
          )
        }
      }
    }
    // Successful answers carry signatures and the session token by design, never the rest.
    for (const [name, secret] of secrets.filter(([n]) =>
      /S3 secret|API key|HS256 secret|JWT|PEM|link secret|webhook secret/.test(n),
    )) {
      for (const form of forms(secret)) {
        for (const answer of successes) {
          expect(
            `${answer.headers}${answer.body}`.includes(form),
            `${name} in ${answer.label}`,
          ).toBe(false)
        }
      }
    }
    expect(logged).not.toMatch(/X-Amz-Credential|X-Amz-Signature|Signature=|PRIVATE KEY|Bearer /)
  })
})

describe('webhook deliveries', () => {
  // A real upload checked complete, announced to the receiver the global setup runs. The receiver
  // has its own secret, so it refuses this one's signatures (401): the failure is logged.
  it('log a refused delivery without the webhook secret or a signature', async () => {
    const receiver = inject('webhook')
    const env = await leaksEnv({
      WAYBILL_ORIGINS: JSON.stringify({ e2e: { ...e2eOrigin(), keys: 'safe' } }),
      E2E_ACCESS_KEY_ID: workerEnv.E2E_ACCESS_KEY_ID,
      E2E_SECRET_ACCESS_KEY: workerEnv.E2E_SECRET_ACCESS_KEY,
      WAYBILL_GRANTS: JSON.stringify([
        { to: 'apiKey:all', origin: 'e2e', prefix: 'leaks/', actions: ['write'] },
      ]),
      WAYBILL_WEBHOOK_URL: `${receiver.baseUrl}/hooks/leaks`,
      WAYBILL_WEBHOOK_SECRET: WEBHOOK_SECRET,
    })
    const app = createApp()
    const ctx = createExecutionContext()
    const issued = await app.request(
      '/v1/uploads',
      postJson(
        {
          origin: 'e2e',
          key: `leaks/${crypto.randomUUID()}.txt`,
          contentType: 'text/plain',
          contentLength: 2,
        },
        ALL_KEY,
      ),
      env,
    )
    expect(issued.status, await issued.clone().text()).toBe(200)
    const upload = await issued.json<{
      key: string
      url: string
      headers: Record<string, string>
      receipt: string
    }>()
    const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: 'ok' })
    expect(put.status).toBe(200)
    const checked = await app.request(
      '/v1/uploads/complete',
      postJson(
        { origin: 'e2e', key: upload.key, receipt: upload.receipt, etag: put.headers.get('etag') },
        ALL_KEY,
      ),
      env,
      ctx,
    )
    const answer = await checked.text()
    expect(checked.status, answer).toBe(200)
    await waitOnExecutionContext(ctx)

    const failure = lines.find((line) => line.includes('"message":"upload notification failed"'))
    expect(failure).toBeDefined()
    expect(JSON.parse(failure!)).toMatchObject({ target: 'webhook', status: 401 })
    const logged = lines.join('\n')
    for (const secret of [WEBHOOK_SECRET, WEBHOOK_SECRET_BASE64]) {
      for (const form of forms(secret)) {
        expect(logged).not.toContain(form)
        expect(answer).not.toContain(form)
      }
    }
    expect(logged).not.toMatch(/v1,[A-Za-z0-9+/=]{20,}|webhook-signature/i)
  })
})

describe('unexpected errors', () => {
  // No realistic path found that puts a secret into an unexpected error's message: every parse of a
  // secret (config JSON, PEM, Web Crypto import, JWT verification) is caught and mapped to a fixed
  // message. So the failure is injected: a rate-limiter binding whose error quotes a secret, as a
  // platform or library error quoting its input would.
  async function failingCall(): Promise<Response> {
    const limiter = {
      limit: () => Promise.reject(new Error(`rate limiter unavailable (request had ${S3_SECRET})`)),
    }
    const env = await leaksEnv({ WAYBILL_RATE_LIMITER: limiter as unknown as RateLimit })
    return createApp({ clock: () => NOW }).request(
      '/v1/sign',
      postJson({ origin: 'photos', keys: ['a'] }, ALL_KEY),
      env,
    )
  }

  it('answer a plain 500 that says nothing of the cause, and are logged', async () => {
    const response = await failingCall()
    expect(response.status).toBe(500)
    const text = await response.clone().text()
    expect(text).not.toContain(S3_SECRET)
    expect(text).not.toContain('rate limiter')
    expect((await problemOf(response)).type).toBe('urn:waybill:problem:internal')
    const unhandled = lines.filter((line) => line.includes('"message":"unhandled error"'))
    expect(unhandled).toHaveLength(1)
    expect(
      lines.some((line) => line.includes('"message":"request"') && line.includes('"status":500')),
    ).toBe(true)
  })

  // app.onError logs the error's name and stack frames, never its message: a library's message may
  // quote what it was given.
  it('never log a secret an unexpected error quotes', async () => {
    const response = await failingCall()
    expect(response.status).toBe(500)
    expect(lines.join('\n')).not.toContain(S3_SECRET)
  })
})

describe('the control plane', () => {
  // Keys made through the admin API are shown once, in the answer that made them (or rotated
  // them): never in a log line, an error, a list, and their hashes nowhere at all. The admin token
  // and its hash appear nowhere either.
  it('never shows an admin token, a stored key or a hash of either', async () => {
    const { ADMIN_TOKEN, admin, adminEnvOf, appWithClock, send, withControl } =
      await import('./helpers/control-plane')
    const { app, adminApp, clock } = appWithClock(NOW)
    const env = await withControl(await leaksEnv())
    const answers: Answer[] = []
    const keep = async (label: string, response: Response) => {
      answers.push({
        label,
        status: response.status,
        headers: headerText(response.headers),
        body: await response.text(),
      })
      return answers.at(-1)!
    }

    const created = await keep(
      'create key',
      await admin(adminApp, env, 'POST', '/keys', {
        label: 'leaks',
        grants: [{ origin: 'photos', actions: ['read'] }],
      }),
    )
    expect(created.status).toBe(201)
    const { id, key } = JSON.parse(created.body) as { id: string; key: string }
    const rotated = await keep(
      'rotate key',
      await admin(adminApp, env, 'POST', `/keys/${id}/rotate`, { overlapS: 0 }),
    )
    const { key: newKey } = JSON.parse(rotated.body) as { key: string }
    await keep('list keys', await admin(adminApp, env, 'GET', '/keys?limit=1000'))
    await keep('get key', await admin(adminApp, env, 'GET', `/keys/${id}`))
    const sign = (bearer: string) =>
      send(app, env, 'POST', '/v1/sign', { bearer, body: { origin: 'photos', keys: ['a.jpg'] } })
    await keep('sign with the new key', await sign(newKey))
    await keep('401 the rotated-out key', await sign(key))
    await keep(
      '401 a caller key on the admin API',
      await send(adminApp, await adminEnvOf(env), 'GET', '/admin/v1/keys', { bearer: newKey }),
    )
    await keep(
      '401 the admin token padded',
      await send(adminApp, await adminEnvOf(env), 'GET', '/admin/v1/keys', {
        bearer: `${ADMIN_TOKEN}x`,
      }),
    )
    await keep(
      '401 the admin token on the signing API',
      await send(app, env, 'POST', '/v1/sign', {
        bearer: ADMIN_TOKEN,
        body: { origin: 'photos', keys: ['a.jpg'] },
      }),
    )
    await keep(
      '400 a grant that does not check',
      await admin(adminApp, env, 'POST', '/grants', {
        to: `apiKey:${id}`,
        origin: 'x',
        actions: [],
      }),
    )
    await keep(
      'revoke the key',
      await admin(adminApp, env, 'POST', '/revocations', { kind: 'key', key: id }),
    )
    // The data plane reads the change within the control plane's bound.
    clock.advance(CONTROL_MAX_AGE_MS)
    await keep('401 the revoked key', await sign(newKey))
    await keep('usage', await admin(adminApp, env, 'GET', `/usage?principal=apiKey:${id}`))
    expect(answers.map((a) => `${a.label} ${a.status}`)).toEqual([
      'create key 201',
      'rotate key 200',
      'list keys 200',
      'get key 200',
      'sign with the new key 200',
      '401 the rotated-out key 401',
      '401 a caller key on the admin API 401',
      '401 the admin token padded 401',
      '401 the admin token on the signing API 401',
      '400 a grant that does not check 400',
      'revoke the key 201',
      '401 the revoked key 401',
      'usage 200',
    ])

    // The capture works: a request line per request.
    expect(lines.filter((line) => line.includes('"message":"request"'))).toHaveLength(
      answers.length,
    )
    const logged = lines.join('\n')
    const hashes: Array<[string, string]> = [
      ['admin token hash', await sha256Hex(ADMIN_TOKEN)],
      ['key hash', await sha256Hex(key)],
      ['rotated key hash', await sha256Hex(newKey)],
    ]
    for (const [name, secret] of [['admin token', ADMIN_TOKEN], ...hashes]) {
      for (const form of forms(secret!)) {
        expect(logged.includes(form), `${name} in a log line`).toBe(false)
        for (const answer of answers) {
          expect(
            `${answer.headers}\n${answer.body}`.includes(form),
            `${name} in ${answer.label}`,
          ).toBe(false)
        }
      }
    }
    // The keys: in the answer that made each, nowhere else.
    for (const [name, secret, shownIn] of [
      ['key', key, 'create key'],
      ['rotated key', newKey, 'rotate key'],
    ] as const) {
      for (const form of forms(secret)) {
        expect(logged.includes(form), `${name} in a log line`).toBe(false)
        for (const answer of answers.filter((a) => a.label !== shownIn)) {
          expect(
            `${answer.headers}\n${answer.body}`.includes(form),
            `${name} in ${answer.label}`,
          ).toBe(false)
        }
      }
    }
  })
})
