// The admin plane is a Worker of its own: the data plane's Worker (its real entry) has no admin
// route at all, and the admin Worker reaches the data plane only through the DataPlane entrypoint
// (a service binding in a deployment; the same entrypoint of the Worker under test here).

import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import adminDocument from '../../docs/admin-openapi.json'
import { createAdminApp } from '../../src/admin/app'
import type { AdminEnv } from '../../src/config/admin'
import { ADMIN_TOKEN, adminEnvOf, withControl } from '../helpers/control-plane'
import { workerEnv } from '../helpers/worker-env'

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
