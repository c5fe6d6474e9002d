import { describe, expect, it } from 'vitest'
import { createApp } from '../src/app'
import { postJson } from './helpers/requests'
import { ALL_KEY, SECRET, app, problemOf, testEnv } from './helpers/routes'

describe('GET /healthz', () => {
  it('200 {"ok":true} without authentication', async () => {
    const response = await app.request('/healthz', {}, await testEnv())
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true })
  })

  it('503 naming every bad field when the config is invalid, without secret values', async () => {
    const env = await testEnv({
      WAYBILL_ORIGINS: {
        photos: { type: 's3', bucket: 'Bad_Bucket', region: 'eu-west-1', credentials: 'MAIN' },
      },
      MAIN_SECRET_ACCESS_KEY: undefined,
      MAIN_SESSION_TOKEN: `${SECRET} with spaces`,
    })
    const response = await app.request('/healthz', {}, env)
    expect(response.status).toBe(503)
    const text = await response.clone().text()
    expect(text).not.toContain(SECRET)
    const problem = await problemOf(response)
    expect(problem.type).toBe('urn:waybill:problem:config_invalid')
    expect(problem.errors?.map((e) => e.path)).toEqual(
      expect.arrayContaining([
        'WAYBILL_ORIGINS.photos.bucket',
        'MAIN_SECRET_ACCESS_KEY',
        'MAIN_SESSION_TOKEN',
      ]),
    )
  })

  it('every other route answers the same 503 while the config is invalid', async () => {
    const env = await testEnv({ WAYBILL_ORIGINS: '{not json' })
    const response = await app.request(
      '/v1/sign',
      {
        method: 'POST',
        headers: { authorization: `Bearer ${ALL_KEY}`, 'content-type': 'application/json' },
        body: '{}',
      },
      env,
    )
    expect(response.status).toBe(503)
    expect((await problemOf(response)).errors).toEqual([
      { path: 'WAYBILL_ORIGINS', message: 'is not valid JSON' },
    ])
  })
})

describe('routing', () => {
  it('404 problem for an unknown path', async () => {
    const response = await app.request('/nope', {}, await testEnv())
    expect(response.status).toBe(404)
    expect((await problemOf(response)).type).toBe('urn:waybill:problem:not_found')
  })

  it('405 with Allow for a wrong method, before authentication', async () => {
    const cases: Array<[string, string, string]> = [
      ['GET', '/v1/sign', 'POST'],
      ['PUT', '/v1/sign', 'POST'],
      ['DELETE', '/v1/sign', 'POST'],
      ['POST', '/v1/redirect/photos/a.jpg', 'GET, HEAD'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['PATCH', '/openapi.json', 'GET, HEAD'],
      ['PROPFIND', '/v1/sign', 'POST'],
      // A key's own pattern spans slashes.
      ['POST', '/v1/redirect/photos/a/b/c.jpg', 'GET, HEAD'],
      ['PATCH', '/o/media/a/b.jpg', 'GET, HEAD, PUT, DELETE'],
      ['GET', '/o/media', 'POST'],
    ]
    for (const [method, path, allow] of cases) {
      const response = await app.request(path, { method }, await testEnv())
      expect(response.status, `${method} ${path}`).toBe(405)
      expect(response.headers.get('allow')).toBe(allow)
      expect((await problemOf(response)).type).toBe('urn:waybill:problem:method_not_allowed')
    }
    // A path no route has is 404 whatever the method: a route's dot is a dot, a segment one
    // segment, a path a whole path, and a trailing slash another path (as for its own method).
    for (const [method, path] of [
      ['DELETE', '/v1/sign/'],
      ['POST', '/v1/sign/'],
      ['DELETE', '/openapiXjson'],
      ['DELETE', '/v1/redirect/photos'],
      ['DELETE', '/v1/signs'],
      ['DELETE', '/x/v1/sign'],
    ] as const) {
      const response = await app.request(path, { method }, await testEnv())
      expect(response.status, `${method} ${path}`).toBe(404)
    }
  })

  it('an unexpected error is a plain 500 that says nothing of the cause', async () => {
    const failing = createApp({
      clock: () => {
        throw new Error(`clock exploded near ${SECRET}`)
      },
    })
    const logged: unknown[] = []
    const original = console.error
    console.error = (...args: unknown[]) => void logged.push(args)
    try {
      const response = await failing.request(
        '/v1/sign',
        postJson({ origin: 'photos', keys: ['a'] }, ALL_KEY),
        await testEnv(),
      )
      expect(response.status).toBe(500)
      const text = await response.text()
      expect(text).not.toContain('exploded')
      expect(JSON.parse(text)).toMatchObject({ status: 500, type: 'urn:waybill:problem:internal' })
      expect(logged).toHaveLength(1)
    } finally {
      console.error = original
    }
  })
})

describe('GET /readyz', () => {
  it('without a control plane, is the configuration alone; with one, its database and counters', async () => {
    const bare = await app.request('/readyz', {}, await testEnv())
    expect(bare.status).toBe(200)
    expect(await bare.json()).toEqual({ ok: true, checks: [] })
    const { withControl } = await import('./helpers/control-plane')
    const ready = await app.request('/readyz', {}, await withControl(await testEnv()))
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({
      ok: true,
      checks: [
        { name: 'd1', ok: true, detail: expect.stringMatching(/^migrated \(0\d{3}_/) as string },
        { name: 'durableObjects', ok: true, detail: 'answer' },
      ],
    })
  })

  it('is the 503 of an invalid configuration first', async () => {
    const response = await app.request('/readyz', {}, await testEnv({ WAYBILL_ORIGINS: '{}' }))
    expect(response.status).toBe(503)
    expect((await problemOf(response)).type).toBe('urn:waybill:problem:config_invalid')
  })
})

interface OpenApiDocument {
  openapi: string
  paths: Record<string, Record<string, { security: Record<string, string[]>[] }>>
  components: { securitySchemes: Record<string, unknown> }
}

let openApiDocument: OpenApiDocument

describe('GET /openapi.json', () => {
  it('serves the document', async () => {
    const response = await app.request('/openapi.json', {}, await testEnv())
    expect(response.status).toBe(200)
    openApiDocument = await response.json<OpenApiDocument>()
    expect(openApiDocument.openapi).toBe('3.1.0')
  })

  it('describes exactly the routes the app answers', () => {
    const documented = Object.entries(openApiDocument.paths)
      .flatMap(([path, operations]) =>
        Object.keys(operations).map(
          (method) =>
            `${method.toUpperCase()} ${path
              .replace(/\{origin\}\/\{key\}/, ':origin/:key{[\\s\\S]+}')
              .replace(/\{(\w+)\}/g, ':$1')}`,
        ),
      )
      .sort()
    // Method-specific routes are the handlers; ALL routes are middleware and the 405 guards.
    const served = createApp()
      .routes.filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method} ${route.path}`)
    expect([...new Set(served)].sort()).toEqual(documented)
  })
})

describe('OpenAPI security', () => {
  it('declares every authentication scheme and which routes take which', () => {
    const schemes = Object.keys(openApiDocument.components.securitySchemes).sort()
    expect(schemes).toEqual(['access', 'accessCookie', 'apiKey', 'jwt', 'jwtCookie'])
    const sign = openApiDocument.paths['/v1/sign']!.post!.security.flatMap((s) => Object.keys(s))
    expect(sign).not.toContain('jwtCookie')
    const redirect = openApiDocument.paths['/v1/redirect/{origin}/{key}']!.get!.security.flatMap(
      (s) => Object.keys(s),
    )
    expect(redirect).toContain('jwtCookie')
    // The admin API is the admin Worker's, in its own document (test/admin/app.test.ts).
    expect(Object.keys(openApiDocument.paths).filter((path) => path.startsWith('/admin'))).toEqual(
      [],
    )
  })
})
