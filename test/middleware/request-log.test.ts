// One structured log line per request, and nothing secret in any log line: no token, API key,
// signature, signed URL or secret access key, whatever the outcome.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createApp } from '../../src/app'
import { parseConfig } from '../../src/config/load'
import { logIsolateStart } from '../../src/middleware/request-log'
import { makeKey, sign, FakeJwksServer, ISSUER, AUDIENCE, JWKS_URL } from '../fixtures/auth'
import { postJson } from '../helpers/requests'
import { ALL_KEY, NOW, PHOTOS_KEY, SECRET, testEnv } from '../helpers/routes'

let lines: string[] = []

beforeEach(() => {
  lines = []
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '))
    })
  }
})
afterEach(() => vi.restoreAllMocks())

describe('request log', () => {
  it('with WAYBILL_REQUEST_LOG=errors, logs only answers of 400 and above', async () => {
    const app = createApp({ clock: () => NOW })
    const env = await testEnv({ WAYBILL_REQUEST_LOG: 'errors' })
    const post = (body: unknown) => app.request('/v1/sign', postJson(body, ALL_KEY), env)
    expect((await post({ origin: 'photos', keys: ['a'] })).status).toBe(200)
    expect(lines).toHaveLength(0)
    expect((await post({ origin: 'photos', keys: [''] })).status).toBe(400)
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({ message: 'request', status: 400 })
    const bad = await app.request('/healthz', {}, await testEnv({ WAYBILL_REQUEST_LOG: 'some' }))
    expect(bad.status).toBe(503)
    expect(await bad.text()).toContain('WAYBILL_REQUEST_LOG')
  })

  it('says once, as the isolate starts, what its configuration came to', async () => {
    logIsolateStart(parseConfig(await testEnv()))
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      { level: 'info', message: 'configuration', outcome: 'ok' },
    ])
    lines = []
    logIsolateStart(parseConfig(await testEnv({ WAYBILL_REQUEST_LOG: 'errors' })))
    expect(lines).toEqual([])
    const secret = 'not-base64-but-a-secret-value'
    const broken = await testEnv({
      WAYBILL_REQUEST_LOG: 'some',
      WAYBILL_TOKEN_SECRETS: JSON.stringify([{ id: 'k', secret }]),
    })
    logIsolateStart(parseConfig(broken))
    expect(lines).toHaveLength(1)
    const line = JSON.parse(lines[0]!) as { level: string; errors: { path: string }[] }
    expect(line).toMatchObject({ level: 'error', message: 'configuration', outcome: 'invalid' })
    expect(line.errors.map((e) => e.path)).toEqual(
      expect.arrayContaining([
        'WAYBILL_REQUEST_LOG',
        expect.stringMatching(/^WAYBILL_TOKEN_SECRETS/),
      ]),
    )
    expect(lines[0]).not.toContain(secret)
  })

  it('writes one JSON line per request with who, what and how it went', async () => {
    const app = createApp({ clock: () => NOW })
    const env = await testEnv()
    const response = await app.request(
      '/v1/sign',
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ALL_KEY}`,
          'content-type': 'application/json',
          'cf-ray': 'ray-123',
        },
        body: JSON.stringify({ origin: 'photos', keys: ['a', 'b'] }),
      },
      env,
    )
    expect(response.headers.get('waybill-request-id')).toBe('ray-123')
    const requestLines = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.message === 'request')
    expect(requestLines).toHaveLength(1)
    expect(requestLines[0]).toMatchObject({
      requestId: 'ray-123',
      method: 'POST',
      route: '/v1/sign',
      principal: 'apiKey:all',
      origin: 'photos',
      action: 'read',
      items: 2,
      status: 200,
      outcome: 'ok',
    })
    expect(typeof requestLines[0]!.durationMs).toBe('number')
  })

  it('never logs a token, an API key, a signature, a signed URL or a secret', async () => {
    const key = await makeKey('RS256')
    const server = new FakeJwksServer()
    server.sets.set(JWKS_URL, { keys: [key.publicJwk] })
    const app = createApp({ clock: () => NOW, fetch: server.fetch })
    const env = await testEnv({
      WAYBILL_AUTH: {
        jwt: { issuer: ISSUER, audience: AUDIENCE, jwksUrl: JWKS_URL, cookie: 'wb' },
      },
      WAYBILL_GRANTS: JSON.stringify([
        { to: 'sub:alice', origin: 'photos', actions: ['read'] },
        { to: 'apiKey:all', origin: 'photos', actions: ['read'] },
      ]),
    })
    const good = await sign(key, {})
    const expired = await sign(key, {}, { iat: 1_700_000_000, exp: 1_700_000_600 })
    const secrets = [ALL_KEY, PHOTOS_KEY, good, expired, SECRET, 'wrong-api-key-value']
    const bodies: string[] = []
    const call = async (path: string, headers: Record<string, string>, body?: unknown) => {
      const response = await app.request(
        path,
        {
          method: body === undefined ? 'GET' : 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        },
        env,
      )
      bodies.push(await response.text())
      const location = response.headers.get('location')
      if (location !== null) bodies.push(location)
    }
    const sign1 = { origin: 'photos', keys: ['a.jpg'] }
    await call('/v1/sign', { authorization: `Bearer ${good}` }, sign1)
    await call('/v1/sign', { authorization: `Bearer ${ALL_KEY}` }, sign1)
    await call('/v1/sign', { authorization: `Bearer ${expired}` }, sign1)
    await call('/v1/sign', { authorization: 'Bearer wrong-api-key-value' }, sign1)
    await call('/v1/sign', { authorization: `Bearer ${PHOTOS_KEY}` }, sign1)
    await call('/v1/sign', { authorization: `Bearer ${good}` }, { origin: 'photos', keys: [''] })
    await call('/v1/redirect/photos/a.jpg', { cookie: `wb=${good}` })
    await call('/v1/redirect/photos/a.jpg', { cookie: `wb=${expired}` })
    server.down = true
    await call(
      '/v1/sign',
      { authorization: `Bearer ${await sign({ ...key, kid: 'other' }, {})}` },
      sign1,
    )

    // The signed URLs and their signatures were handed out; none may reach a log line.
    const signatures = bodies.join('\n').match(/X-Amz-Signature=[0-9a-f]{64}/g) ?? []
    expect(signatures.length).toBeGreaterThanOrEqual(3)
    expect(lines.length).toBeGreaterThanOrEqual(9)
    const logged = lines.join('\n')
    for (const secret of [
      ...secrets,
      ...signatures.map((s) => s.slice('X-Amz-Signature='.length)),
    ]) {
      expect(logged).not.toContain(secret)
    }
    expect(logged).not.toContain('X-Amz-Credential')
  })
})
