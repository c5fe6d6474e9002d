// Idempotency-Key on the admin API's POSTs, with Stripe's semantics: the same key and the same
// request give the same answer, replayed (a retried POST /keys makes one key, and shows the same
// secret); the same key with another request is a 409; a request still being answered is a 409
// too. Keys are the admin's own, kept IDEMPOTENCY_TTL_S, and the answer kept is sealed under the
// key: the database alone holds neither the key nor a secret it answered.

import { env as bindings } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import { IDEMPOTENCY_TTL_S } from '../../src/limits'
import { admin, appWithClock, fresh, withControl } from '../helpers/control-plane'
import { sha256Hex } from '../helpers/hex'
import { NOW, problemOf, testEnv } from '../helpers/routes'

let env: Env

beforeAll(async () => {
  env = await withControl(await testEnv())
})

const idempotent = (key: string) => ({ 'idempotency-key': key })

describe('Idempotency-Key', () => {
  it('a retried POST /keys with one key makes one key, and answers the same secret again', async () => {
    const { adminApp } = appWithClock(NOW)
    const key = crypto.randomUUID()
    const label = fresh('retried')
    const body = { label, grants: [{ origin: 'photos', actions: ['read'] }] }
    const first = await admin(adminApp, env, 'POST', '/keys', body, idempotent(key))
    expect(first.status).toBe(201)
    const made = await first.json<{ id: string; key: string }>()
    // The same request again, its members in another order: the same answer, replayed.
    const again = await admin(
      adminApp,
      env,
      'POST',
      '/keys',
      { grants: body.grants, label },
      idempotent(key),
    )
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await again.json()).toEqual(made)
    const { keys } = await (
      await admin(adminApp, env, 'GET', '/keys?limit=1000')
    ).json<{
      keys: { label: string | null }[]
    }>()
    expect(keys.filter((k) => k.label === label)).toHaveLength(1)
    // Neither the key nor the secret it answered is in the database.
    const rows = await bindings.WAYBILL_DB.prepare('SELECT * FROM idempotency').all()
    const stored = JSON.stringify(rows.results)
    expect(stored).not.toContain(key)
    expect(stored).not.toContain(made.key)
    expect(stored).not.toContain(await sha256Hex(made.key))
  })

  it('the same key with another request is a 409 naming it; a new key makes a new key', async () => {
    const { adminApp } = appWithClock(NOW)
    const key = crypto.randomUUID()
    expect(
      (await admin(adminApp, env, 'POST', '/keys', { label: 'a' }, idempotent(key))).status,
    ).toBe(201)
    const other = await admin(adminApp, env, 'POST', '/keys', { label: 'b' }, idempotent(key))
    expect(other.status).toBe(409)
    expect((await problemOf(other)).errors?.map((e) => e.path)).toEqual(['Idempotency-Key'])
    // Another path is another request too.
    const elsewhere = await admin(
      adminApp,
      env,
      'POST',
      '/grants',
      { to: '*', origin: 'photos', actions: ['read'] },
      idempotent(key),
    )
    expect(elsewhere.status).toBe(409)
    expect(
      (await admin(adminApp, env, 'POST', '/keys', { label: 'b' }, idempotent(crypto.randomUUID())))
        .status,
    ).toBe(201)
  })

  it('is kept for IDEMPOTENCY_TTL_S, and per admin', async () => {
    const { adminApp, clock } = appWithClock(NOW)
    const key = crypto.randomUUID()
    const body = { label: fresh('ttl') }
    const first = await (
      await admin(adminApp, env, 'POST', '/keys', body, idempotent(key))
    ).json<{
      id: string
    }>()
    clock.advance(IDEMPOTENCY_TTL_S * 1000)
    const later = await admin(adminApp, env, 'POST', '/keys', body, idempotent(key))
    expect(later.status).toBe(201)
    expect(later.headers.get('idempotent-replayed')).toBeNull()
    expect((await later.json<{ id: string }>()).id).not.toBe(first.id)
  })

  it('keeps no answer the request never ran to: a 400 is answered again, not replayed', async () => {
    const { adminApp } = appWithClock(NOW)
    const key = crypto.randomUUID()
    const bad = await admin(adminApp, env, 'POST', '/keys', { label: 5 }, idempotent(key))
    expect(bad.status).toBe(400)
    const fixed = await admin(adminApp, env, 'POST', '/keys', { label: 'fixed' }, idempotent(key))
    expect(fixed.status).toBe(201)
  })

  it('is a 409 for a retry while the first request is still being answered', async () => {
    const { adminApp } = appWithClock(NOW)
    const { adminEnvOf, ADMIN_TOKEN } = await import('../helpers/control-plane')
    const { bridgeOf } = await import('../../src/bridge')
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const bridge = bridgeOf(env)
    // A data plane slow to answer: the first request waits in it.
    const slowEnv = {
      ...(await adminEnvOf(env)),
      WAYBILL_DATA_PLANE: { deployment: () => held.then(() => bridge.deployment()) },
    }
    const key = crypto.randomUUID()
    const post = () =>
      adminApp.request(
        '/admin/v1/keys',
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            'content-type': 'application/json',
            'idempotency-key': key,
          },
          body: JSON.stringify({ label: 'slow' }),
        },
        slowEnv,
      )
    const first = post()
    await new Promise((resolve) => setTimeout(resolve, 50))
    const second = await post()
    expect(second.status).toBe(409)
    expect(second.headers.get('retry-after')).toBe('1')
    release()
    expect((await first).status).toBe(201)
    const third = await post()
    expect(third.status).toBe(201)
    expect(third.headers.get('idempotent-replayed')).toBe('true')
  })

  it('refuses a key too short to keep a secret sealed, or with control characters', async () => {
    const { adminApp } = appWithClock(NOW)
    for (const key of ['short', 'x'.repeat(256), `${'a'.repeat(20)}\u0001`]) {
      const response = await admin(adminApp, env, 'POST', '/keys', { label: 'x' }, idempotent(key))
      expect(response.status, key).toBe(400)
      expect((await problemOf(response)).errors?.map((e) => e.path)).toEqual(['Idempotency-Key'])
    }
  })
})
