// Explain agrees with authorize for token callers and prefix grants too (the e2e property,
// test/e2e/explain.property.test.ts, covers keys on the e2e origin, whose keys "any" take no
// prefix): for any grants to a caller's subject, role or `*` (prefixes with `{sub}` among them) and
// any request, explain says what the data app answers the same caller's JWT. In-process apps over
// the pool's D1, on the route tests' clock; the seed as the fuzz tests take it.

import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import { HS256_SECRET, sign } from '../fixtures/auth'
import { admin, appWithClock, fresh, send, withControl } from '../helpers/control-plane'
import { FUZZ_TIMEOUT_MS, fuzzParameters } from '../helpers/fuzz-arbitraries'
import { NOW, testEnv } from '../helpers/routes'

const ISSUER = 'https://issuer.example'
let env: Env

beforeAll(async () => {
  env = await withControl(
    await testEnv({
      WAYBILL_AUTH: JSON.stringify({ jwt: { issuer: ISSUER, audience: 'waybill', hs256: true } }),
      WAYBILL_JWT_HS256_SECRET: HS256_SECRET,
    }),
  )
})

const grantArb = (sub: string, role: string) =>
  fc.record(
    {
      to: fc.constantFrom(`sub:${sub}`, `role:${role}`, `role:${role}-other`),
      origin: fc.constantFrom('photos', 'docs'),
      prefix: fc.constantFrom('', 'a/', 'a/b/', 'users/{sub}/', 'c/'),
      actions: fc.subarray(['read', 'write', 'delete', 'debug'] as const, { minLength: 1 }),
      contentTypes: fc.subarray(['text/plain', 'image/*'] as const, { minLength: 1 }),
      maxContentLength: fc.constantFrom(10, 1000),
      overwrite: fc.boolean(),
    },
    { requiredKeys: ['to', 'origin', 'actions'] },
  )

const askedArb = (sub: string) =>
  fc.record(
    {
      // Not list: a listing allowed goes on to the store, which this project has none of (the
      // e2e property lists against versitygw).
      action: fc.constantFrom('read', 'write', 'delete', 'debug'),
      origin: fc.constantFrom('photos', 'docs'),
      key: fc.constantFrom('a/x.txt', 'a/b/y.png', 'c/z', `users/${sub}/z.txt`, 'a/../c/x'),
      contentType: fc.constantFrom('text/plain', 'image/png', 'application/pdf'),
      contentLength: fc.constantFrom(5, 500),
      overwrite: fc.boolean(),
    },
    { requiredKeys: ['action', 'origin', 'key'] },
  )

describe('explain for a token caller', () => {
  it(
    'says what the request gets, for any grants to its subject, roles or anyone',
    async () => {
      const apps = appWithClock(NOW)
      const seen = new Set<number>()
      await fc.assert(
        fc.asyncProperty(
          fc.boolean().chain((withRole) => {
            const sub = fresh('sub')
            const role = fresh('role')
            return fc.tuple(
              fc.constant({ sub, role, withRole }),
              fc.array(grantArb(sub, role), { maxLength: 3 }),
              askedArb(sub),
            )
          }),
          async ([{ sub, role, withRole }, grants, asked]) => {
            for (const grant of grants) {
              const made = await admin(apps.adminApp, env, 'POST', '/grants', grant)
              expect(made.status, await made.clone().text()).toBe(201)
            }
            const claims = { sub, ...(withRole ? { roles: [role] } : {}) }
            const explained = await admin(apps.adminApp, env, 'POST', '/explain', {
              caller: { claims },
              ...asked,
            })
            expect(explained.status, await explained.clone().text()).toBe(200)
            const verdict = await explained.json<{
              status: number
              request: { method: string; path: string; body?: unknown }
              refusal: { code: string; detail: string; errors: unknown[] } | null
            }>()
            const now = Math.floor(NOW.getTime() / 1000)
            const token = await sign(
              { alg: 'HS256', secret: new TextEncoder().encode(HS256_SECRET) },
              { ...claims, iss: ISSUER, aud: 'waybill' },
              { iat: now, exp: now + 600 },
            )
            const { method, path, body } = verdict.request
            // The same request as a caller sends it: explain's own description of it is checked
            // against the asked action by the e2e property; here, its verdict.
            const real = await send(apps.app, env, method, path, { bearer: token, body })
            const text = await real.text()
            seen.add(real.status)
            expect(verdict.status, text).toBe(real.status)
            if (real.status >= 400) {
              const problem = JSON.parse(text) as {
                type: string
                detail: string
                errors?: unknown[]
              }
              expect(verdict.refusal).toEqual({
                code: problem.type.replace('urn:waybill:problem:', ''),
                detail: problem.detail,
                errors: problem.errors ?? [],
              })
            } else expect(verdict.refusal).toBeNull()
          },
        ),
        fuzzParameters(60),
      )
      expect(seen.has(200)).toBe(true)
      expect([...seen].some((status) => status >= 400)).toBe(true)
    },
    FUZZ_TIMEOUT_MS,
  )
})
