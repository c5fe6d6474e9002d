// Authentication and grants through the HTTP API: every kind of credential, each grant dimension,
// and the attack matrix. JWKS are served by a fake fetch; the clock is fixed.

import { base64url, exportSPKI } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { PHOTOS_ORIGIN, problemOf } from '../helpers/routes'
import { apiKeysBinding } from '../helpers/api-keys'
import {
  ACCESS_AUD,
  ACCESS_CERTS,
  ACCESS_TEAM,
  ALGS,
  AUDIENCE,
  FakeJwksServer,
  HS256_SECRET,
  ISSUER,
  JWKS_URL,
  makeKey,
  sign,
  type TestKey,
} from '../fixtures/auth'
import { TEST_TOKEN_SECRETS } from '../fixtures/token-secrets'

const NOW = new Date('2026-11-23T10:00:00Z')
const NOW_S = NOW.getTime() / 1000
const API_KEY = 'wb_test_web_key_0123456789'
const keys: Partial<Record<string, TestKey>> = {}
let accessKey: TestKey

const GRANTS = [
  {
    to: 'sub:alice',
    origin: 'photos',
    prefix: 'users/{sub}/',
    actions: ['read', 'write'],
    maxExpiresIn: 3600,
    maxBatch: 5,
    // A bare PUT URL from /v1/sign cannot refuse to replace an object.
    overwrite: true,
  },
  { to: '*', origin: 'photos', prefix: 'mine/{sub}/', actions: ['read'], maxExpiresIn: 300 },
  { to: 'sub:al', origin: 'photos', prefix: 'users/al', actions: ['read'] },
  { to: 'role:admin', origin: 'photos', actions: ['read', 'delete'] },
  { to: 'email:ops@example.com', origin: 'photos', prefix: 'ops/', actions: ['read'] },
  { to: 'apiKey:web', origin: 'photos', prefix: 'public/', actions: ['read'] },
]

async function makeEnv(auth: unknown, overrides: Partial<Env> = {}): Promise<Env> {
  return {
    WAYBILL_TOKEN_SECRETS: TEST_TOKEN_SECRETS,
    WAYBILL_ORIGINS: {
      photos: PHOTOS_ORIGIN,
      docs: { type: 's3', bucket: 'docs', region: 'eu-west-1', credentials: 'MAIN' },
    },
    MAIN_ACCESS_KEY_ID: 'AKIDAUTHTEST',
    MAIN_SECRET_ACCESS_KEY: 'auth-test-secret',
    WAYBILL_AUTH: JSON.stringify(auth),
    WAYBILL_JWT_HS256_SECRET: HS256_SECRET,
    WAYBILL_API_KEYS: await apiKeysBinding([{ id: 'web', key: API_KEY }]),
    WAYBILL_GRANTS: JSON.stringify(GRANTS),
    ...overrides,
  }
}

const REMOTE = {
  jwt: { issuer: ISSUER, audience: AUDIENCE, jwksUrl: JWKS_URL, cookie: 'wb_token' },
}

function setup(auth: unknown = REMOTE, overrides: Partial<Env> = {}) {
  const server = new FakeJwksServer()
  server.sets.set(JWKS_URL, { keys: ALGS.map((alg) => keys[alg]!.publicJwk) })
  server.sets.set(ACCESS_CERTS, { keys: [accessKey.publicJwk] })
  let now = NOW
  const app = createApp({ clock: () => now, fetch: server.fetch })
  const envPromise = makeEnv(auth, overrides)
  const call = async (
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
  ) => {
    const headers: Record<string, string> = { ...init.headers }
    let body: string | undefined
    if (init.body !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(init.body)
    }
    return app.request(path, { method: init.method ?? 'GET', headers, body }, await envPromise)
  }
  const signKeys = (token: string, body: Record<string, unknown>) =>
    call('/v1/sign', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: { origin: 'photos', ...body },
    })
  return { server, call, signKeys, advance: (ms: number) => (now = new Date(now.getTime() + ms)) }
}

beforeAll(async () => {
  for (const alg of ALGS) keys[alg] = await makeKey(alg)
  accessKey = await makeKey('RS256', 'access-key')
})

async function expectStatus(response: Response, status: number, type?: string) {
  expect(response.status, await response.clone().text()).toBe(status)
  const problem = await problemOf(response)
  if (type !== undefined) expect(problem.type).toBe(`urn:waybill:problem:${type}`)
  return problem
}

describe('valid credentials of each kind', () => {
  for (const alg of ALGS) {
    it(`a ${alg} JWT verified against a remote JWKS`, async () => {
      const { signKeys } = setup()
      const response = await signKeys(await sign(keys[alg]!, {}), { keys: ['users/alice/a.jpg'] })
      expect(response.status).toBe(200)
    })
  }

  it('a JWT verified against a static JWKS in config (no fetch at all)', async () => {
    const { signKeys, server } = setup({
      jwt: { issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [keys.ES256!.publicJwk] } },
    })
    const response = await signKeys(await sign(keys.ES256!, {}), { keys: ['users/alice/a.jpg'] })
    expect(response.status).toBe(200)
    expect(server.requests).toBe(0)
  })

  it('an HS256 JWT with the shared secret', async () => {
    const { signKeys } = setup({ jwt: { issuer: ISSUER, audience: AUDIENCE, hs256: true } })
    const token = await sign({ alg: 'HS256', secret: new TextEncoder().encode(HS256_SECRET) }, {})
    expect((await signKeys(token, { keys: ['users/alice/a.jpg'] })).status).toBe(200)
  })

  it('a Cloudflare Access token in the header or the CF_Authorization cookie', async () => {
    const { call } = setup({ access: { teamDomain: ACCESS_TEAM, aud: ACCESS_AUD } })
    const token = await sign(accessKey, {
      iss: ACCESS_TEAM,
      aud: [ACCESS_AUD],
      sub: 'access-user-id',
      email: 'ops@example.com',
    })
    const body = { origin: 'photos', keys: ['ops/report.pdf'] }
    const viaHeader = await call('/v1/sign', {
      method: 'POST',
      headers: { 'cf-access-jwt-assertion': token },
      body,
    })
    expect(viaHeader.status).toBe(200)
    const viaCookie = await call('/v1/sign', {
      method: 'POST',
      headers: { cookie: `CF_Authorization=${token}` },
      body,
    })
    expect(viaCookie.status).toBe(200)
  })

  it('a JWT in the configured cookie, on redirects only', async () => {
    const { call } = setup()
    const token = await sign(keys.RS256!, {})
    const redirect = await call('/v1/redirect/photos/users/alice/a.jpg', {
      headers: { cookie: `wb_token=${token}` },
    })
    expect(redirect.status).toBe(302)
    const bulk = await call('/v1/sign', {
      method: 'POST',
      headers: { cookie: `wb_token=${token}` },
      body: { origin: 'photos', keys: ['users/alice/a.jpg'] },
    })
    await expectStatus(bulk, 401, 'unauthorized')
  })

  it('an API key', async () => {
    const { signKeys } = setup()
    expect((await signKeys(API_KEY, { keys: ['public/logo.png'] })).status).toBe(200)
  })

  it('accepts an expiry within the default 60 s clock tolerance', async () => {
    const { signKeys } = setup()
    const token = await sign(keys.RS256!, {}, { iat: NOW_S - 600, exp: NOW_S - 30 })
    expect((await signKeys(token, { keys: ['users/alice/a.jpg'] })).status).toBe(200)
  })
})

describe('each grant dimension is enforced', () => {
  it('origin: a granted prefix on another origin does not count', async () => {
    const { signKeys } = setup()
    const token = await sign(keys.RS256!, {})
    const problem = await expectStatus(
      await signKeys(token, { origin: 'docs', keys: ['users/alice/a.jpg'] }),
      403,
      'forbidden',
    )
    expect(problem.errors?.[0]?.path).toBe('origin')
  })

  it('prefix: all or nothing, listing each key outside the grants', async () => {
    const { signKeys } = setup()
    const token = await sign(keys.RS256!, {})
    const keysIn = ['users/alice/1', 'users/bob/2', 'users/alice/3', 'public/4']
    const problem = await expectStatus(await signKeys(token, { keys: keysIn }), 403, 'forbidden')
    expect(problem.errors?.map((e) => e.path)).toEqual(['keys.1', 'keys.3'])
    const items = await signKeys(token, { items: [{ key: 'users/alice/1' }, { key: 'x' }] })
    expect((await problemOf(items)).errors?.map((e) => e.path)).toEqual(['items.1.key'])
  })

  it('action: read granted, delete not', async () => {
    const { signKeys } = setup()
    const token = await sign(keys.RS256!, {})
    await expectStatus(
      await signKeys(token, { method: 'DELETE', keys: ['users/alice/a'] }),
      403,
      'forbidden',
    )
    expect((await signKeys(token, { method: 'PUT', keys: ['users/alice/a'] })).status).toBe(200)
  })

  it('expiry: above the grant maximum is a 400 naming the maximum; absent, the default is capped', async () => {
    const { signKeys } = setup()
    const token = await sign(keys.RS256!, {})
    const problem = await expectStatus(
      await signKeys(token, { expiresIn: 3601, keys: ['users/alice/a'] }),
      400,
      'invalid_request',
    )
    expect(problem.errors).toEqual([
      { path: 'expiresIn', message: 'must be at most 3600 for this caller' },
    ])
    const capped = await signKeys(token, { keys: ['mine/alice/a'] })
    expect((await capped.json<{ expiresAt: string }>()).expiresAt).toBe(
      new Date(NOW.getTime() + 300_000).toISOString(),
    )
  })

  it('batch size: above the grant maxBatch is a 400', async () => {
    const { signKeys } = setup()
    const token = await sign(keys.RS256!, {})
    const five = Array.from({ length: 5 }, (_, i) => `users/alice/${i}`)
    expect((await signKeys(token, { keys: five })).status).toBe(200)
    const problem = await expectStatus(
      await signKeys(token, { keys: [...five, 'users/alice/5'] }),
      400,
      'invalid_request',
    )
    expect(problem.errors?.[0]).toEqual({
      path: 'keys',
      message: 'must contain at most 5 entries for this caller',
    })
  })

  it('roles from the token grant what the role has', async () => {
    const { signKeys } = setup()
    const admin = await sign(keys.RS256!, { sub: 'root', roles: ['admin'] })
    expect((await signKeys(admin, { method: 'DELETE', keys: ['anything/at/all'] })).status).toBe(
      200,
    )
    const user = await sign(keys.RS256!, { sub: 'root', roles: ['viewer'] })
    expect((await signKeys(user, { keys: ['anything/at/all'] })).status).toBe(403)
  })
})

describe('grant escapes are refused', () => {
  const cases: Array<[string, string, number]> = [
    ['a ".." segment', 'users/alice/../bob/x', 400],
    ['an empty segment', 'users/alice//x', 400],
    ['a percent-encoded ".." kept literally in the key', 'users/alice/%2e%2e/x', 400],
    ['a "." segment', 'users/alice/./x', 400],
    ['a backslash', 'users/alice/..\\bob', 400],
    ['a control character', 'users/alice/a\u0000b', 400],
    ['a leading slash', '/users/alice/x', 400],
  ]
  for (const [name, key, status] of cases) {
    it(`${name}: ${JSON.stringify(key)}`, async () => {
      const { signKeys } = setup()
      const response = await signKeys(await sign(keys.RS256!, {}), { keys: [key] })
      const problem = await expectStatus(response, status)
      expect(problem.errors?.[0]?.path).toBe('keys.0')
    })
  }

  it('a sub claim of "../bob" fills no prefix', async () => {
    const { signKeys } = setup()
    const token = await sign(keys.RS256!, { sub: '../bob' })
    await expectStatus(await signKeys(token, { keys: ['mine/bob/x'] }), 403, 'forbidden')
    // No grant applies at all, so the key's shape is not even looked at.
    await expectStatus(await signKeys(token, { keys: ['mine/../bob/x'] }), 403, 'forbidden')
  })

  it('prefix confusion: a grant on users/al does not cover users/alice', async () => {
    const { signKeys } = setup()
    const token = await sign(keys.RS256!, { sub: 'al' })
    expect((await signKeys(token, { keys: ['users/al/x', 'users/al'] })).status).toBe(200)
    await expectStatus(await signKeys(token, { keys: ['users/alice/x'] }), 403, 'forbidden')
  })
})

describe('attack matrix', () => {
  async function rejected(token: string, status = 401) {
    const { signKeys } = setup()
    return expectStatus(await signKeys(token, { keys: ['users/alice/a'] }), status)
  }

  it('alg: none', async () => {
    const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))
    const payload = base64url.encode(
      JSON.stringify({ sub: 'alice', iss: ISSUER, aud: AUDIENCE, exp: NOW_S + 600 }),
    )
    await rejected(`${header}.${payload}.`)
  })

  it('HS256 signed with the RSA public key as the secret, with and without HS256 enabled', async () => {
    const { publicJwk } = keys.RS256!
    const { importJWK } = await import('jose')
    const pem = await exportSPKI(
      (await importJWK(publicJwk, 'RS256', { extractable: true })) as CryptoKey,
    )
    const forged = await sign(
      { alg: 'HS256', secret: new TextEncoder().encode(pem) },
      {},
      { header: { kid: 'RS256-key' } },
    )
    await rejected(forged)
    const { signKeys } = setup({
      jwt: { issuer: ISSUER, audience: AUDIENCE, jwksUrl: JWKS_URL, hs256: true },
    })
    await expectStatus(await signKeys(forged, { keys: ['users/alice/a'] }), 401)
  })

  it('expired', async () => {
    const problem = await rejected(
      await sign(keys.RS256!, {}, { iat: NOW_S - 7200, exp: NOW_S - 3600 }),
    )
    expect(problem.detail).toMatch(/expired/)
  })

  it('nbf in the future', async () => {
    const problem = await rejected(await sign(keys.RS256!, { nbf: NOW_S + 3600 }))
    expect(problem.detail).toMatch(/not valid yet/)
  })

  it('wrong iss', async () => {
    expect((await rejected(await sign(keys.RS256!, { iss: 'https://evil.test/' }))).detail).toMatch(
      /issuer/,
    )
  })

  it('wrong aud', async () => {
    expect((await rejected(await sign(keys.RS256!, { aud: 'someone-else' }))).detail).toMatch(
      /audience/,
    )
  })

  it('unknown kid', async () => {
    const stranger = await makeKey('RS256', 'not-in-the-set')
    expect((await rejected(await sign(stranger, {}))).detail).toMatch(/unknown key/)
  })

  it('tampered payload', async () => {
    const [header, , signature] = (await sign(keys.ES256!, {})).split('.')
    const payload = base64url.encode(
      JSON.stringify({
        sub: 'root',
        roles: ['admin'],
        iss: ISSUER,
        aud: AUDIENCE,
        exp: NOW_S + 600,
      }),
    )
    expect((await rejected(`${header}.${payload}.${signature}`)).detail).toMatch(/signature/)
  })

  it('a token without sub', async () => {
    await rejected(await sign(keys.RS256!, { sub: undefined }))
  })

  it('token in the wrong place: query string, Access header without Access, cookie on /v1/sign', async () => {
    const { call } = setup()
    const token = await sign(keys.RS256!, {})
    const body = { origin: 'photos', keys: ['users/alice/a'] }
    for (const init of [
      { headers: {} as Record<string, string>, path: `/v1/sign?access_token=${token}` },
      { headers: { 'cf-access-jwt-assertion': token }, path: '/v1/sign' },
      { headers: { cookie: `wb_token=${token}` }, path: '/v1/sign' },
      { headers: { authorization: `Token ${token}` }, path: '/v1/sign' },
    ]) {
      await expectStatus(
        await call(init.path, { method: 'POST', headers: init.headers, body }),
        401,
      )
    }
  })

  it('JWKS endpoint down: 503 with Retry-After, never 200', async () => {
    const { signKeys, server } = setup()
    server.down = true
    const response = await signKeys(await sign(keys.RS256!, {}), { keys: ['users/alice/a'] })
    expect(response.headers.get('retry-after')).toBe('30')
    await expectStatus(response, 503, 'auth_unavailable')
  })

  it('oversized token', async () => {
    const token = await sign(keys.RS256!, { padding: 'x'.repeat(9000) })
    expect((await rejected(token)).detail).toMatch(/longer than 8192/)
  })

  it('an API key differing in one character', async () => {
    await rejected(API_KEY.slice(0, -1) + (API_KEY.endsWith('9') ? '8' : '9'))
  })

  it('no credentials, and no method configured at all', async () => {
    const { call } = setup()
    await expectStatus(await call('/v1/redirect/photos/public/a'), 401, 'unauthorized')
    const none = setup(undefined, { WAYBILL_API_KEYS: undefined, WAYBILL_AUTH: undefined })
    const problem = await expectStatus(
      await none.call('/v1/sign', {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}` },
        body: {},
      }),
      401,
    )
    expect(problem.detail).toMatch(/API keys are not enabled/)
  })
})

describe('remote JWKS caching', () => {
  it('fetches once for many requests, refetches for an unknown kid at most once per cooldown', async () => {
    const { signKeys, server, advance } = setup()
    const token = await sign(keys.RS256!, {})
    for (let i = 0; i < 3; i++) {
      expect((await signKeys(token, { keys: ['users/alice/a'] })).status).toBe(200)
    }
    expect(server.requests).toBe(1)

    const rotated = await makeKey('ES256', 'rotated-in')
    const rotatedToken = await sign(rotated, {})
    advance(1000)
    await expectStatus(await signKeys(rotatedToken, { keys: ['users/alice/a'] }), 401)
    expect(server.requests).toBe(1) // within the cooldown: no fetch

    server.sets.get(JWKS_URL)!.keys.push(rotated.publicJwk)
    advance(30_000)
    expect((await signKeys(rotatedToken, { keys: ['users/alice/a'] })).status).toBe(200)
    expect(server.requests).toBe(2)
  })

  it('keeps using cached keys while the issuer is down, but 503 for a key it lacks', async () => {
    const { signKeys, server, advance } = setup()
    const token = await sign(keys.RS256!, {}, { exp: NOW_S + 7200 })
    expect((await signKeys(token, { keys: ['users/alice/a'] })).status).toBe(200)
    server.down = true
    advance(11 * 60_000) // past the cache age: a refetch is due and fails
    expect((await signKeys(token, { keys: ['users/alice/a'] })).status).toBe(200)
    const stranger = await makeKey('RS256', 'not-cached')
    advance(31_000)
    const strangerToken = await sign(stranger, {}, { exp: NOW_S + 7200 })
    await expectStatus(await signKeys(strangerToken, { keys: ['users/alice/a'] }), 503)
  })

  it('refuses a JWKS response over the size cap', async () => {
    const { signKeys, server } = setup()
    server.body = JSON.stringify({ keys: [keys.RS256!.publicJwk], pad: 'x'.repeat(300 * 1024) })
    await expectStatus(
      await signKeys(await sign(keys.RS256!, {}), { keys: ['users/alice/a'] }),
      503,
    )
  })
})
