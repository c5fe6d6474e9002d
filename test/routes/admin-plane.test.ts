// The admin plane's own answers (issue #31): the audit trail of every admin write, keys relabeled
// and given another expiry, revocations undone, grants to keys that do not exist, quotas read from
// their counters and changed in place, and the grants that reach a caller. The pool's local D1;
// the admin app beside the data app, each on a clock the test moves.

import { beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import { CONTROL_MAX_AGE_MS } from '../../src/limits'
import {
  ADMIN_TOKEN,
  admin,
  appWithClock,
  fresh,
  send,
  withControl,
} from '../helpers/control-plane'
import { sha256Hex } from '../helpers/hex'
import { ALL_KEY, NOW, problemOf, testEnv } from '../helpers/routes'

let env: Env

beforeAll(async () => {
  env = await withControl(await testEnv())
})

type Apps = ReturnType<typeof appWithClock>

interface AuditEvent {
  id: string
  at: string
  actor: string
  action: string
  outcome: string
  target: string | null
  key: string | null
  principal: string | null
  count: number
  before: unknown
  after: unknown
}

async function json<T>(response: Response | Promise<Response>, status = 200): Promise<T> {
  const answer = await response
  expect(answer.status, await answer.clone().text()).toBe(status)
  return answer.json<T>()
}

async function newKey({ adminApp }: Apps, body: object = {}) {
  return json<{ id: string; key: string; grants: { id: string }[] }>(
    admin(adminApp, env, 'POST', '/keys', body),
    201,
  )
}

const sign = ({ app }: Apps, key: string, keys = ['a.jpg']) =>
  send(app, env, 'POST', '/v1/sign', { bearer: key, body: { origin: 'photos', keys } }).then(
    (response) => response.status,
  )

describe('the audit trail', () => {
  it('records every admin write with who, what, which record, before and after, never a secret', async () => {
    const apps = appWithClock(NOW)
    const { adminApp, clock } = apps
    const step = () => clock.advance(1000)
    const made = await newKey(apps, {
      label: 'audited',
      grants: [{ origin: 'photos', actions: ['read'] }],
    })
    step()
    await json(admin(adminApp, env, 'PATCH', `/keys/${made.id}`, { label: 'renamed' }))
    step()
    const { key: rotated } = await json<{ key: string }>(
      admin(adminApp, env, 'POST', `/keys/${made.id}/rotate`, { overlapS: 0 }),
    )
    step()
    const grant = await json<{ id: string }>(
      admin(adminApp, env, 'POST', '/grants', {
        to: `apiKey:${made.id}`,
        origin: 'photos',
        actions: ['list'],
      }),
      201,
    )
    step()
    expect((await admin(adminApp, env, 'DELETE', `/grants/${grant.id}`)).status).toBe(204)
    step()
    const quota = await json<{ id: string }>(
      admin(adminApp, env, 'POST', '/quotas', {
        to: `apiKey:${made.id}`,
        origin: 'photos',
        maxObjects: 3,
        windowS: 3600,
      }),
      201,
    )
    step()
    await json(admin(adminApp, env, 'PATCH', `/quotas/${quota.id}`, { maxObjects: 4 }))
    step()
    expect((await admin(adminApp, env, 'DELETE', `/quotas/${quota.id}`)).status).toBe(204)
    step()
    const revocation = await json<{ id: string }>(
      admin(adminApp, env, 'POST', '/revocations', { kind: 'key', key: made.id }),
      201,
    )
    step()
    expect((await admin(adminApp, env, 'DELETE', `/revocations/${revocation.id}`)).status).toBe(204)
    // A write refused records nothing: the grant is gone already.
    expect((await admin(adminApp, env, 'DELETE', `/grants/${grant.id}`)).status).toBe(404)

    const text = await (await admin(adminApp, env, 'GET', `/audit?key=${made.id}`)).text()
    const { events } = JSON.parse(text) as { events: AuditEvent[] }
    expect(events.map((event) => [event.action, event.target])).toEqual([
      ['revocation.delete', revocation.id],
      ['revocation.create', revocation.id],
      ['quota.delete', quota.id],
      ['quota.update', quota.id],
      ['quota.create', quota.id],
      ['grant.delete', grant.id],
      ['grant.create', grant.id],
      ['key.rotate', made.id],
      ['key.update', made.id],
      ['key.create', made.id],
    ])
    for (const event of events) {
      expect(event).toMatchObject({
        actor: 'admin:ops',
        outcome: 'ok',
        key: made.id,
        count: 1,
      })
    }
    expect(events.find((e) => e.action === 'key.update')).toMatchObject({
      before: { label: 'audited', expiresAt: null },
      after: { label: 'renamed', expiresAt: null },
    })
    expect(events.find((e) => e.action === 'quota.update')).toMatchObject({
      principal: `apiKey:${made.id}`,
      before: { maxObjects: 3 },
      after: { maxObjects: 4 },
    })
    expect(events.find((e) => e.action === 'grant.delete')).toMatchObject({
      before: { id: grant.id, grant: { to: `apiKey:${made.id}`, actions: ['list'] } },
    })
    // Never a key, a hash, or the admin token.
    for (const secret of [made.key, rotated, ADMIN_TOKEN]) {
      expect(text).not.toContain(secret)
      expect(text).not.toContain(await sha256Hex(secret))
    }
  })

  it('filters by principal, action (or its first word), outcome and time, a page at a time', async () => {
    const apps = appWithClock(NOW)
    const { adminApp, clock } = apps
    const made = await newKey(apps)
    clock.advance(60_000)
    const later = clock.now.toISOString()
    await json(admin(adminApp, env, 'PATCH', `/keys/${made.id}`, { label: 'x' }))
    // Events of one millisecond come in no order of their own: a millisecond apart.
    clock.advance(1)
    await json(admin(adminApp, env, 'POST', `/keys/${made.id}/rotate`, {}))
    const page = (query: string) =>
      json<{ events: AuditEvent[]; cursor: string | null }>(
        admin(adminApp, env, 'GET', `/audit?${query}`),
      )
    const actions = async (query: string) => (await page(query)).events.map((e) => e.action)
    expect(await actions(`principal=apiKey:${made.id}`)).toEqual([
      'key.rotate',
      'key.update',
      'key.create',
    ])
    expect(await actions(`key=${made.id}&action=key.update`)).toEqual(['key.update'])
    expect(await actions(`key=${made.id}&action=key`)).toHaveLength(3)
    expect(await actions(`key=${made.id}&from=${encodeURIComponent(later)}`)).toEqual([
      'key.rotate',
      'key.update',
    ])
    expect(await actions(`key=${made.id}&outcome=refused`)).toEqual([])
    const first = await page(`key=${made.id}&limit=2`)
    expect(first.events.map((e) => e.action)).toEqual(['key.rotate', 'key.update'])
    const next = await page(`key=${made.id}&limit=2&cursor=${first.cursor!}`)
    expect(next.events.map((e) => e.action)).toEqual(['key.create'])
    expect(next.cursor).toBeNull()
    const backwards = await admin(
      adminApp,
      env,
      'GET',
      `/audit?from=${encodeURIComponent(later)}&to=${encodeURIComponent(NOW.toISOString())}`,
    )
    expect(backwards.status).toBe(400)
    expect((await problemOf(backwards)).errors?.map((e) => e.path)).toEqual(['from'])
  })
})

describe('a key changed in place', () => {
  it('is relabeled, given an expiry (refused from then, within the bound), and given none again', async () => {
    const apps = appWithClock(NOW)
    const { adminApp, clock } = apps
    const made = await newKey(apps, {
      label: 'before',
      grants: [{ origin: 'photos', actions: ['read'] }],
    })
    expect(await sign(apps, made.key)).toBe(200)
    const soon = new Date(NOW.getTime() + 60_000).toISOString()
    const patched = await json<{ label: string; expiresAt: string }>(
      admin(adminApp, env, 'PATCH', `/keys/${made.id}`, { label: 'after', expiresAt: soon }),
    )
    expect(patched).toMatchObject({ label: 'after', expiresAt: soon })
    clock.advance(60_000)
    expect(await sign(apps, made.key)).toBe(401)
    await json(admin(adminApp, env, 'PATCH', `/keys/${made.id}`, { expiresAt: null }))
    clock.advance(CONTROL_MAX_AGE_MS)
    expect(await sign(apps, made.key)).toBe(200)
    const shown = await json<{ label: string; expiresAt: null }>(
      admin(adminApp, env, 'GET', `/keys/${made.id}`),
    )
    expect(shown).toMatchObject({ label: 'after', expiresAt: null })
  })

  it('refuses a body that names nothing, and a key that is not there', async () => {
    const { adminApp } = appWithClock(NOW)
    const empty = await admin(adminApp, env, 'PATCH', `/keys/${fresh('k')}`, {})
    expect(empty.status).toBe(400)
    expect((await problemOf(empty)).errors?.map((e) => e.path)).toEqual(['label'])
    const none = await admin(adminApp, env, 'PATCH', `/keys/${fresh('k')}`, { label: 'x' })
    expect(none.status).toBe(404)
  })
})

describe('a revocation undone', () => {
  it('lets the key authenticate again, and is itself gone', async () => {
    const apps = appWithClock(NOW)
    const { adminApp, clock } = apps
    const made = await newKey(apps, { grants: [{ origin: 'photos', actions: ['read'] }] })
    const { id } = await json<{ id: string }>(
      admin(adminApp, env, 'POST', '/revocations', { kind: 'key', key: made.id }),
      201,
    )
    clock.advance(CONTROL_MAX_AGE_MS)
    expect(await sign(apps, made.key)).toBe(401)
    expect((await admin(adminApp, env, 'DELETE', `/revocations/${id}`)).status).toBe(204)
    clock.advance(CONTROL_MAX_AGE_MS)
    expect(await sign(apps, made.key)).toBe(200)
    const shown = await json<{ revokedAt: string | null }>(
      admin(adminApp, env, 'GET', `/keys/${made.id}`),
    )
    expect(shown.revokedAt).toBeNull()
    expect((await admin(adminApp, env, 'DELETE', `/revocations/${id}`)).status).toBe(404)
    // Revoked again: a record of its own.
    expect(
      (await admin(adminApp, env, 'POST', '/revocations', { kind: 'key', key: made.id })).status,
    ).toBe(201)
  })
})

describe('a grant to an API key', () => {
  it('is a 404 naming `to` when no key has that id, unless allowUnknownKey says it is for one to come', async () => {
    const { adminApp } = appWithClock(NOW)
    const grant = (id: string) => ({ to: `apiKey:${id}`, origin: 'photos', actions: ['read'] })
    const unknown = fresh('later')
    const refused = await admin(adminApp, env, 'POST', '/grants', grant(unknown))
    expect(refused.status).toBe(404)
    expect((await problemOf(refused)).errors?.map((e) => e.path)).toEqual(['to'])
    const meant = await admin(adminApp, env, 'POST', '/grants?allowUnknownKey=true', grant(unknown))
    expect(meant.status).toBe(201)
    // A key of WAYBILL_API_KEYS is a key.
    expect((await admin(adminApp, env, 'POST', '/grants', grant('all'))).status).toBe(201)
  })
})

describe('the grants that reach a caller', () => {
  it("are the env's and the stored ones, naming it or anyone; a token caller's roles and email too", async () => {
    const apps = appWithClock(NOW)
    const { adminApp } = apps
    const role = fresh('role')
    const made = await newKey(apps, { grants: [{ origin: 'photos', actions: ['read'] }] })
    await json(
      admin(adminApp, env, 'POST', '/grants', {
        to: `role:${role}`,
        origin: 'docs',
        actions: ['read'],
      }),
      201,
    )
    type Effective = { source: string; via: string; id: string | null; grant: { to: string } }
    const key = await json<{ grants: Effective[] }>(admin(adminApp, env, 'GET', `/keys/${made.id}`))
    expect(key.grants).toEqual([
      expect.objectContaining({ source: 'stored', via: 'direct', id: made.grants[0]!.id }),
    ])
    // An env key: its WAYBILL_GRANTS entries, by source.
    const all = await json<{ grants: Effective[] }>(
      admin(adminApp, env, 'GET', '/grants/effective?caller=apiKey:all'),
    )
    expect(all.grants.filter((g) => g.source === 'env').map((g) => g.grant.to)).toContain(
      'apiKey:all',
    )
    const token = await json<{ grants: Effective[] }>(
      admin(adminApp, env, 'GET', `/grants/effective?caller=jwt:${fresh('sub')}&role=${role}`),
    )
    expect(token.grants.filter((g) => g.via === 'role').map((g) => g.grant.to)).toEqual([
      `role:${role}`,
    ])
    // The same role never reaches an API key: keys hold none.
    const asKey = await json<{ grants: Effective[] }>(
      admin(adminApp, env, 'GET', `/grants/effective?caller=apiKey:${made.id}&role=${role}`),
    )
    expect(asKey.grants.map((g) => g.via)).not.toContain('role')
    // One role of up to 200 characters, as the OpenAPI document says (50 is the most roles, not
    // a role's length: Schemathesis found the document saying otherwise).
    const long = 'r'.repeat(120)
    const longRole = await admin(
      adminApp,
      env,
      'GET',
      `/grants/effective?caller=jwt:${fresh('sub')}&role=${long}`,
    )
    expect(longRole.status).toBe(200)
    const many = Array.from({ length: 50 }, (_, i) => `role=r${i}`).join('&')
    const fifty = await admin(adminApp, env, 'GET', `/grants/effective?caller=jwt:a&${many}`)
    expect(fifty.status).toBe(200)
  })
})

describe('a quota', () => {
  it('shows what its key has used, the room left and when the window resets', async () => {
    const apps = appWithClock(NOW)
    const { app, adminApp } = apps
    const made = await newKey(apps, {
      grants: [{ origin: 'photos', prefix: 'q/', actions: ['write'] }],
    })
    const quota = await json<{ id: string }>(
      admin(adminApp, env, 'POST', '/quotas', {
        to: `apiKey:${made.id}`,
        origin: 'photos',
        maxObjects: 3,
        maxBytes: 1000,
        windowS: 3600,
      }),
      201,
    )
    const upload = await send(app, env, 'POST', '/v1/uploads', {
      bearer: made.key,
      body: {
        origin: 'photos',
        key: `q/${fresh('f')}`,
        contentType: 'text/plain',
        contentLength: 100,
      },
    })
    expect(upload.status, await upload.clone().text()).toBe(200)
    const shown = await json<{ use: Record<string, unknown> }>(
      admin(adminApp, env, 'GET', `/quotas/${quota.id}`),
    )
    expect(shown.use).toEqual({
      caller: `apiKey:${made.id}`,
      objects: 1,
      bytes: 100,
      held: 1,
      remainingObjects: 2,
      remainingBytes: 900,
      windowStart: '2026-11-23T10:00:00.000Z',
      resetAt: '2026-11-23T11:00:00.000Z',
    })
    const listed = await json<{ quotas: { id: string; use: { objects: number } | null }[] }>(
      admin(adminApp, env, 'GET', '/quotas?limit=1000'),
    )
    expect(listed.quotas.find((q) => q.id === quota.id)?.use?.objects).toBe(1)
    // Another caller's use, asked for: none yet.
    const other = await json<{ use: { objects: number } }>(
      admin(adminApp, env, 'GET', `/quotas/${quota.id}?caller=apiKey:${fresh('k')}`),
    )
    expect(other.use.objects).toBe(0)
  })

  it('is changed in place: raising 1 upload to 2 allows one more, not two; both limits null is refused', async () => {
    const apps = appWithClock(NOW)
    const { app, adminApp, clock } = apps
    const made = await newKey(apps, {
      grants: [{ origin: 'photos', prefix: 'p/', actions: ['write'] }],
    })
    const quota = await json<{ id: string }>(
      admin(adminApp, env, 'POST', '/quotas', {
        to: `apiKey:${made.id}`,
        origin: 'photos',
        maxObjects: 1,
        windowS: 3600,
      }),
      201,
    )
    const upload = () =>
      send(app, env, 'POST', '/v1/uploads', {
        bearer: made.key,
        body: {
          origin: 'photos',
          key: `p/${fresh('f')}`,
          contentType: 'text/plain',
          contentLength: 1,
        },
      }).then((response) => response.status)
    expect(await upload()).toBe(200)
    expect(await upload()).toBe(429)
    const patched = await json<{
      maxObjects: number
      use: { objects: number; remainingObjects: number }
    }>(admin(adminApp, env, 'PATCH', `/quotas/${quota.id}`, { maxObjects: 2 }))
    expect(patched).toMatchObject({ maxObjects: 2, use: { objects: 1, remainingObjects: 1 } })
    clock.advance(CONTROL_MAX_AGE_MS)
    expect(await upload()).toBe(200)
    expect(await upload()).toBe(429)
    const nothing = await admin(adminApp, env, 'PATCH', `/quotas/${quota.id}`, { maxObjects: null })
    expect(nothing.status).toBe(403)
  })
})

describe('the admin plane and a caller', () => {
  it("never takes a caller's key", async () => {
    const { adminApp } = appWithClock(NOW)
    const { adminEnvOf } = await import('../helpers/control-plane')
    const response = await send(adminApp, await adminEnvOf(env), 'GET', '/admin/v1/audit', {
      bearer: ALL_KEY,
    })
    expect(response.status).toBe(401)
  })
})

describe('a revoked or expired key refused', () => {
  it('is a 401 that names no key, and a log line, an audit event and an audit record that do', async () => {
    const { createExecutionContext, waitOnExecutionContext } = await import('cloudflare:test')
    const { vi } = await import('vitest')
    const { USAGE_FLUSH_MS } = await import('../../src/limits')
    const apps = appWithClock(NOW)
    const { adminApp, clock } = apps
    const made = await newKey(apps, { grants: [{ origin: 'photos', actions: ['read'] }] })
    const soon = await newKey(apps, {
      grants: [{ origin: 'photos', actions: ['read'] }],
      expiresAt: new Date(NOW.getTime() + 1000).toISOString(),
    })
    await json(admin(adminApp, env, 'POST', '/revocations', { kind: 'key', key: made.id }), 201)
    clock.advance(CONTROL_MAX_AGE_MS)
    const events: { outcome: string; keyId?: string; status: number }[] = []
    const sinkEnv: Env = {
      ...env,
      WAYBILL_AUDIT_QUEUE: {
        send: (event: (typeof events)[number]) => (events.push(event), Promise.resolve()),
      },
    }
    const logged = vi.spyOn(console, 'log').mockImplementation(() => undefined)
    try {
      const ctx = createExecutionContext()
      for (const key of [made.key, made.key, soon.key]) {
        const refused = await send(apps.app, sinkEnv, 'POST', '/v1/sign', {
          bearer: key,
          body: { origin: 'photos', keys: ['a.jpg'] },
          ctx,
        })
        expect(refused.status).toBe(401)
        const body = await refused.text()
        expect(body).not.toContain(made.id)
        expect(body).not.toContain(soon.id)
      }
      // The refusals are written with the next write that is due.
      clock.advance(USAGE_FLUSH_MS)
      await send(apps.app, sinkEnv, 'POST', '/v1/sign', {
        bearer: ALL_KEY,
        body: { origin: 'photos', keys: ['a.jpg'] },
        ctx,
      })
      await waitOnExecutionContext(ctx)
      const lines = logged.mock.calls
        .map(([line]) => JSON.parse(String(line)) as Record<string, unknown>)
        .filter((line) => line.message === 'request' && line.status === 401)
      expect(lines.map((line) => [line.keyId, line.refusal])).toEqual([
        [made.id, 'revoked'],
        [made.id, 'revoked'],
        [soon.id, 'expired'],
      ])
    } finally {
      vi.restoreAllMocks()
    }
    expect(events.filter((e) => e.status === 401).map((e) => [e.outcome, e.keyId])).toEqual([
      ['refused', made.id],
      ['refused', made.id],
      ['refused', soon.id],
    ])
    const trail = await json<{ events: AuditEvent[] }>(
      admin(adminApp, env, 'GET', '/audit?action=auth.refused&outcome=refused&limit=1000'),
    )
    const mine = trail.events.filter((e) => e.key === made.id || e.key === soon.id)
    expect(mine.map((e) => [e.key, e.actor, e.count, e.principal])).toEqual(
      expect.arrayContaining([
        [made.id, `apiKey:${made.id}`, 2, `apiKey:${made.id}`],
        [soon.id, `apiKey:${soon.id}`, 1, `apiKey:${soon.id}`],
      ]),
    )
    expect(mine).toHaveLength(2)
  })
})

describe('usage across callers', () => {
  it("totals every caller's use by day and origin, and ranks the callers that did the most", async () => {
    const { createExecutionContext, waitOnExecutionContext } = await import('cloudflare:test')
    const { USAGE_FLUSH_MS } = await import('../../src/limits')
    // A day of their own: the database is shared with every other test.
    const apps = appWithClock(new Date('2031-03-03T12:00:00Z'))
    const { adminApp, clock } = apps
    const busy = await newKey(apps, { grants: [{ origin: 'photos', actions: ['read', 'write'] }] })
    const quiet = await newKey(apps, { grants: [{ origin: 'photos', actions: ['read'] }] })
    const ctx = createExecutionContext()
    const signs = async (key: string, n: number) => {
      const response = await send(apps.app, env, 'POST', '/v1/sign', {
        bearer: key,
        body: { origin: 'photos', keys: Array.from({ length: n }, (_, i) => `k${i}`) },
        ctx,
      })
      expect(response.status).toBe(200)
    }
    await signs(busy.key, 5)
    await signs(quiet.key, 2)
    const upload = await send(apps.app, env, 'POST', '/v1/uploads', {
      bearer: busy.key,
      body: { origin: 'photos', key: 'up.txt', contentType: 'text/plain', contentLength: 700 },
      ctx,
    })
    expect(upload.status).toBe(200)
    await send(apps.app, env, 'POST', '/v1/sign', {
      bearer: quiet.key,
      body: { origin: 'docs', keys: ['x'] },
      ctx,
    })
    clock.advance(USAGE_FLUSH_MS)
    await signs(quiet.key, 1)
    await waitOnExecutionContext(ctx)
    const all = await json<{ principal: null; days: Record<string, unknown>[] }>(
      admin(adminApp, env, 'GET', '/usage?from=2031-03-03&to=2031-03-03'),
    )
    expect(all.principal).toBeNull()
    expect(all.days).toEqual([
      expect.objectContaining({ origin: 'docs', refused: 1 }),
      expect.objectContaining({ origin: 'photos', minted: 9, bytesReserved: 700 }),
    ])
    const top = async (query: string) =>
      (
        await json<{ callers: { principal: string; minted: number }[] }>(
          admin(adminApp, env, 'GET', `/usage/top?from=2031-03-03&to=2031-03-03&${query}`),
        )
      ).callers.map((caller) => caller.principal)
    expect(await top('by=minted')).toEqual([`apiKey:${busy.id}`, `apiKey:${quiet.id}`])
    expect(await top('by=bytes')).toEqual([`apiKey:${busy.id}`])
    expect(await top('by=refused')).toEqual([`apiKey:${quiet.id}`])
    expect(await top('by=minted&limit=1')).toEqual([`apiKey:${busy.id}`])
  })
})
