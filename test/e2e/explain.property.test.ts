// Explain agrees with authorize, as a property (fast-check, seeded as the fuzz tests are: see
// test/helpers/fuzz-arbitraries.ts): for any grants a key holds and any request it could send, what
// POST /admin/v1/explain says the request would get is what the data plane's Worker (its real
// entry) answers it: the same status, and for a refusal the same problem (code, detail, fields).
// Explain runs through the admin app and the data plane's real DataPlane entrypoint, the request
// through the Worker: two isolates, one D1, each key fresh (nothing cached before it is asked).

import { exports } from 'cloudflare:workers'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { createAdminApp } from '../../src/admin/app'
import type { AdminEnv } from '../../src/config/admin'
import { ADMIN_TOKEN, adminEnvOf, fresh, withControl } from '../helpers/control-plane'
import { FUZZ_TIMEOUT_MS, fuzzParameters } from '../helpers/fuzz-arbitraries'
import { workerEnv } from '../helpers/worker-env'

const adminApp = createAdminApp()
let adminEnv: AdminEnv
const FOLDER = fresh('explain')

beforeAll(async () => {
  adminEnv = {
    ...(await adminEnvOf(await withControl(workerEnv))),
    WAYBILL_DATA_PLANE: exports.DataPlane,
  }
})

const ORIGINS = ['e2e', 'e2e-virtual'] as const
const TYPES = ['text/plain', 'image/png', 'application/pdf'] as const

/** A grant of the e2e origins (keys "any": no prefix), with the limits explain must weigh. */
const grantArb = fc.record(
  {
    origin: fc.constantFrom(...ORIGINS),
    actions: fc.subarray(['read', 'write', 'delete', 'list'] as const, { minLength: 1 }),
    contentTypes: fc.subarray(['text/plain', 'image/png', 'image/*'] as const, { minLength: 1 }),
    maxContentLength: fc.constantFrom(10, 1000),
    overwrite: fc.boolean(),
    maxExpiresIn: fc.constantFrom(60, 3600, 604_800),
  },
  { requiredKeys: ['origin', 'actions'] },
)

const requestArb = fc.record(
  {
    action: fc.constantFrom('read', 'write', 'delete', 'list'),
    origin: fc.constantFrom(...ORIGINS),
    key: fc.constantFrom(`${FOLDER}/a.txt`, `${FOLDER}/b.png`, `${FOLDER}/`),
    contentType: fc.constantFrom(...TYPES),
    contentLength: fc.constantFrom(5, 500, 5000),
    overwrite: fc.boolean(),
    expiresIn: fc.constantFrom(30, 600, 7200),
  },
  { requiredKeys: ['action', 'origin', 'key'] },
)

/** A request, and grants mostly on its origin (so that all of a grant's rules come into play). */
const casesArb = requestArb.chain((asked) =>
  fc.tuple(
    fc.constant(asked),
    fc.array(
      fc
        .tuple(grantArb, fc.boolean())
        .map(([grant, here]) => (here ? { ...grant, origin: asked.origin } : grant)),
      { maxLength: 3 },
    ),
  ),
)

type Asked = typeof requestArb extends fc.Arbitrary<infer T> ? T : never

/** The request `asked` describes, as a caller would send it with `key`. */
function requestOf(asked: Asked, key: string): Request {
  const { action, origin, expiresIn } = asked
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const lifetime = expiresIn === undefined ? {} : { expiresIn }
  if (action === 'list') {
    return new Request(
      `http://waybill.test/v1/list/${origin}?prefix=${encodeURIComponent(asked.key)}`,
      { headers: { authorization: headers.authorization } },
    )
  }
  const [path, body] =
    action === 'write'
      ? [
          '/v1/uploads',
          {
            origin,
            key: asked.key,
            contentType: asked.contentType ?? 'application/octet-stream',
            ...(asked.contentLength === undefined ? {} : { contentLength: asked.contentLength }),
            ...(asked.overwrite === undefined ? {} : { overwrite: asked.overwrite }),
            ...lifetime,
          },
        ]
      : [
          '/v1/sign',
          {
            origin,
            keys: [asked.key],
            ...(action === 'delete' ? { method: 'DELETE' } : {}),
            ...lifetime,
          },
        ]
  return new Request(`http://waybill.test${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  })
}

async function asAdmin(path: string, body: unknown): Promise<Response> {
  return adminApp.request(
    `/admin/v1${path}`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    },
    adminEnv,
  )
}

interface Explained {
  status: number
  allowed: boolean
  refusal: { code: string; detail: string; errors: unknown[] } | null
}

describe('explain', () => {
  it(
    'says what the request gets, for any grants and request',
    async () => {
      const seen = new Map<number, number>()
      await fc.assert(
        fc.asyncProperty(casesArb, async ([asked, grants]) => {
          const made = await asAdmin('/keys', { grants })
          expect(made.status, await made.clone().text()).toBe(201)
          const { id, key } = await made.json<{ id: string; key: string }>()
          const explained = await asAdmin('/explain', { caller: { key: id }, ...asked })
          expect(explained.status, await explained.clone().text()).toBe(200)
          const verdict = await explained.json<Explained>()
          // The request as a caller would send it, made here, not taken from explain.
          const real = await exports.default.fetch(requestOf(asked, key))
          const text = await real.text()
          seen.set(real.status, (seen.get(real.status) ?? 0) + 1)
          expect(verdict.status, text).toBe(real.status)
          expect(verdict.allowed).toBe(real.status < 300)
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
        }),
        fuzzParameters(80),
      )
      // Both answers came up: the property was not held by one kind of verdict alone.
      console.info(JSON.stringify({ statuses: Object.fromEntries(seen) }))
      expect(seen.get(200)).toBeGreaterThan(0)
      expect([...seen.keys()].some((status) => status >= 400)).toBe(true)
    },
    FUZZ_TIMEOUT_MS,
  )
})
