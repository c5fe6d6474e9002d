// The admin plane is a Worker of its own: the data plane's Worker (its real entry) has no admin
// route at all, and the admin Worker (its real entry too) reaches the data plane only through the
// DataPlane entrypoint (a service binding in a deployment; the same entrypoint of the Worker under
// test here). Both on the pool's D1 and quota counters; uploads go to versitygw.

import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import adminDocument from '../../docs/admin-openapi.json'
import { createAdminApp } from '../../src/admin/app'
import adminWorker from '../../src/admin/index'
import type { AdminEnv } from '../../src/config/admin'
import { CONTROL_MAX_AGE_MS } from '../../src/limits'
import { ADMIN_TOKEN, adminEnvOf, fresh, withControl } from '../helpers/control-plane'
import { objectUrl, store, workerEnv } from '../helpers/worker-env'

/** Each operation of the admin document, with its path's parameters filled in. */
const OPERATIONS = Object.entries(adminDocument.paths as Record<string, Record<string, unknown>>)
  .filter(([path]) => path.startsWith('/admin/'))
  .flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{(\w+)\}/g, 'x_0000000000000000000'),
    })),
  )

describe('the data plane Worker', () => {
  it('answers 404 on every path of the admin API, whatever the method and credentials', async () => {
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(10)
    for (const { method, path } of [...OPERATIONS, { method: 'GET', path: '/admin/v1' }]) {
      const response = await exports.default.fetch(
        new Request(`http://waybill.test${path}`, {
          method,
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            ...(method === 'GET' || method === 'HEAD'
              ? {}
              : { 'content-type': 'application/json' }),
          },
          body: method === 'GET' || method === 'HEAD' ? undefined : '{}',
        }),
      )
      expect(response.status, `${method} ${path}`).toBe(404)
      expect(response.headers.get('content-type')).toBe('application/problem+json')
      await response.body?.cancel()
    }
  })
})

describe('the admin Worker over the data plane entrypoint', () => {
  it("knows the deployment only through it: the data plane's origins and keys", async () => {
    // The real entrypoint of the Worker under test, as the admin Worker's service binding is.
    const env: AdminEnv = {
      ...(await adminEnvOf(await withControl(workerEnv))),
      WAYBILL_DATA_PLANE: exports.DataPlane,
    }
    const app = createAdminApp()
    const post = (body: unknown) =>
      app.request(
        '/admin/v1/keys',
        {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
        env,
      )
    const made = await post({ grants: [{ origin: 'e2e', actions: ['read'] }] })
    expect(made.status, await made.clone().text()).toBe(201)
    // An origin the data plane does not have, and an id its WAYBILL_API_KEYS holds.
    expect((await post({ grants: [{ origin: 'photos', actions: ['read'] }] })).status).toBe(404)
    expect((await post({ id: 'e2e' })).status).toBe(409)
  })
})

/** The admin Worker's env: the pool's D1 and counters, this run's admin token, the real bridge. */
async function adminEnv(): Promise<AdminEnv> {
  return {
    ...(await adminEnvOf(await withControl(workerEnv))),
    WAYBILL_DATA_PLANE: exports.DataPlane,
  }
}

/** A request to the admin Worker's entry, as the admin. */
async function asAdmin(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const ctx = createExecutionContext()
  const response = await adminWorker.fetch(
    new Request(`http://admin.waybill.test/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    await adminEnv(),
    ctx,
  )
  await waitOnExecutionContext(ctx)
  return response
}

describe('an admin write', () => {
  it('appears in GET /admin/v1/audit with its actor and target', async () => {
    const made = await asAdmin('POST', '/keys', { label: fresh('audited') })
    expect(made.status).toBe(201)
    const { id } = await made.json<{ id: string }>()
    const trail = await asAdmin('GET', `/audit?key=${id}`)
    expect(trail.status).toBe(200)
    const { events } = await trail.json<{ events: Record<string, unknown>[] }>()
    expect(events).toEqual([
      expect.objectContaining({
        actor: 'admin:ops',
        action: 'key.create',
        target: id,
        key: id,
        outcome: 'ok',
      }),
    ])
  })
})

describe('a quota changed in place', () => {
  it('keeps its counter: raising 2 uploads to 3 allows one more, not three', async () => {
    // The e2e origin signs any key (keys "any"): its grants cover the whole bucket.
    const made = await asAdmin('POST', '/keys', { grants: [{ origin: 'e2e', actions: ['write'] }] })
    expect(made.status, await made.clone().text()).toBe(201)
    const { id, key } = await made.json<{ id: string; key: string }>()
    const folder = fresh('patched')
    const set = await asAdmin('POST', '/quotas', {
      to: `apiKey:${id}`,
      origin: 'e2e',
      maxObjects: 2,
      // A year's: a window ending between two uploads would reset the counter this checks.
      windowS: 366 * 86_400,
    })
    expect(set.status, await set.clone().text()).toBe(201)
    const quota = (await set.json<{ id: string }>()).id
    /** An upload issued by the data plane's Worker, stored in versitygw when signed. */
    const upload = async () => {
      const name = `${folder}/${fresh('u')}.txt`
      const issued = await exports.default.fetch(
        new Request('http://waybill.test/v1/uploads', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            origin: 'e2e',
            key: name,
            contentType: 'text/plain',
            contentLength: 2,
          }),
        }),
      )
      if (issued.status !== 200) return issued.status
      const { url, headers } = await issued.json<{ url: string; headers: Record<string, string> }>()
      const put = await fetch(url, { method: 'PUT', headers, body: 'hi' })
      expect(put.status).toBe(200)
      expect(await (await store.fetch(objectUrl(name))).text()).toBe('hi')
      return 200
    }
    expect(await upload()).toBe(200)
    expect(await upload()).toBe(200)
    expect(await upload()).toBe(429)
    const patched = await asAdmin('PATCH', `/quotas/${quota}`, { maxObjects: 3 })
    expect(patched.status).toBe(200)
    expect(await patched.json()).toMatchObject({
      maxObjects: 3,
      use: { objects: 2, remainingObjects: 1 },
    })
    // The data plane reads the change within the control plane's bound.
    const start = Date.now()
    let status = await upload()
    while (status === 429 && Date.now() - start < CONTROL_MAX_AGE_MS + 1000) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      status = await upload()
    }
    expect(status).toBe(200)
    // One more, not three: the counter kept the two it had.
    expect(await upload()).toBe(429)
  })
})

describe('a retried POST /keys', () => {
  it('with one Idempotency-Key makes one key, which signs', async () => {
    const label = fresh('retried')
    const key = crypto.randomUUID()
    const body = { label, grants: [{ origin: 'e2e', actions: ['read'] }] }
    const answers = []
    for (let i = 0; i < 3; i++) {
      answers.push(await asAdmin('POST', '/keys', body, { 'idempotency-key': key }))
    }
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201])
    expect(answers.map((answer) => answer.headers.get('idempotent-replayed'))).toEqual([
      null,
      'true',
      'true',
    ])
    const made = await Promise.all(
      answers.map((answer) => answer.json<{ id: string; key: string }>()),
    )
    expect(new Set(made.map((m) => `${m.id} ${m.key}`)).size).toBe(1)
    const listed = await asAdmin('GET', '/keys?limit=1000')
    const { keys } = await listed.json<{ keys: { label: string | null }[] }>()
    expect(keys.filter((k) => k.label === label)).toHaveLength(1)
    // The key shown again is the one that works.
    const signed = await exports.default.fetch(
      new Request('http://waybill.test/v1/sign', {
        method: 'POST',
        headers: { authorization: `Bearer ${made[2]!.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ origin: 'e2e', keys: ['a.txt'] }),
      }),
    )
    expect(signed.status).toBe(200)
  })
})
