// Readiness (/readyz) on both Workers, as an operator's last deploy step checks it: 503 naming
// each check that fails (a D1 not migrated, the quota counters not answering, the data plane out
// of reach) while /healthz stays liveness, then 200 once they pass. The `503 control_unavailable`
// a caller gets says which: a database not migrated, or one out of reach.

import { applyD1Migrations, type D1Migration } from 'cloudflare:test'
import { env as bindings, exports } from 'cloudflare:workers'
import { describe, expect, it, vi } from 'vitest'
import { createAdminApp } from '../../src/admin/app'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { adminEnvOf, withControl } from '../helpers/control-plane'
import { problemOf } from '../helpers/routes'
import { workerEnv } from '../helpers/worker-env'

const { TEST_BLANK_DB: blank, TEST_MIGRATIONS: migrations } = bindings as unknown as {
  TEST_BLANK_DB: D1Database
  TEST_MIGRATIONS: D1Migration[]
}

interface Ready {
  ok: boolean
  checks: { name: string; ok: boolean; detail: string }[]
}

/** A stored-looking key: the data plane asks D1 about it. */
const STORED_LOOKING = `wb_${'x'.repeat(43)}`

describe('/readyz', () => {
  it('is 503 with an unmigrated D1, naming it, and 200 after migrating; /healthz is 200 throughout', async () => {
    const env: Env = { ...(await withControl(workerEnv)), WAYBILL_DB: blank }
    const adminEnv = { ...(await adminEnvOf(env)), WAYBILL_DATA_PLANE: exports.DataPlane }
    const [data, admin] = [createApp(), createAdminApp()]
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      for (const [app, on] of [
        [data, env],
        [admin, adminEnv],
      ] as const) {
        expect((await app.request('/healthz', {}, on)).status).toBe(200)
        const notReady = await app.request('/readyz', {}, on)
        expect(notReady.status).toBe(503)
        expect(notReady.headers.get('retry-after')).not.toBeNull()
        const problem = await problemOf(notReady)
        expect(problem.type).toBe('urn:waybill:problem:control_unavailable')
        expect(problem.errors).toEqual([
          { path: 'd1', message: expect.stringMatching(/^is not migrated/) as string },
        ])
      }
      // A caller's request that needs the database is told why too: not migrated, not unreachable.
      const signed = await data.request(
        '/v1/sign',
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${STORED_LOOKING}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ origin: 'e2e', keys: ['a'] }),
        },
        env,
      )
      expect(signed.status).toBe(503)
      const why = await problemOf(signed)
      expect(why.detail).toMatch(/not migrated/)
      expect(why.detail).not.toMatch(/cannot be reached/)
      expect(why.errors).toEqual([
        { path: 'WAYBILL_DB', message: expect.stringMatching(/^is not migrated/) as string },
      ])

      await applyD1Migrations(blank, migrations)
      for (const [app, on] of [
        [data, env],
        [admin, adminEnv],
      ] as const) {
        const ready = await app.request('/readyz', {}, on)
        expect(ready.status, await ready.clone().text()).toBe(200)
        const body = await ready.json<Ready>()
        expect(body.ok).toBe(true)
        expect(body.checks.every((check) => check.ok)).toBe(true)
        expect(body.checks.map((check) => check.name)).toContain('durableObjects')
      }
    } finally {
      vi.restoreAllMocks()
    }
  })

  it('names the quota counters when they do not answer, and the data plane when it is out of reach', async () => {
    const broken = {
      idFromName: () => ({}) as DurableObjectId,
      get: () => ({
        read: () => Promise.reject(new Error('Durable Object is overloaded')),
      }),
    }
    const env: Env = { ...(await withControl(workerEnv)), WAYBILL_QUOTAS: broken }
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      const data = await createApp().request('/readyz', {}, env)
      expect(data.status).toBe(503)
      expect((await problemOf(data)).errors).toEqual([
        { path: 'durableObjects', message: expect.stringMatching(/^do not answer/) as string },
      ])
      const adminEnv = {
        ...(await adminEnvOf(await withControl(workerEnv))),
        WAYBILL_DATA_PLANE: { deployment: () => Promise.reject(new Error('no such service')) },
      }
      const admin = await createAdminApp().request('/readyz', {}, adminEnv)
      expect(admin.status).toBe(503)
      expect((await problemOf(admin)).errors).toEqual([
        { path: 'dataPlane', message: expect.stringMatching(/^cannot be reached/) as string },
      ])
    } finally {
      vi.restoreAllMocks()
    }
  })
})
