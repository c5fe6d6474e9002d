// The control plane's caches (src/control/plane.ts) through the app: two apps stand for two
// isolates on one D1, each on a clock the test moves. A change made through one is refused by the
// other by CONTROL_MAX_AGE_MS at the latest; D1 out of reach past that bound is a 503, never a
// signature from what the cache still holds.

import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { env as bindings } from 'cloudflare:workers'
import { describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../../src/config'
import { ControlPlane } from '../../src/control/plane'
import { keyDigest } from '../../src/auth/api-key'
import type { Principal } from '../../src/principal'
import type { Env } from '../../src/env'
import {
  CONTROL_MAX_AGE_MS,
  CONTROL_REFRESH_MS,
  USAGE_FLUSH_MS,
  USAGE_MAX_PENDING_ENTRIES,
} from '../../src/limits'
import { ALL_KEY, NOW, problemOf, testEnv } from '../helpers/routes'
import { admin, appWithClock, fresh, send, withControl } from '../helpers/control-plane'

async function twoIsolates(env: Env) {
  const a = appWithClock(NOW)
  const b = appWithClock(NOW)
  const created = await admin(a.adminApp, env, 'POST', '/keys', {
    grants: [{ origin: 'photos', prefix: `${fresh('f')}/`, actions: ['read'] }],
  })
  const { id, key, grants } = await created.json<{
    id: string
    key: string
    grants: { grant: { prefix: string } }[]
  }>()
  const sign = (isolate: typeof a) =>
    send(isolate.app, env, 'POST', '/v1/sign', {
      bearer: key,
      body: { origin: 'photos', keys: [`${grants[0]!.grant.prefix}a.jpg`] },
    }).then((response) => response.status)
  return { a, b, id, key, sign }
}

describe('a change reaches another isolate within the bound', () => {
  it('a revoked key: still cached just after, refused from CONTROL_MAX_AGE_MS on', async () => {
    const env = await withControl(await testEnv())
    const { a, b, id, sign } = await twoIsolates(env)
    expect(await sign(b)).toBe(200)
    await admin(a.adminApp, env, 'POST', '/revocations', { kind: 'key', key: id })
    // An isolate answers from its cache while its reading of the epoch is fresh…
    expect(await sign(b)).toBe(200)
    // …and is held to CONTROL_MAX_AGE_MS: then it reads the epoch before answering.
    b.clock.advance(CONTROL_MAX_AGE_MS)
    expect(await sign(b)).toBe(401)
  })

  it('once the reading is CONTROL_REFRESH_MS old, a request refreshes it after its answer', async () => {
    const env = await withControl(await testEnv())
    const { a, b, id, sign } = await twoIsolates(env)
    expect(await sign(b)).toBe(200)
    await admin(a.adminApp, env, 'POST', '/revocations', { kind: 'key', key: id })
    b.clock.advance(CONTROL_REFRESH_MS)
    // This one is answered from the cache and reads the epoch afterwards…
    expect(await sign(b)).toBe(200)
    // …so the next one, still inside the bound, is refused.
    await vi.waitFor(async () => expect(await sign(b)).toBe(401))
  })
})

/**
 * A D1 binding that fails every call while `down` is set, as D1 out of reach would; only its
 * batches (writes) while `batchDown` is.
 */
function flaky(db: D1Database) {
  const state = { down: false, batchDown: false }
  const guard = <T>(call: () => T, batch = false): T => {
    if (state.down || (batch && state.batchDown)) {
      throw new Error('D1_ERROR: Network connection lost.')
    }
    return call()
  }
  const binding = {
    prepare: (sql: string) => {
      const statement = db.prepare(sql)
      const wrap = (s: D1PreparedStatement): D1PreparedStatement =>
        Object.assign(Object.create(s) as D1PreparedStatement, {
          bind: (...values: unknown[]) => wrap(s.bind(...values)),
          first: (column?: string) => guard(() => s.first(column as never)),
          all: () => guard(() => s.all()),
          run: () => guard(() => s.run()),
        })
      return wrap(statement)
    },
    batch: (statements: D1PreparedStatement[]) => guard(() => db.batch(statements), true),
  }
  return { binding, state }
}

describe('D1 out of reach', () => {
  it('within the bound the cache answers; past it, a 503 with Retry-After, never a signature', async () => {
    const { binding, state } = flaky(bindings.WAYBILL_DB)
    const env = { ...(await withControl(await testEnv())), WAYBILL_DB: binding }
    const { b, sign } = await twoIsolates(env)
    expect(await sign(b)).toBe(200)
    state.down = true
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    b.clock.advance(CONTROL_MAX_AGE_MS - 1)
    expect(await sign(b)).toBe(200)
    b.clock.advance(1)
    const refused = await send(b.app, env, 'POST', '/v1/sign', {
      bearer: ALL_KEY,
      body: { origin: 'photos', keys: ['a.jpg'] },
    })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('5')
    const problem = await problemOf(refused)
    expect(problem.type).toBe('urn:waybill:problem:control_unavailable')
    expect(await sign(b)).toBe(503)
    // Back: signed again, from a fresh reading.
    state.down = false
    expect(await sign(b)).toBe(200)
    vi.restoreAllMocks()
  })

  it('an admin write that cannot reach D1 is a 503 that changed nothing', async () => {
    const { binding, state } = flaky(bindings.WAYBILL_DB)
    const env = { ...(await withControl(await testEnv())), WAYBILL_DB: binding }
    const { adminApp } = appWithClock(NOW)
    state.down = true
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const response = await admin(adminApp, env, 'POST', '/keys', { label: 'x' })
    expect(response.status).toBe(503)
    expect((await problemOf(response)).detail).toContain('nothing was changed')
    vi.restoreAllMocks()
  })
})

describe('links', () => {
  it('with no link revoked by id, a follow asks D1 nothing about its id until the next change', async () => {
    const { binding, state } = flaky(bindings.WAYBILL_DB)
    const env = { ...(await withControl(await testEnv())), WAYBILL_DB: binding }
    const a = appWithClock(NOW)
    const issued = await send(a.app, env, 'POST', '/v1/links', {
      bearer: ALL_KEY,
      body: { origin: 'photos', keys: ['a.jpg', 'b.jpg', 'c.jpg'] },
    })
    const { links } = await issued.json<{ links: { url: string; id: string }[] }>()
    const follow = (n: number) =>
      send(a.app, env, 'GET', new URL(links[n]!.url).pathname).then((response) => response.status)
    // The first follow reads the revocations, and learns that none is by id.
    expect(await follow(0)).toBe(302)
    // D1 out of reach, inside the bound: a link this isolate never saw still answers.
    state.down = true
    expect(await follow(1)).toBe(302)
    // A link revoked by id through another isolate: refused once this one reads the change.
    state.down = false
    const b = appWithClock(NOW)
    const revoked = await admin(b.adminApp, env, 'POST', '/revocations', {
      kind: 'link',
      link: links[2]!.id,
    })
    expect(revoked.status).toBe(201)
    a.clock.advance(CONTROL_MAX_AGE_MS)
    expect(await follow(2)).toBe(410)
    expect(await follow(1)).toBe(302)
  })
})

describe('usage', () => {
  /** A key of its own (usage is counted per key), and an app standing for a fresh isolate. */
  async function isolateWithKey(env: Env) {
    const isolate = appWithClock(NOW)
    const created = await admin(isolate.adminApp, env, 'POST', '/keys', {
      grants: [{ origin: 'photos', actions: ['read'] }],
    })
    const { id, key } = await created.json<{ id: string; key: string }>()
    // The isolate reads the epoch once (a key no one holds: a 401, which counts nothing), as the
    // admin's own isolate had when it made the key.
    const unknown = `wb_${'x'.repeat(43)}`
    expect((await send(isolate.app, env, 'POST', '/v1/sign', { bearer: unknown })).status).toBe(401)
    const sign = async (keys: string[]) => {
      const ctx = createExecutionContext()
      const response = await send(isolate.app, env, 'POST', '/v1/sign', {
        bearer: key,
        body: { origin: 'photos', keys },
        ctx,
      })
      expect(response.status).toBe(200)
      return ctx
    }
    const minted = async () => {
      const usage = await admin(isolate.adminApp, env, 'GET', `/usage?principal=apiKey:${id}`)
      const { days } = await usage.json<{ days: { origin: string; minted: number }[] }>()
      return days.map((day) => [day.origin, day.minted])
    }
    return { ...isolate, sign, minted }
  }

  it('a flush D1 refuses keeps its counts, and the next flush writes them all', async () => {
    const { binding, state } = flaky(bindings.WAYBILL_DB)
    const env = { ...(await withControl(await testEnv())), WAYBILL_DB: binding }
    const { clock, sign, minted } = await isolateWithKey(env)
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    state.batchDown = true
    // An isolate's first count is written at once: D1 refuses it.
    await waitOnExecutionContext(await sign(['a.jpg', 'b.jpg']))
    expect(logged.mock.calls.flat().join('\n')).toContain('control plane unavailable')
    state.batchDown = false
    clock.advance(USAGE_FLUSH_MS)
    await waitOnExecutionContext(await sign(['c.jpg']))
    expect(await minted()).toEqual([['photos', 3]])
    vi.restoreAllMocks()
  })

  it('counts are written USAGE_FLUSH_MS after the last write, with no request after them', async () => {
    const env = await withControl(await testEnv())
    const { clock, sign, minted } = await isolateWithKey(env)
    await waitOnExecutionContext(await sign(['a.jpg']))
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      clock.advance(1_000)
      // Gathered, not yet due: the request defers the write to when it is.
      const ctx = await sign(['b.jpg', 'c.jpg'])
      await vi.advanceTimersByTimeAsync(USAGE_FLUSH_MS)
      await waitOnExecutionContext(ctx)
    } finally {
      vi.useRealTimers()
    }
    expect(await minted()).toEqual([['photos', 3]])
  })

  it("never settles the write another request deferred: that is I/O on that request's behalf", async () => {
    const db = {
      prepare: () => ({ bind: (...values: unknown[]) => values }),
      batch: () => Promise.resolve([]),
    }
    const result = loadConfig({ ...(await testEnv()), WAYBILL_DB: db })
    if (!result.ok) throw new Error('the test config is invalid')
    const { config } = result
    const plane = new ControlPlane()
    const counts = { minted: 1, refused: 0, bytesReserved: 0, bytesCompleted: 0, linksFollowed: 0 }
    const first: Promise<unknown>[] = []
    const second: Promise<unknown>[] = []
    const nowMs = NOW.getTime()
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      // The first request writes, then gathers more: its waitUntil holds the write scheduled.
      const who = { kind: 'jwt', id: 'u1' }
      plane.record(config, nowMs, who, 'photos', counts, undefined, (p) => void first.push(p))
      plane.record(config, nowMs + 1, who, 'photos', counts, undefined, (p) => void first.push(p))
      const scheduled = first.at(-1)!
      let settled = false
      void scheduled.then(() => (settled = true))
      // A later request, once a write is due, writes everything itself.
      const later = nowMs + USAGE_FLUSH_MS
      plane.record(config, later, who, 'photos', counts, undefined, (p) => void second.push(p))
      expect(second.length).toBeGreaterThan(0)
      await Promise.all(second)
      expect(settled).toBe(false)
      // The first request's work ends when its own timer does, with nothing left to write.
      await vi.advanceTimersByTimeAsync(USAGE_FLUSH_MS)
      await scheduled
      expect(settled).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })

  it('keeps at most USAGE_MAX_PENDING_ENTRIES of what failed, and logs what it drops', async () => {
    let down = true
    const written: unknown[][] = []
    // A D1 that takes statements as their values, and refuses every batch while `down`.
    const db = {
      prepare: () => ({ bind: (...values: unknown[]) => values }),
      batch: (statements: unknown[][]) => {
        if (down) return Promise.reject(new Error('D1_ERROR: Network connection lost.'))
        written.push(...statements)
        return Promise.resolve([])
      },
    }
    const result = loadConfig({ ...(await testEnv()), WAYBILL_DB: db })
    if (!result.ok) throw new Error('the test config is invalid')
    const { config } = result
    const plane = new ControlPlane()
    const work: Promise<unknown>[] = []
    const defer = (promise: Promise<unknown>) => void work.push(promise)
    const settle = async () => {
      // A write scheduled for later ends when its time comes (nothing settles it early).
      await vi.advanceTimersByTimeAsync(USAGE_FLUSH_MS)
      while (work.length > 0) await work.shift()
    }
    const nowMs = NOW.getTime()
    const counts = { minted: 1, refused: 0, bytesReserved: 0, bytesCompleted: 0, linksFollowed: 0 }
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      for (let i = 0; i <= USAGE_MAX_PENDING_ENTRIES; i++) {
        plane.record(
          config,
          nowMs,
          { kind: 'jwt', id: `u${i}` },
          'photos',
          counts,
          undefined,
          defer,
        )
      }
      plane.flush(config, nowMs, defer, true)
      await settle()
      expect(logged.mock.calls.flat().join('\n')).toMatch(
        /"message":"usage counts dropped","entries":1,"minted":1/,
      )
      down = false
      plane.flush(config, nowMs + USAGE_FLUSH_MS, defer)
      await settle()
    } finally {
      vi.useRealTimers()
      vi.restoreAllMocks()
    }
    // Each statement's values: day, principal, origin, minted, …
    expect(written).toHaveLength(USAGE_MAX_PENDING_ENTRIES)
    expect(written.reduce((sum, values) => sum + (values[3] as number), 0)).toBe(
      USAGE_MAX_PENDING_ENTRIES,
    )
  })
})

describe('stored grants are checked again against the origins of today', () => {
  it('a grant whose origin is gone from the config allows nothing, and is logged', async () => {
    const env = await withControl(await testEnv())
    const { app, adminApp } = appWithClock(NOW)
    const created = await admin(adminApp, env, 'POST', '/keys', {
      grants: [{ origin: 'docs', actions: ['read'] }],
    })
    const { key } = await created.json<{ key: string }>()
    const ask = (environment: Env) =>
      send(app, environment, 'POST', '/v1/sign', {
        bearer: key,
        body: { origin: 'docs', keys: ['a.pdf'] },
      })
    expect((await ask(env)).status).toBe(200)
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const withoutDocs = {
      ...env,
      WAYBILL_ORIGINS: { photos: (env.WAYBILL_ORIGINS as { photos: unknown }).photos },
      WAYBILL_GRANTS: '[]',
    }
    expect((await ask(withoutDocs)).status).toBe(403)
    expect(logged.mock.calls.flat().join('\n')).toContain('stored grant skipped')
    vi.restoreAllMocks()
  })
})

describe('answers from the caches, without waiting', () => {
  it('knownApiKey and knownConfigFor say nothing until a lookup fills them, then what apiKey and configFor say, within the bound', async () => {
    const env = await withControl(await testEnv())
    const { adminApp } = appWithClock(NOW)
    const created = await admin(adminApp, env, 'POST', '/keys', {
      grants: [{ origin: 'photos', prefix: `${fresh('k')}/`, actions: ['read'] }],
    })
    const { key } = await created.json<{ key: string }>()
    const loaded = loadConfig(env)
    if (!loaded.ok) throw new Error('the test config is invalid')
    const { config } = loaded
    const control = new ControlPlane()
    const deferred: Promise<unknown>[] = []
    const defer = (work: Promise<unknown>) => void deferred.push(work)
    const nowMs = NOW.getTime()

    const digest = keyDigest(key)
    expect(control.knownApiKey(config, digest, nowMs, defer)).toBeUndefined()
    const record = await control.apiKey(config, key, digest, NOW, defer)
    expect(record).toBeDefined()
    expect(control.knownApiKey(config, digest, nowMs, defer)).toBe(record)

    const principal: Principal = { kind: 'api-key', id: record!.id, claims: {}, roles: new Set() }
    const rules = control.knownConfigFor(config, principal, nowMs, defer)
    expect(rules?.grants).toHaveLength(config.grants.length + 1)
    expect(await control.configFor(config, principal, NOW, defer)).toBe(rules)

    // A key D1 does not have: unknown to the caches, then known to be none (null, not undefined).
    const stranger = `${key.slice(0, -4)}zzzz`
    const strangerDigest = keyDigest(stranger)
    expect(control.knownApiKey(config, strangerDigest, nowMs, defer)).toBeUndefined()
    expect(await control.apiKey(config, stranger, strangerDigest, NOW, defer)).toBeUndefined()
    expect(control.knownApiKey(config, strangerDigest, nowMs, defer)).toBeNull()

    // Past the bound the caches answer nothing: the caller asks D1 again.
    const late = nowMs + CONTROL_MAX_AGE_MS
    expect(control.knownApiKey(config, digest, late, defer)).toBeUndefined()
    expect(control.knownConfigFor(config, principal, late, defer)).toBeUndefined()
    await Promise.all(deferred)
  })
})
