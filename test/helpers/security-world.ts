// The world the security tests attack: the Worker's versitygw bucket behind a safe origin (`s3`),
// the same bucket with keys "any" (`loose`, whole-bucket grants only), and a CloudFront origin
// (`cdn`, RSA, listing `s3`). Two API keys, `alice` and `bob`, each limited to its own folder,
// and HS256 JWTs. Upload limits (type, size) are on alice's whole-bucket grant on
// `loose`. Everything runs on the real clock: URLs go to versitygw.

import { inject } from 'vitest'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { AUDIENCE, HS256_SECRET, ISSUER } from '../fixtures/auth'
import { apiKeysBinding } from './api-keys'
import { e2eOrigin, workerEnv } from './worker-env'

const testKeys = inject('testKeys')

export const ROOT = `sec-${crypto.randomUUID().slice(0, 8)}`
export const MIB = 1024 * 1024
const CALLERS = { alice: 'wb_test_sec_alice_0123456789', bob: 'wb_test_sec_bob_0123456789' }
/** The grant limits every class pushes against. */
export const LIMITS = { maxExpiresIn: 3600, maxBatch: 5, maxContentLength: 12 * MIB, rsa: 3 }
export const WILDCARD_MAX_EXPIRES_S = 600

export const app = createApp()

/** The security env, with `extraGrants` after the standard ones. */
export async function securityEnv(
  overrides: Partial<Env> = {},
  extraGrants: readonly Record<string, unknown>[] = [],
): Promise<Env> {
  const e2e = e2eOrigin()
  return {
    ...workerEnv,
    WAYBILL_ORIGINS: JSON.stringify({
      s3: { ...e2e, keys: 'safe' },
      loose: e2e,
      cdn: {
        type: 'cloudfront',
        baseUrl: 'https://cdn.example.com',
        keyPairId: 'K2JCJMDEHXQW5F',
        privateKey: 'CDN_PRIVATE_KEY',
        listFrom: 's3',
      },
    }),
    CDN_PRIVATE_KEY: testKeys.rsaPkcs8,
    WAYBILL_API_KEYS: await apiKeysBinding(
      Object.entries(CALLERS).map(([id, key]) => ({ id, key })),
    ),
    WAYBILL_AUTH: JSON.stringify({ jwt: { issuer: ISSUER, audience: AUDIENCE, hs256: true } }),
    WAYBILL_JWT_HS256_SECRET: HS256_SECRET,
    WAYBILL_MAX_RSA_SIGNATURES: String(LIMITS.rsa),
    WAYBILL_TOKEN_SECRETS: JSON.stringify([
      { id: 'k1', secret: 'security-tests-link-secret-0123456789' },
    ]),
    WAYBILL_GRANTS: JSON.stringify([
      // One grant per caller rather than `{apiKey}`, so the same tests run on older code too.
      ...Object.keys(CALLERS).map((id) => ({
        to: `apiKey:${id}`,
        origin: 's3',
        prefix: `${ROOT}/${id}/`,
        actions: ['read', 'write', 'delete', 'list'],
        maxExpiresIn: LIMITS.maxExpiresIn,
        maxBatch: LIMITS.maxBatch,
        // Bare PUT URLs and POST forms cannot refuse to replace an object: they need this.
        overwrite: true,
      })),
      { to: '*', origin: 's3', prefix: `${ROOT}/jwt/{sub}/`, actions: ['read'] },
      { to: 'email:ops@example.com', origin: 's3', prefix: `${ROOT}/ops/`, actions: ['read'] },
      {
        to: 'apiKey:alice',
        origin: 'cdn',
        prefix: `${ROOT}/alice/`,
        actions: ['read', 'list'],
        maxBatch: LIMITS.maxBatch,
      },
      {
        to: 'apiKey:alice',
        origin: 'cdn',
        prefix: `${ROOT}/alice/`,
        actions: ['read'],
        wildcard: true,
        maxExpiresIn: WILDCARD_MAX_EXPIRES_S,
        maxBatch: LIMITS.maxBatch,
      },
      {
        to: 'apiKey:alice',
        origin: 'loose',
        actions: ['write'],
        contentTypes: ['image/png'],
        maxContentLength: LIMITS.maxContentLength,
        overwrite: true,
      },
      ...extraGrants,
    ]),
    ...overrides,
  }
}

/** Who calls: an API key by name, a bearer token as is, or nobody. */
export type Caller = keyof typeof CALLERS | { token: string } | null

function authorization(caller: Caller): Record<string, string> {
  if (caller === null) return {}
  const token = typeof caller === 'string' ? CALLERS[caller] : caller.token
  return { authorization: `Bearer ${token}` }
}

/** A request to `worker` (default: the app on the real clock) as `caller`. */
export async function callWith(
  worker: ReturnType<typeof createApp>,
  env: Env,
  method: string,
  path: string,
  body?: unknown,
  caller: Caller = 'alice',
  headers: Record<string, string> = {},
): Promise<Response> {
  return worker.request(
    path,
    {
      method,
      headers: {
        ...authorization(caller),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      // A string is sent as it is: raw JSON text.
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    },
    env,
  )
}

export function call(
  env: Env,
  method: string,
  path: string,
  body?: unknown,
  caller: Caller = 'alice',
  headers: Record<string, string> = {},
): Promise<Response> {
  return callWith(app, env, method, path, body, caller, headers)
}

export interface Problem {
  status: number
  detail: string
  errors?: { path: string; message: string }[]
}

/** The problem body of a 4xx answer, or an error saying what came instead. */
export async function problem(response: Response): Promise<Problem> {
  const text = await response.text()
  if (response.headers.get('content-type') !== 'application/problem+json') {
    throw new Error(`expected a problem, got ${response.status}: ${text.slice(0, 300)}`)
  }
  return JSON.parse(text) as Problem
}

/** A multipart upload started by `caller` for `key`, with its handle. */
export async function startUpload(
  env: Env,
  key: string,
  caller: Caller = 'alice',
  contentLength = 6 * MIB,
): Promise<{ uploadId: string; partSize: number; parts: { partNumber: number; url: string }[] }> {
  const response = await call(
    env,
    'POST',
    '/v1/uploads',
    { origin: 's3', mode: 'multipart', key, contentType: 'image/png', contentLength },
    caller,
  )
  if (response.status !== 200) throw new Error(`multipart: ${await response.text()}`)
  return response.json()
}
