// The response policy (src/http/answer.ts): every answer is `no-store` unless its route earns a
// cache rule, and only the GETs whose answer is a function of the caller and the URL earn one.

import { describe, expect, it } from 'vitest'
import { admin, adminEnvOf, fresh, send, withControl } from '../helpers/control-plane'
import { postJson } from '../helpers/requests'
import { adminApp, ALL_KEY, app, testEnv } from '../helpers/routes'

const env = await testEnv()
const controlEnv = await withControl(env)
const bearer = { authorization: `Bearer ${ALL_KEY}` }

async function linkPath(): Promise<string> {
  const response = await app.request(
    '/v1/links',
    postJson({ origin: 'photos', keys: ['a.jpg'], expiresIn: 3600 }, ALL_KEY),
    env,
  )
  const { links } = await response.json<{ links: { url: string }[] }>()
  return new URL(links[0]!.url).pathname
}

describe('the response policy', () => {
  it.each([
    [
      'POST /v1/sign',
      () => app.request('/v1/sign', postJson({ origin: 'photos', keys: ['a'] }, ALL_KEY), env),
      200,
    ],
    [
      'POST /v1/sign as NDJSON',
      () =>
        app.request(
          '/v1/sign',
          {
            ...postJson({ origin: 'photos', keys: ['a'] }, ALL_KEY),
            headers: {
              ...bearer,
              'content-type': 'application/json',
              accept: 'application/x-ndjson',
            },
          },
          env,
        ),
      200,
    ],
    [
      'POST /v1/links',
      () => app.request('/v1/links', postJson({ origin: 'photos', keys: ['a.jpg'] }, ALL_KEY), env),
      200,
    ],
    [
      'POST /v1/uploads',
      () =>
        app.request(
          '/v1/uploads',
          postJson({ origin: 'photos', key: 'uploads/a.txt', contentType: 'text/plain' }, ALL_KEY),
          env,
        ),
      200,
    ],
    ['GET /healthz', () => app.request('/healthz', {}, env), 200],
    ['a 400', () => app.request('/v1/sign', postJson({ origin: 'photos' }, ALL_KEY), env), 400],
    [
      'a 401',
      () =>
        app.request(
          '/v1/sign',
          postJson({ origin: 'photos', keys: ['a'] }, 'wb_nope_0123456789abcdef'),
          env,
        ),
      401,
    ],
    ['a 404', () => app.request('/v1/nothing', { headers: bearer }, env), 404],
    ['a 405', () => app.request('/v1/sign', { headers: bearer }, env), 405],
  ] as const)('%s: no-store', async (_, request, status) => {
    const response = await request()
    expect(response.status).toBe(status)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('etag')).toBeNull()
  })

  it('GET /v1/redirect earns a private lifetime inside its URL’s, varying on the credentials', async () => {
    const response = await app.request(
      '/v1/redirect/photos/a.jpg?expiresIn=600',
      { headers: bearer },
      env,
    )
    expect(response.status).toBe(302)
    // 600 s of URL life less the minute's margin.
    expect(response.headers.get('cache-control')).toBe('private, max-age=540')
    expect(response.headers.get('vary')).toBe('Authorization, Cookie')
  })

  it('GET /l/{token} earns a private lifetime of at most its five-minute URL', async () => {
    const response = await app.request(await linkPath(), {}, env)
    expect(response.status).toBe(302)
    expect(response.headers.get('cache-control')).toBe('private, max-age=240')
    const location = new URL(response.headers.get('location')!)
    expect(location.searchParams.get('X-Amz-Date')).toBe('20261123T100000Z')
  })
})

// The admin API answers keys shown once, hashes' prefixes and usage: never kept by any cache.
describe('the response policy on the admin API', () => {
  it.each([
    [
      'POST /admin/v1/keys (the key, shown once)',
      () => admin(adminApp, controlEnv, 'POST', '/keys', { label: fresh('policy') }),
      201,
    ],
    ['GET /admin/v1/keys', () => admin(adminApp, controlEnv, 'GET', '/keys'), 200],
    [
      'GET /admin/v1/usage',
      () => admin(adminApp, controlEnv, 'GET', `/usage?principal=apiKey:${fresh('policy')}`),
      200,
    ],
    [
      'DELETE /admin/v1/grants/{id}',
      async () => {
        const created = await admin(adminApp, controlEnv, 'POST', '/grants', {
          to: `sub:${fresh('policy')}`,
          origin: 'photos',
          actions: ['read'],
        })
        const { id } = await created.json<{ id: string }>()
        return admin(adminApp, controlEnv, 'DELETE', `/grants/${id}`)
      },
      204,
    ],
    [
      "a 401 (a caller's API key)",
      async () =>
        send(adminApp, await adminEnvOf(controlEnv), 'GET', '/admin/v1/keys', { bearer: ALL_KEY }),
      401,
    ],
    ['a 405', () => admin(adminApp, controlEnv, 'PUT', '/keys'), 405],
  ] as const)('%s: no-store', async (_, request, status) => {
    const response = await request()
    expect(response.status, await response.clone().text()).toBe(status)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('etag')).toBeNull()
  })
})
