// POST /admin/v1/explain: the verdict the request would get, by which grant, and if not, the rule
// that refuses; for a key (env or stored, standing or not) or a token's claims; and the quota that
// counts its uploads. The data plane answers through the bridge (here over the same env, in the
// same isolate); the admin app adds ids, how each grant reaches the caller, and the quota's use.

import { beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import { CONTROL_MAX_AGE_MS } from '../../src/limits'
import { admin, appWithClock, fresh, send, withControl } from '../helpers/control-plane'
import { HS256_SECRET } from '../fixtures/auth'
import { NOW, problemOf, testEnv } from '../helpers/routes'

let env: Env

beforeAll(async () => {
  env = await withControl(
    await testEnv({
      WAYBILL_AUTH: JSON.stringify({
        jwt: { issuer: 'https://issuer.example', audience: 'waybill', hs256: true },
      }),
      WAYBILL_JWT_HS256_SECRET: HS256_SECRET,
    }),
  )
})

interface Explained {
  allowed: boolean
  status: number
  caller: { principal: string; subjects: string[]; fallen: string | null }
  request: { method: string; path: string; body?: unknown }
  refusal: { code: string; detail: string; errors: { path: string; message: string }[] } | null
  grants: {
    source: string
    id: string | null
    via: string
    permits: boolean
    refusal: { errors: { path: string }[] } | null
    grant: Record<string, unknown>
  }[]
  quota: { id: string; use: { objects: number } | null; fits: boolean | null } | null
}

type Apps = ReturnType<typeof appWithClock>

async function explain({ adminApp }: Apps, body: object): Promise<Explained> {
  const response = await admin(adminApp, env, 'POST', '/explain', body)
  expect(response.status, await response.clone().text()).toBe(200)
  return response.json<Explained>()
}

async function newKey({ adminApp }: Apps, grants: object[], extra: object = {}) {
  const made = await admin(adminApp, env, 'POST', '/keys', { grants, ...extra })
  expect(made.status).toBe(201)
  return made.json<{ id: string; key: string; grants: { id: string }[] }>()
}

describe('explain', () => {
  it('allows a read by the grant that permits it, naming it, as POST /v1/sign would', async () => {
    const apps = appWithClock(NOW)
    const folder = fresh('f')
    const made = await newKey(apps, [
      { origin: 'photos', prefix: `${folder}/`, actions: ['read'] },
      { origin: 'photos', prefix: 'elsewhere/', actions: ['read'] },
    ])
    const answer = await explain(apps, {
      caller: { key: made.id },
      action: 'read',
      origin: 'photos',
      key: `${folder}/a.jpg`,
    })
    expect(answer).toMatchObject({
      allowed: true,
      status: 200,
      refusal: null,
      caller: {
        principal: `apiKey:${made.id}`,
        subjects: [`apiKey:${made.id}`, '*'],
        fallen: null,
      },
      request: {
        method: 'POST',
        path: '/v1/sign',
        body: { origin: 'photos', keys: [`${folder}/a.jpg`] },
      },
    })
    // Stored grants come by id: the two were made in one millisecond, in either order.
    const byId = new Map(answer.grants.map((g) => [g.id, g]))
    expect(byId.get(made.grants[0]!.id)).toMatchObject({
      source: 'stored',
      via: 'direct',
      permits: true,
    })
    expect(byId.get(made.grants[1]!.id)).toMatchObject({
      source: 'stored',
      via: 'direct',
      permits: false,
    })
    expect(byId.get(made.grants[1]!.id)!.refusal?.errors.map((e) => e.path)).toEqual(['keys.0'])
    // What the request itself gets.
    const signed = await send(apps.app, env, 'POST', '/v1/sign', {
      bearer: made.key,
      body: answer.request.body,
    })
    expect(signed.status).toBe(200)
  })

  it('refuses with the rule that refuses, as the request would: the field and the problem', async () => {
    const apps = appWithClock(NOW)
    const made = await newKey(apps, [
      { origin: 'photos', actions: ['write'], contentTypes: ['image/png'], maxContentLength: 100 },
    ])
    const asked = {
      caller: { key: made.id },
      action: 'write',
      origin: 'photos',
      key: `${fresh('f')}/a.pdf`,
      contentType: 'application/pdf',
      contentLength: 10,
    }
    const answer = await explain(apps, asked)
    expect(answer).toMatchObject({
      allowed: false,
      status: 400,
      refusal: { code: 'invalid_request' },
    })
    expect(answer.refusal!.errors.map((e) => e.path)).toEqual(['contentType'])
    expect(answer.grants.map((g) => g.permits)).toEqual([false])
    const real = await send(apps.app, env, 'POST', '/v1/uploads', {
      bearer: made.key,
      body: answer.request.body,
    })
    expect(real.status).toBe(400)
    expect(await problemOf(real)).toMatchObject({
      detail: answer.refusal!.detail,
      errors: answer.refusal!.errors,
    })
    // No grant on the origin: the 403 an unknown origin gets too.
    const none = await explain(apps, { ...asked, origin: 'docs' })
    expect(none).toMatchObject({ allowed: false, status: 403, refusal: { code: 'forbidden' } })
    expect(none.grants).toEqual([])
  })

  it('says a revoked, expired or unknown key is a 401 — and still which grants would reach it', async () => {
    const apps = appWithClock(NOW)
    const made = await newKey(apps, [{ origin: 'photos', actions: ['read'] }])
    const soon = await newKey(apps, [{ origin: 'photos', actions: ['read'] }], {
      expiresAt: new Date(NOW.getTime() + 1000).toISOString(),
    })
    await admin(apps.adminApp, env, 'POST', '/revocations', { kind: 'key', key: made.id })
    apps.clock.advance(CONTROL_MAX_AGE_MS)
    const read = (key: string) =>
      explain(apps, { caller: { key }, action: 'read', origin: 'photos', key: 'a.jpg' })
    const revoked = await read(made.id)
    expect(revoked).toMatchObject({ allowed: false, status: 401, caller: { fallen: 'revoked' } })
    expect(revoked.grants.map((g) => g.permits)).toEqual([true])
    expect((await read(soon.id)).caller.fallen).toBe('expired')
    expect((await read(fresh('nobody'))).caller.fallen).toBe('unknown')
    // A key of WAYBILL_API_KEYS stands while it is configured; its env grants are the env's.
    const all = await read('all')
    expect(all).toMatchObject({ allowed: true, caller: { fallen: null } })
    expect(all.grants.map((g) => [g.source, g.id])).toContainEqual(['env', null])
  })

  it("reads a token caller's claims as authentication would: its roles reach role grants", async () => {
    const apps = appWithClock(NOW)
    const role = fresh('role')
    const folder = fresh('f')
    const made = await admin(apps.adminApp, env, 'POST', '/grants', {
      to: `role:${role}`,
      origin: 'photos',
      prefix: `${folder}/`,
      actions: ['list'],
    })
    expect(made.status).toBe(201)
    const sub = fresh('alice')
    const asked = (claims: object) =>
      explain(apps, { caller: { claims }, action: 'list', origin: 'photos', key: `${folder}/` })
    const withRole = await asked({ sub, roles: [role] })
    expect(withRole).toMatchObject({ allowed: true, caller: { principal: `jwt:${sub}` } })
    expect(withRole.caller.subjects).toContain(`role:${role}`)
    expect(withRole.grants.map((g) => [g.via, g.permits])).toEqual([['role', true]])
    expect(withRole.request).toMatchObject({ method: 'GET' })
    const without = await asked({ sub })
    expect(without).toMatchObject({ allowed: false, status: 403 })
    // Claims no token could carry: a 401, as authentication would answer.
    expect(await asked({ sub: '' })).toMatchObject({ allowed: false, status: 401 })
  })

  it('names the quota that counts the caller, with its use; a full one is the 429 the upload would get', async () => {
    const apps = appWithClock(NOW)
    const made = await newKey(apps, [{ origin: 'photos', prefix: 'q/', actions: ['write'] }])
    const quota = await admin(apps.adminApp, env, 'POST', '/quotas', {
      to: `apiKey:${made.id}`,
      origin: 'photos',
      maxObjects: 1,
      windowS: 3600,
    })
    const { id } = await quota.json<{ id: string }>()
    const asked = {
      caller: { key: made.id },
      action: 'write',
      origin: 'photos',
      key: `q/${fresh('u')}`,
      contentType: 'text/plain',
      contentLength: 5,
    }
    const room = await explain(apps, asked)
    expect(room).toMatchObject({ allowed: true, quota: { id, use: { objects: 0 }, fits: true } })
    const upload = await send(apps.app, env, 'POST', '/v1/uploads', {
      bearer: made.key,
      body: room.request.body,
    })
    expect(upload.status).toBe(200)
    const full = await explain(apps, asked)
    expect(full).toMatchObject({
      allowed: false,
      status: 429,
      refusal: { code: 'quota_exceeded' },
      quota: { id, use: { objects: 1 }, fits: false },
    })
    expect(
      (
        await send(apps.app, env, 'POST', '/v1/uploads', {
          bearer: made.key,
          body: full.request.body,
        })
      ).status,
    ).toBe(429)
  })

  it('refuses a question that is not one (400), and answers nothing without the data plane (503)', async () => {
    const apps = appWithClock(NOW)
    const bad = await admin(apps.adminApp, env, 'POST', '/explain', {
      caller: { key: 'x', claims: {} },
      action: 'fly',
      origin: 'photos',
      key: 'a',
    })
    expect(bad.status).toBe(400)
    expect((await problemOf(bad)).errors?.map((e) => e.path)).toEqual(['caller', 'action'])
    const { adminEnvOf, ADMIN_TOKEN } = await import('../helpers/control-plane')
    const unbound = await apps.adminApp.request(
      '/admin/v1/explain',
      {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          caller: { key: 'all' },
          action: 'read',
          origin: 'photos',
          key: 'a',
        }),
      },
      { ...(await adminEnvOf(env)), WAYBILL_DATA_PLANE: undefined },
    )
    expect(unbound.status).toBe(503)
    expect((await problemOf(unbound)).detail).toContain('WAYBILL_DATA_PLANE')
  })
})
