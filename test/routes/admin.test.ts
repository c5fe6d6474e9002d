// The admin API through the app: keys (created with grants, shown once, listed with their last
// use, rotated with an overlap), grants, revocations, quotas, and who may call it. The local D1 of
// the pool (test/helpers/control-plane.ts); one clock per app, moved by the tests.

import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import {
  CONTROL_MAX_AGE_MS,
  DEFAULT_ROTATION_OVERLAP_S,
  MAX_USAGE_DAYS,
  USAGE_FLUSH_MS,
} from '../../src/limits'
import {
  ADMIN_TOKEN,
  admin,
  adminEnvOf,
  appWithClock,
  fresh,
  send,
  withControl,
  type AdminApp,
} from '../helpers/control-plane'
import { sha256Hex } from '../helpers/hex'
import { createAdminApp } from '../../src/admin/app'
import type { AdminEnv } from '../../src/config/admin'
import {
  ACCESS_AUD,
  ACCESS_CERTS,
  ACCESS_TEAM,
  FakeJwksServer,
  makeKey,
  sign,
  type TestKey,
} from '../fixtures/auth'
import { ALL_KEY, NOW, problemOf, S3_AND_CDN_ORIGINS, testEnv } from '../helpers/routes'

let env: Env

beforeAll(async () => {
  env = await withControl(await testEnv())
})

interface Created {
  id: string
  key: string
  label: string | null
  expiresAt: string | null
  secrets: { prefix: string }[]
  grants: { id: string; grant: Record<string, unknown> }[]
}

async function createKey(adminApp: AdminApp, body: object) {
  const response = await admin(adminApp, env, 'POST', '/keys', body)
  expect(response.status, await response.clone().text()).toBe(201)
  return response.json<Created>()
}

const signA = (app: ReturnType<typeof appWithClock>['app'], key: string, folder: string) =>
  send(app, env, 'POST', '/v1/sign', {
    bearer: key,
    body: { origin: 'photos', keys: [`${folder}/a.jpg`] },
  })

describe('API keys', () => {
  it('creates a key with its grants, shown once; it signs what its grants allow', async () => {
    const { app, adminApp } = appWithClock(NOW)
    const folder = fresh('f')
    const created = await createKey(adminApp, {
      label: 'the gallery',
      grants: [{ origin: 'photos', prefix: `${folder}/`, actions: ['read'] }],
    })
    expect(created.key).toMatch(/^wb_[A-Za-z0-9_-]{43}$/)
    expect(created.secrets[0]!.prefix).toBe(created.key.slice(0, 7))
    expect(created.grants[0]!.grant).toMatchObject({
      to: `apiKey:${created.id}`,
      origin: 'photos',
      prefix: `${folder}/`,
      actions: ['read'],
    })
    expect((await signA(app, created.key, folder)).status).toBe(200)
    // Outside the grant: 403, as for any key.
    expect((await signA(app, created.key, fresh('elsewhere'))).status).toBe(403)

    // Listed and shown by prefix only: never the key, never its hash.
    const one = await admin(adminApp, env, 'GET', `/keys/${created.id}`)
    const text = await one.text()
    expect(one.status).toBe(200)
    expect(text).not.toContain(created.key)
    expect(text).not.toContain(await sha256Hex(created.key))
    expect(JSON.parse(text)).toMatchObject({ id: created.id, label: 'the gallery' })
  })

  it('takes an id, a prefix and an expiry; refuses ids in use (409) and grants that do not check', async () => {
    const { app, adminApp, clock } = appWithClock(NOW)
    const id = fresh('web')
    const folder = fresh('f')
    const created = await createKey(adminApp, {
      id,
      prefix: 'live',
      expiresAt: new Date(NOW.getTime() + 3_600_000).toISOString(),
      grants: [{ origin: 'photos', prefix: `${folder}/`, actions: ['read'] }],
    })
    expect(created.id).toBe(id)
    expect(created.key).toMatch(/^live_/)
    // Taken: a conflict with what is stored, which the document cannot know (409).
    const again = await admin(adminApp, env, 'POST', '/keys', { id })
    expect(again.status).toBe(409)
    expect((await problemOf(again)).errors?.map((e) => e.path)).toEqual(['id'])
    // The env's own key ids are taken too.
    const envId = await admin(adminApp, env, 'POST', '/keys', { id: 'all' })
    expect(envId.status).toBe(409)
    expect((await problemOf(envId)).errors?.map((e) => e.path)).toEqual(['id'])
    // A grant's shape is the body's (400, every grant at fault named)…
    const bad = await admin(adminApp, env, 'POST', '/keys', {
      grants: [
        { origin: 'nowhere', actions: ['read'] },
        { origin: 'photos', actions: ['fly'] },
        { to: '*', origin: 'photos', actions: ['read'] },
      ],
    })
    expect(bad.status).toBe(400)
    expect((await problemOf(bad)).errors?.map((e) => e.path)).toEqual([
      'grants.1.actions.0',
      'grants.2.to',
    ])
    // …an origin the deployment does not have is not found (404), as the document cannot say it.
    const nowhere = await admin(adminApp, env, 'POST', '/keys', {
      grants: [
        { origin: 'photos', actions: ['read'] },
        { origin: 'nowhere', actions: ['read'] },
      ],
    })
    expect(nowhere.status).toBe(404)
    expect((await problemOf(nowhere)).errors?.map((e) => e.path)).toEqual(['grants.1.origin'])
    expect((await signA(app, created.key, folder)).status).toBe(200)
    // Past its expiry (the cache holds it, and judges the expiry itself).
    clock.advance(3_600_000)
    expect((await signA(app, created.key, folder)).status).toBe(401)
  })

  it('makes a key whose expiry has passed, which never works', async () => {
    const { app, adminApp } = appWithClock(NOW)
    const folder = fresh('f')
    const created = await createKey(adminApp, {
      expiresAt: '2000-01-01T00:00:00Z',
      grants: [{ origin: 'photos', prefix: `${folder}/`, actions: ['read'] }],
    })
    expect(created.expiresAt).toBe('2000-01-01T00:00:00.000Z')
    expect((await signA(app, created.key, folder)).status).toBe(401)
  })

  it('rotates with an overlap: both secrets work, then only the new one', async () => {
    const { app, adminApp, clock } = appWithClock(NOW)
    const folder = fresh('f')
    const created = await createKey(adminApp, {
      grants: [{ origin: 'photos', prefix: `${folder}/`, actions: ['read'] }],
    })
    const rotated = await admin(adminApp, env, 'POST', `/keys/${created.id}/rotate`, {
      overlapS: 60,
    })
    expect(rotated.status).toBe(200)
    const { key } = await rotated.json<{ key: string }>()
    expect(key).not.toBe(created.key)
    expect((await signA(app, created.key, folder)).status).toBe(200)
    expect((await signA(app, key, folder)).status).toBe(200)
    clock.advance(60_000)
    expect((await signA(app, created.key, folder)).status).toBe(401)
    expect((await signA(app, key, folder)).status).toBe(200)
    const listed = await (
      await admin(adminApp, env, 'GET', `/keys/${created.id}`)
    ).json<{
      secrets: { expiresAt: string | null }[]
    }>()
    expect(listed.secrets.map((s) => s.expiresAt)).toEqual([
      new Date(NOW.getTime() + 60_000).toISOString(),
      null,
    ])
    expect(DEFAULT_ROTATION_OVERLAP_S).toBe(86_400)
  })

  it('lists keys page by page, with their last use', async () => {
    const { app, adminApp, clock } = appWithClock(NOW)
    const folder = fresh('f')
    const created = await createKey(adminApp, {
      grants: [{ origin: 'photos', prefix: `${folder}/`, actions: ['read'] }],
    })
    const ctx = createExecutionContext()
    await send(app, env, 'POST', '/v1/sign', {
      bearer: created.key,
      body: { origin: 'photos', keys: [`${folder}/a.jpg`] },
      ctx,
    })
    await waitOnExecutionContext(ctx)
    clock.advance(USAGE_FLUSH_MS)
    const shown = await (
      await admin(adminApp, env, 'GET', `/keys/${created.id}`)
    ).json<{
      lastUsedAt: string | null
    }>()
    expect(shown.lastUsedAt).toBe(NOW.toISOString())
    const first = await (
      await admin(adminApp, env, 'GET', '/keys?limit=1')
    ).json<{
      keys: unknown[]
      cursor: string | null
    }>()
    expect(first.keys).toHaveLength(1)
    expect(first.cursor).not.toBeNull()
    const next = await admin(adminApp, env, 'GET', `/keys?limit=1&cursor=${first.cursor!}`)
    expect(next.status).toBe(200)
  })
})

describe('usage', () => {
  it('counts by day and origin what a key minted, reserved and had refused, and its links followed', async () => {
    const { app, adminApp, clock } = appWithClock(NOW)
    const folder = fresh('f')
    const created = await createKey(adminApp, {
      grants: [{ origin: 'photos', prefix: `${folder}/`, actions: ['read', 'write'] }],
    })
    const ctx = createExecutionContext()
    const call = (path: string, body?: unknown) =>
      send(app, env, body === undefined ? 'GET' : 'POST', path, { bearer: created.key, body, ctx })
    expect(
      (await call('/v1/sign', { origin: 'photos', keys: [`${folder}/a`, `${folder}/b`] })).status,
    ).toBe(200)
    expect(
      (
        await call('/v1/uploads', {
          origin: 'photos',
          key: `${folder}/up.txt`,
          contentType: 'text/plain',
          contentLength: 1234,
        })
      ).status,
    ).toBe(200)
    expect((await call('/v1/sign', { origin: 'docs', keys: ['x'] })).status).toBe(403)
    const links = await call('/v1/links', { origin: 'photos', keys: [`${folder}/a`] })
    const { links: issued } = await links.json<{ links: { url: string }[] }>()
    const path = new URL(issued[0]!.url).pathname
    for (let i = 0; i < 3; i++) {
      expect((await app.request(path, {}, env, ctx)).status).toBe(302)
    }
    // Written with the next request past USAGE_FLUSH_MS.
    clock.advance(USAGE_FLUSH_MS)
    await call('/v1/sign', { origin: 'photos', keys: [`${folder}/c`] })
    await waitOnExecutionContext(ctx)
    const usage = await admin(adminApp, env, 'GET', `/usage?principal=apiKey:${created.id}`)
    expect(usage.status).toBe(200)
    const { days } = await usage.json<{ days: Record<string, unknown>[] }>()
    expect(days).toEqual([
      {
        day: '2026-11-23',
        origin: 'docs',
        minted: 0,
        refused: 1,
        bytesReserved: 0,
        bytesCompleted: 0,
        linksFollowed: 0,
      },
      {
        day: '2026-11-23',
        origin: 'photos',
        // 2 URLs, 1 upload, 1 link, 1 more URL.
        minted: 5,
        refused: 0,
        bytesReserved: 1234,
        bytesCompleted: 0,
        linksFollowed: 3,
      },
    ])
  })

  it('answers the days it can: none for a "to" before "from", the last 366 of a longer range', async () => {
    const { adminApp } = appWithClock(NOW)
    const backwards = await admin(
      adminApp,
      env,
      'GET',
      '/usage?principal=jwt:x&from=2026-11-23&to=2026-11-22',
    )
    expect(backwards.status).toBe(200)
    expect(await backwards.json()).toEqual({
      principal: 'jwt:x',
      from: '2026-11-23',
      to: '2026-11-22',
      days: [],
    })
    const long = await admin(
      adminApp,
      env,
      'GET',
      '/usage?principal=jwt:x&from=2024-01-01&to=2026-11-23',
    )
    expect(long.status).toBe(200)
    expect(await long.json()).toMatchObject({ from: '2025-11-23', to: '2026-11-23' })
    expect(MAX_USAGE_DAYS).toBe(366)
  })
})

describe('grants', () => {
  it('adds a grant bound to a key, and removes it (the data plane sees each within the bound)', async () => {
    const { app, adminApp, clock } = appWithClock(NOW)
    const folder = fresh('f')
    const created = await createKey(adminApp, {})
    expect((await signA(app, created.key, folder)).status).toBe(403)
    const grant = await admin(adminApp, env, 'POST', '/grants', {
      to: `apiKey:${created.id}`,
      origin: 'photos',
      prefix: `${folder}/`,
      actions: ['read'],
    })
    expect(grant.status).toBe(201)
    const { id } = await grant.json<{ id: string }>()
    // Another Worker's caches: within the control plane's bound, not at once.
    clock.advance(CONTROL_MAX_AGE_MS)
    expect((await signA(app, created.key, folder)).status).toBe(200)
    const listed = await (
      await admin(adminApp, env, 'GET', `/grants?to=${encodeURIComponent(`apiKey:${created.id}`)}`)
    ).json<{ grants: { id: string }[] }>()
    expect(listed.grants.map((g) => g.id)).toEqual([id])
    expect((await admin(adminApp, env, 'DELETE', `/grants/${id}`)).status).toBe(204)
    clock.advance(CONTROL_MAX_AGE_MS)
    expect((await signA(app, created.key, folder)).status).toBe(403)
    expect((await admin(adminApp, env, 'DELETE', `/grants/${id}`)).status).toBe(404)
  })

  it('adds to the env grants of an env key; its limits are one grant’s, never combined', async () => {
    const { app, adminApp } = appWithClock(NOW)
    const folder = fresh('f')
    // "all" holds read, write and delete on photos in the env; this adds a debug grant.
    const grant = await admin(adminApp, env, 'POST', '/grants', {
      to: 'apiKey:all',
      origin: 'photos',
      prefix: `${folder}/`,
      actions: ['debug'],
    })
    expect(grant.status).toBe(201)
    const debug = await send(app, env, 'POST', '/v1/sign', {
      bearer: ALL_KEY,
      body: { origin: 'photos', keys: [`${folder}/a.jpg`], debug: true },
    })
    expect(debug.status).toBe(200)
    await admin(adminApp, env, 'DELETE', `/grants/${(await grant.json<{ id: string }>()).id}`)
  })

  it('refuses a grant the schema of WAYBILL_GRANTS refuses, naming each field', async () => {
    const { adminApp } = appWithClock(NOW)
    const response = await admin(adminApp, env, 'POST', '/grants', {
      to: 'apiKey:x',
      origin: 'nowhere',
      actions: ['read'],
      prefix: '../x',
    })
    expect(response.status).toBe(400)
    expect((await problemOf(response)).errors?.map((e) => e.path)).toContain('prefix')
    // What the deployment's origins are, the document cannot say: none is not found (404).
    const origin = await admin(adminApp, env, 'POST', '/grants', {
      to: 'apiKey:x',
      origin: 'nowhere',
      actions: ['read'],
    })
    expect(origin.status).toBe(404)
    expect((await problemOf(origin)).errors?.map((e) => e.path)).toEqual(['origin'])
  })

  it("refuses what an origin cannot hold (403), as the callers' routes refuse what it cannot serve", async () => {
    const { adminApp } = appWithClock(NOW)
    const { photos, docs } = S3_AND_CDN_ORIGINS
    const loose = {
      type: 's3',
      bucket: 'loose',
      region: 'us-east-1',
      credentials: 'MAIN',
      keys: 'any',
    }
    const looseEnv = await withControl(
      await testEnv({ WAYBILL_ORIGINS: JSON.stringify({ photos, docs, loose }) }),
    )
    const grant = (body: object) =>
      admin(adminApp, looseEnv, 'POST', '/grants', { to: 'apiKey:x', actions: ['write'], ...body })
    // A prefix means nothing where keys such as "a/../b" are signed as they are.
    const prefixed = await grant({ origin: 'loose', prefix: 'a/' })
    expect(prefixed.status).toBe(403)
    expect((await problemOf(prefixed)).errors?.map((e) => e.path)).toEqual(['prefix'])
    // An uploadKey outside the prefix would choose keys the grant does not cover.
    const outside = await grant({ origin: 'photos', prefix: 'a/', uploadKey: 'b/{uuid}' })
    expect(outside.status).toBe(403)
    expect((await problemOf(outside)).errors?.map((e) => e.path)).toEqual(['uploadKey'])
  })
})

describe('quotas', () => {
  it('are set and listed; under one, a bare PUT URL (any size) is refused for POST /v1/uploads', async () => {
    const { app, adminApp, clock } = appWithClock(NOW)
    const folder = fresh('f')
    const created = await createKey(adminApp, {
      grants: [{ origin: 'photos', prefix: `${folder}/`, actions: ['write'], overwrite: true }],
    })
    const put = () =>
      send(app, env, 'POST', '/v1/sign', {
        bearer: created.key,
        body: { origin: 'photos', method: 'PUT', keys: [`${folder}/a.bin`] },
      })
    expect((await put()).status).toBe(200)
    const quota = await admin(adminApp, env, 'POST', '/quotas', {
      to: `apiKey:${created.id}`,
      origin: 'photos',
      maxBytes: 1000,
      windowS: 86_400,
    })
    expect(quota.status).toBe(201)
    const { id } = await quota.json<{ id: string }>()
    clock.advance(CONTROL_MAX_AGE_MS)
    const refused = await put()
    expect(refused.status).toBe(403)
    const problem = await problemOf(refused)
    expect(problem.detail).toContain(id)
    expect(problem.errors?.map((e) => e.path)).toEqual(['method'])
    const again = await admin(adminApp, env, 'POST', '/quotas', {
      to: `apiKey:${created.id}`,
      origin: 'photos',
      maxObjects: 1,
      windowS: 60,
    })
    // One per subject and origin: another is a conflict with it (409).
    expect(again.status).toBe(409)
    expect((await problemOf(again)).errors?.map((e) => e.path)).toEqual(['to'])
    const listed = await (await admin(adminApp, env, 'GET', '/quotas?limit=1000')).text()
    expect(listed).toContain(id)
    expect((await admin(adminApp, env, 'DELETE', `/quotas/${id}`)).status).toBe(204)
    clock.advance(CONTROL_MAX_AGE_MS)
    expect((await put()).status).toBe(200)
  })
})

describe('revocations', () => {
  it('revokes a key: refused by the data plane within the bound, and listed', async () => {
    const { app, adminApp, clock } = appWithClock(NOW)
    const folder = fresh('f')
    const created = await createKey(adminApp, {
      grants: [{ origin: 'photos', prefix: `${folder}/`, actions: ['read'] }],
    })
    expect((await signA(app, created.key, folder)).status).toBe(200)
    const revoked = await admin(adminApp, env, 'POST', '/revocations', {
      kind: 'key',
      key: created.id,
    })
    expect(revoked.status).toBe(201)
    // The admin plane is another Worker: the data plane's caches hold the key until the bound.
    expect((await signA(app, created.key, folder)).status).toBe(200)
    clock.advance(CONTROL_MAX_AGE_MS)
    expect((await signA(app, created.key, folder)).status).toBe(401)
    const unknown = await admin(adminApp, env, 'POST', '/revocations', {
      kind: 'key',
      key: fresh('no'),
    })
    expect(unknown.status).toBe(404)
    // A revoked key stays revoked: rotating it is a conflict with that (409).
    const rotate = await admin(adminApp, env, 'POST', `/keys/${created.id}/rotate`, {})
    expect(rotate.status).toBe(409)
    const list = await admin(adminApp, env, 'GET', '/revocations?limit=1000')
    expect(await list.text()).toContain(created.id)
  })

  // A link revoked again: test/e2e/control-plane.test.ts (a link revoked by id here would reach
  // every file sharing this database, and test/control/plane.test.ts needs none).
  it('revoking a key again is a 409 naming it, since when, and records nothing more', async () => {
    const { adminApp, clock } = appWithClock(NOW)
    const created = await createKey(adminApp, { grants: [{ origin: 'photos', actions: ['read'] }] })
    const body = { kind: 'key', key: created.id }
    expect((await admin(adminApp, env, 'POST', '/revocations', body)).status).toBe(201)
    clock.advance(60_000)
    const again = await admin(adminApp, env, 'POST', '/revocations', body)
    expect(again.status).toBe(409)
    const problem = await problemOf(again)
    expect(problem.type).toBe('urn:waybill:problem:conflict')
    expect(problem.errors).toEqual([
      { path: 'key', message: `is revoked already, since ${NOW.toISOString()}` },
    ])
    const list = await admin(adminApp, env, 'GET', '/revocations?limit=1000')
    const { revocations } = await list.json<{ revocations: { key?: string }[] }>()
    expect(revocations.filter((r) => r.key === created.id)).toHaveLength(1)
  })

  it("revokes a caller's links by its one name, the name grants and usage give it", async () => {
    const { app, adminApp, clock } = appWithClock(NOW)
    const folder = fresh('f')
    const created = await createKey(adminApp, {
      grants: [{ origin: 'photos', prefix: `${folder}/`, actions: ['read'] }],
    })
    const other = await createKey(adminApp, {
      grants: [{ origin: 'photos', prefix: `${folder}/`, actions: ['read'] }],
    })
    const link = async (key: string) => {
      const issued = await send(app, env, 'POST', '/v1/links', {
        bearer: key,
        body: { origin: 'photos', keys: [`${folder}/a.jpg`] },
      })
      expect(issued.status).toBe(200)
      return new URL((await issued.json<{ links: { url: string }[] }>()).links[0]!.url).pathname
    }
    const [mine, theirs] = [await link(created.key), await link(other.key)]
    clock.advance(1000)
    const revoked = await admin(adminApp, env, 'POST', '/revocations', {
      kind: 'links',
      issuedBefore: clock.now.toISOString(),
      principal: `apiKey:${created.id}`,
    })
    expect(revoked.status).toBe(201)
    expect((await app.request(mine, {}, env)).status).toBe(410)
    expect((await app.request(theirs, {}, env)).status).toBe(302)
  })

  it('takes the same revocations by time as WAYBILL_LINK_REVOCATIONS', async () => {
    const { adminApp } = appWithClock(NOW)
    const response = await admin(adminApp, env, 'POST', '/revocations', {
      kind: 'links',
      issuedBefore: '2000-01-01T00:00:00Z',
      origin: 'photos',
      principal: 'api-key:nobody',
    })
    expect(response.status).toBe(201)
    expect(await response.json()).toMatchObject({
      kind: 'links',
      issuedBefore: '2000-01-01T00:00:00.000Z',
      origin: 'photos',
      // One spelling of callers: the one before it (`api-key:`) is read as `apiKey:`.
      principal: 'apiKey:nobody',
    })
  })
})

describe('who may call the admin API', () => {
  it('an admin token only: a caller’s key, no credentials and a forged token are 401', async () => {
    const { adminApp } = appWithClock(NOW)
    const adminEnv = await adminEnvOf(env)
    for (const bearer of [ALL_KEY, `${ADMIN_TOKEN}x`, undefined]) {
      const response = await send(adminApp, adminEnv, 'GET', '/admin/v1/keys', { bearer })
      expect(response.status).toBe(401)
      expect(response.headers.get('www-authenticate')).toMatch(
        /^Bearer realm="waybill", scope="admin"/,
      )
    }
    expect((await admin(adminApp, env, 'GET', '/keys')).status).toBe(200)
  })

  it('an admin token never signs', async () => {
    const { app } = appWithClock(NOW)
    const response = await send(app, env, 'POST', '/v1/sign', {
      bearer: ADMIN_TOKEN,
      body: { origin: 'photos', keys: ['a.jpg'] },
    })
    expect(response.status).toBe(401)
  })

  it('with no admin method configured, every admin request is refused', async () => {
    const { adminApp } = appWithClock(NOW)
    const bare = { ...(await adminEnvOf(env)), WAYBILL_ADMIN_TOKENS: undefined }
    const none = await send(adminApp, bare, 'GET', '/admin/v1/keys')
    expect(none.status).toBe(401)
    expect((await problemOf(none)).detail).toContain('No admin authentication is configured')
    const token = await send(adminApp, bare, 'GET', '/admin/v1/keys', { bearer: ADMIN_TOKEN })
    expect((await problemOf(token)).detail).toContain('not an admin token')
  })

  describe('Cloudflare Access', () => {
    let accessKey: TestKey
    let accessEnv: Env
    const server = new FakeJwksServer()
    const adminApp = createAdminApp({ clock: () => NOW, fetch: server.fetch })
    const token = (email: string) =>
      sign(accessKey, { iss: ACCESS_TEAM, aud: ACCESS_AUD, sub: `id-${email}`, email })
    const asAccess = async (email: string, environment?: AdminEnv) =>
      adminApp.request(
        '/admin/v1/keys',
        { headers: { 'cf-access-jwt-assertion': await token(email) } },
        environment ?? (await adminEnvOf(accessEnv)),
      )

    beforeAll(async () => {
      accessKey = await makeKey('RS256', 'access')
      server.sets.set(ACCESS_CERTS, { keys: [accessKey.publicJwk] })
      accessEnv = await withControl(
        await testEnv({
          WAYBILL_AUTH: JSON.stringify({
            access: { teamDomain: ACCESS_TEAM, aud: ACCESS_AUD, admins: ['ops@example.com'] },
          }),
        }),
      )
    })

    it('an identity with the admin role may call; another is 403', async () => {
      expect((await asAccess('ops@example.com')).status).toBe(200)
      const other = await asAccess('dev@example.com')
      expect(other.status).toBe(403)
      expect((await problemOf(other)).detail).toContain('admin role')
    })

    it("when Access's keys cannot be fetched, 503 auth_unavailable: no admin gets through", async () => {
      const down = new FakeJwksServer()
      down.down = true
      const jwt = await token('ops@example.com')
      const response = await createAdminApp({ clock: () => NOW, fetch: down.fetch }).request(
        '/admin/v1/keys',
        { headers: { 'cf-access-jwt-assertion': jwt } },
        await adminEnvOf(accessEnv),
      )
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).not.toBeNull()
      expect((await problemOf(response)).type).toBe('urn:waybill:problem:auth_unavailable')
    })

    it('without the control plane’s database, an admin learns it: 503 naming WAYBILL_DB', async () => {
      const bare = { ...(await adminEnvOf(accessEnv)), WAYBILL_DB: undefined }
      const response = await asAccess('ops@example.com', bare)
      expect(response.status).toBe(503)
      expect((await problemOf(response)).errors?.map((e) => e.path)).toEqual(['WAYBILL_DB'])
    })
  })
})

describe('the epoch bound', () => {
  it('is the limit every isolate is held to', () => {
    expect(CONTROL_MAX_AGE_MS).toBeLessThanOrEqual(5_000)
  })
})
