// GET /v1/uploads/rules: the caller's upload rules on an origin, one per write grant, as
// POST /v1/uploads judges uploads; refused as an upload there would be.

import { describe, expect, inject, it, vi } from 'vitest'
import { auditEvent } from '../../src/control/audit'
import type { Env } from '../../src/env'
import { PASSIVE_TYPES } from '../../src/core/media-type'
import { MAX_EXPIRES_S } from '../../src/limits'
import {
  ALL_KEY,
  app,
  CDN_ORIGIN,
  NOW,
  PHOTOS_KEY,
  PHOTOS_ORIGIN,
  problemOf,
  testEnv,
} from '../helpers/routes'

const MIB = 1024 * 1024

async function rulesEnv(): Promise<Env> {
  return testEnv({
    WAYBILL_ORIGINS: {
      photos: PHOTOS_ORIGIN,
      nopost: { ...PHOTOS_ORIGIN, postPolicy: false },
      cdn: CDN_ORIGIN,
    },
    CDN_PRIVATE_KEY: inject('testKeys').rsaPkcs8,
    WAYBILL_GRANTS: JSON.stringify([
      { to: 'apiKey:all', origin: 'photos', prefix: 'public/', actions: ['read'] },
      {
        to: 'apiKey:all',
        origin: 'photos',
        prefix: 'users/{apiKey}/',
        actions: ['read', 'write'],
        contentTypes: ['image/*', 'text/plain'],
        maxContentLength: MIB,
        uploadKey: 'users/{apiKey}/{uuid}-{filename}',
        overwrite: true,
        maxExpiresIn: 3600,
        maxBatch: 20,
      },
      // A token's claim: it never fills for an API key, so the grant does not apply.
      { to: '*', origin: 'photos', prefix: 'tenants/{sub}/', actions: ['write'] },
      { to: 'apiKey:all', origin: 'photos', prefix: 'inbox', actions: ['write'] },
      { to: 'apiKey:all', origin: 'nopost', actions: ['write'], overwrite: true },
      { to: 'apiKey:all', origin: 'cdn', actions: ['read', 'write'] },
      { to: 'apiKey:photos-only', origin: 'photos', actions: ['read'] },
    ]),
  })
}

function rules(origin: string, env: Env, key = ALL_KEY) {
  return app.request(
    `/v1/uploads/rules?origin=${encodeURIComponent(origin)}`,
    { headers: { authorization: `Bearer ${key}` } },
    env,
  )
}

function upload(body: Record<string, unknown>, env: Env) {
  return app.request(
    '/v1/uploads',
    {
      method: 'POST',
      headers: { authorization: `Bearer ${ALL_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ origin: 'photos', ...body }),
    },
    env,
  )
}

describe('GET /v1/uploads/rules', () => {
  it('answers one rule per write grant that applies, filled for the caller, kept by no cache', async () => {
    const response = await rules('photos', await rulesEnv())
    expect(response.status, await response.clone().text()).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.json()).toEqual({
      origin: 'photos',
      rules: [
        {
          prefix: 'users/all/',
          uploadKey: 'users/all/{uuid}-{filename}',
          contentTypes: ['image/*', 'text/plain'],
          // A family is the passive types it admits: never image/svg+xml.
          admittedTypes: [...PASSIVE_TYPES.image.map((type) => `image/${type}`), 'text/plain'],
          maxContentLength: MIB,
          modes: ['put', 'post', 'multipart'],
          overwrite: true,
          maxExpiresIn: 3600,
          maxBatch: 20,
        },
        {
          prefix: 'inbox',
          uploadKey: null,
          contentTypes: null,
          admittedTypes: null,
          maxContentLength: null,
          // No overwrite: a POST form, which replaces, is not for this grant.
          modes: ['put', 'multipart'],
          overwrite: false,
          maxExpiresIn: MAX_EXPIRES_S,
          maxBatch: 50,
        },
      ],
    })
  })

  it('counts no URL: its log line says it signed none, which usage and audit count', async () => {
    const lines: string[] = []
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)))
    try {
      expect((await rules('photos', await rulesEnv())).status).toBe(200)
    } finally {
      vi.restoreAllMocks()
    }
    const logged = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.message === 'request')
    expect(logged).toMatchObject({ origin: 'photos', items: 0, status: 200 })
    const event = auditEvent({
      now: NOW,
      requestId: 'r',
      path: '/v1/uploads/rules',
      route: '/v1/uploads/rules',
      status: 200,
      principal: { kind: 'api-key', id: 'all' },
      origin: 'photos',
      items: logged?.items as number,
    })
    expect(event.count).toBe(0)
  })

  it('takes no POST form where the store does not, whatever the grant', async () => {
    const response = await rules('nopost', await rulesEnv())
    const { rules: [rule] = [] } = await response.json<{ rules: { modes: string[] }[] }>()
    expect(rule?.modes).toEqual(['put', 'multipart'])
  })

  it('answers no rule to a caller whose grants there do not write', async () => {
    const response = await rules('photos', await rulesEnv(), PHOTOS_KEY)
    expect(await response.json()).toEqual({ origin: 'photos', rules: [] })
  })

  it('is refused as an upload is: an unknown origin as an ungranted one, a CloudFront one', async () => {
    const env = await rulesEnv()
    const unknown = await problemOf(await rules('nowhere', env))
    const ungranted = await problemOf(await rules('nopost', env, PHOTOS_KEY))
    expect(unknown.status).toBe(403)
    expect(unknown.errors).toEqual([
      { path: 'origin', message: 'no grant to write on this origin' },
    ])
    expect(ungranted.errors).toEqual(unknown.errors)
    expect(ungranted.detail).toBe(unknown.detail.replace('nowhere', 'nopost'))

    const cdn = await problemOf(await rules('cdn', env))
    const uploadThere = await problemOf(
      await upload({ origin: 'cdn', filename: 'a.png', contentType: 'image/png' }, env),
    )
    expect(cdn.status).toBe(403)
    expect(cdn).toEqual(uploadThere)
  })

  it('needs the origin, once, and nothing else', async () => {
    const env = await rulesEnv()
    const send = (query: string) =>
      app.request(
        `/v1/uploads/rules${query}`,
        { headers: { authorization: `Bearer ${ALL_KEY}` } },
        env,
      )
    for (const [query, path] of [
      ['', 'origin'],
      ['?origin=', 'origin'],
      ['?origin=photos&origin=docs', 'origin'],
      ['?origin=photos&prefix=a/', 'prefix'],
    ] as const) {
      const problem = await problemOf(await send(query))
      expect(problem.status, query).toBe(400)
      expect(
        problem.errors?.map((e) => e.path),
        query,
      ).toContain(path)
    }
  })

  it('says what POST /v1/uploads then allows: a file one rule admits, not one none admits', async () => {
    const env = await rulesEnv()
    const allowed = [
      { key: 'users/all/a.png', contentType: 'image/png', contentLength: MIB },
      { filename: 'notes.txt', contentType: 'text/plain', contentLength: 10 },
      { key: 'inbox/page.html', contentType: 'text/html', contentLength: 10 * MIB },
      { key: 'inbox', contentType: 'text/html', contentLength: 10 },
      { mode: 'post', key: 'users/all/b.png', contentType: 'image/png', overwrite: true },
    ]
    const refused = [
      // image/* admits passive types only.
      { key: 'users/all/a.svg', contentType: 'image/svg+xml', contentLength: 10 },
      { key: 'users/all/a.png', contentType: 'image/png', contentLength: MIB + 1 },
      // `inbox` covers whole segments only.
      { key: 'inboxes/a.txt', contentType: 'text/plain', contentLength: 10 },
      { mode: 'post', key: 'inbox/a.txt', contentType: 'text/plain', overwrite: true },
      { key: 'inbox/a.txt', contentType: 'text/plain', contentLength: 10, overwrite: true },
    ]
    for (const body of allowed) {
      const response = await upload(body, env)
      expect(response.status, `${JSON.stringify(body)}: ${await response.text()}`).toBe(200)
    }
    for (const body of refused) {
      const response = await upload(body, env)
      expect([400, 403], JSON.stringify(body)).toContain(response.status)
    }
  })
})
