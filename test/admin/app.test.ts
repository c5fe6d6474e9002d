// The admin Worker's app (src/admin/app.ts): its own document describes exactly its routes, on its
// own host, and takes admin credentials only; liveness without authentication.

import { describe, expect, it } from 'vitest'
import adminDocument from '../../docs/admin-openapi.json'
import { createAdminApp } from '../../src/admin/app'
import { adminEnvOf, withControl } from '../helpers/control-plane'
import { adminApp, problemOf, testEnv } from '../helpers/routes'

interface Document {
  info: { title: string }
  paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>
  components: { securitySchemes: Record<string, unknown> }
}

const document = adminDocument as unknown as Document

describe('the admin document', () => {
  it('describes exactly the routes the admin app answers', () => {
    const documented = Object.entries(document.paths)
      .flatMap(([path, operations]) =>
        Object.keys(operations).map(
          (method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
        ),
      )
      .sort()
    const served = createAdminApp()
      .routes.filter((route) => route.method !== 'ALL')
      // A parameter's pattern is the route's, not the document's.
      .map((route) => `${route.method} ${route.path.replace(/(:\w+)\{[^}]*\}/g, '$1')}`)
    expect([...new Set(served)].sort()).toEqual(documented)
  })

  it('declares admin credentials only: an admin token, or an Access admin', () => {
    expect(document.info.title).toBe('waybill admin')
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual([
      'access',
      'accessCookie',
      'adminToken',
    ])
    for (const [path, methods] of Object.entries(document.paths)) {
      if (!path.startsWith('/admin/')) continue
      for (const operation of Object.values(methods)) {
        const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s))
        expect(schemes, path).toContain('adminToken')
      }
    }
  })
})

describe('GET /healthz on the admin Worker', () => {
  it('answers without authentication', async () => {
    const env = await adminEnvOf(await withControl(await testEnv()))
    const response = await adminApp.request('/healthz', {}, env)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true })
  })

  it('503 naming what its configuration lacks', async () => {
    const response = await adminApp.request('/healthz', {}, { WAYBILL_ADMIN_TOKENS: 'nope' })
    expect(response.status).toBe(503)
    expect((await problemOf(response)).errors?.map((e) => e.path).sort()).toEqual([
      'WAYBILL_ADMIN_TOKENS',
      'WAYBILL_DB',
    ])
  })
})
