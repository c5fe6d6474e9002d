import { describe, expect, it } from 'vitest'
import { adminEnvOf, withControl } from '../helpers/control-plane'
import { adminApp, ALL_KEY, app, postSign, problemOf, testEnv } from '../helpers/routes'

const CORS = { origins: ['https://app.example.com'], credentials: true, maxAgeS: 300 }

describe('CORS for the API', () => {
  it('answers a preflight from an allowed origin without authentication', async () => {
    const response = await app.request(
      '/v1/sign',
      {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      },
      await testEnv({ WAYBILL_CORS: CORS }),
    )
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(response.headers.get('access-control-allow-credentials')).toBe('true')
    expect(response.headers.get('access-control-allow-methods')).toContain('POST')
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'authorization',
    )
    expect(response.headers.get('access-control-max-age')).toBe('300')
  })

  it('gives a stranger no CORS headers, and the actual response carries them for a friend', async () => {
    const env = await testEnv({ WAYBILL_CORS: CORS })
    const stranger = await app.request(
      '/v1/sign',
      {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      },
      env,
    )
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull()
    const actual = await postSign(
      { origin: 'photos', keys: ['a'] },
      { env, headers: { origin: 'https://app.example.com' } },
    )
    expect(actual.status).toBe(200)
    expect(actual.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(actual.headers.get('access-control-expose-headers')).toContain('waybill-expires-at')
    expect(actual.headers.get('vary')).toContain('Origin')
  })

  it('never reaches the admin API: it is not on this Worker, and its paths get no CORS here', async () => {
    // The admin API takes the Access cookie: an app's origin must not read its answers. It is
    // the admin Worker's (which answers no CORS); here its paths are 404s without CORS headers.
    const env = await testEnv({ WAYBILL_CORS: CORS })
    const preflight = await app.request(
      '/admin/v1/keys',
      {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      },
      env,
    )
    expect(preflight.status).toBe(404)
    const actual = await app.request(
      '/admin/v1/keys',
      { headers: { origin: 'https://app.example.com', authorization: 'Bearer x' } },
      env,
    )
    expect(actual.status).toBe(404)
    const onAdmin = await adminApp.request(
      '/admin/v1/keys',
      { method: 'OPTIONS', headers: { origin: 'https://app.example.com' } },
      await adminEnvOf(await withControl(env)),
    )
    expect(onAdmin.status).toBe(405)
    for (const response of [preflight, actual, onAdmin]) {
      const names = [...response.headers.keys()].filter((name) =>
        name.startsWith('access-control-'),
      )
      expect(names).toEqual([])
    }
  })

  it('is off without WAYBILL_CORS: a preflight is 405', async () => {
    const response = await app.request(
      '/v1/sign',
      {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      },
      await testEnv(),
    )
    expect(response.status).toBe(405)
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('rate limit', () => {
  it('429 with Retry-After once the binding says no, keyed per principal', async () => {
    const seen: string[] = []
    let remaining = 2
    const limiter = {
      limit: ({ key }: { key: string }) => {
        seen.push(key)
        return Promise.resolve({ success: remaining-- > 0 })
      },
    }
    const env = await testEnv({ WAYBILL_RATE_LIMITER: limiter })
    expect((await postSign({ origin: 'photos', keys: ['a'] }, { env })).status).toBe(200)
    expect((await postSign({ origin: 'photos', keys: ['a'] }, { env })).status).toBe(200)
    const limited = await postSign({ origin: 'photos', keys: ['a'] }, { env })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('60')
    expect((await problemOf(limited)).type).toBe('urn:waybill:problem:too_many_requests')
    expect(seen).toEqual(['api-key:all', 'api-key:all', 'api-key:all'])
  })

  it('does not count unauthenticated requests against anyone', async () => {
    let calls = 0
    const env = await testEnv({
      WAYBILL_RATE_LIMITER: { limit: () => (calls++, Promise.resolve({ success: true })) },
    })
    expect((await postSign({ origin: 'photos', keys: ['a'] }, { env, key: 'wrong' })).status).toBe(
      401,
    )
    expect(calls).toBe(0)
    expect((await postSign({ origin: 'photos', keys: ['a'] }, { env, key: ALL_KEY })).status).toBe(
      200,
    )
    expect(calls).toBe(1)
  })
})
