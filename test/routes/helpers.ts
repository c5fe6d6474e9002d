// A self-contained app and env for route tests: no network, a fixed clock, two API keys.

import { createApp } from '../../src/app'
import type { Env } from '../../src/config/env'

export const NOW = new Date('2026-11-23T10:00:00Z')
export const ALL_KEY = 'wb_test_all_origins_0123456789'
export const PHOTOS_KEY = 'wb_test_photos_only_0123456789'
export const SECRET = 'routeTestSecret/DoNotUse+0123456789abcdefghij'

async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value))
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}

export async function testEnv(overrides: Partial<Env> = {}): Promise<Env> {
  return {
    WAYBILL_ORIGINS: {
      photos: { type: 's3', bucket: 'photos', region: 'eu-west-1', credentials: 'MAIN' },
      docs: {
        type: 's3',
        bucket: 'docs',
        region: 'us-east-1',
        endpoint: 'http://127.0.0.1:7070',
        credentials: 'MAIN',
      },
    },
    MAIN_ACCESS_KEY_ID: 'AKIDROUTETEST',
    MAIN_SECRET_ACCESS_KEY: SECRET,
    WAYBILL_API_KEYS: JSON.stringify([
      { id: 'all', sha256: await sha256Hex(ALL_KEY) },
      { id: 'photos-only', sha256: await sha256Hex(PHOTOS_KEY), label: 'the photos frontend' },
    ]),
    WAYBILL_GRANTS: JSON.stringify([
      { to: 'apiKey:all', origin: 'photos', actions: ['read', 'write', 'delete'] },
      { to: 'apiKey:all', origin: 'docs', actions: ['read', 'write', 'delete'] },
      { to: 'apiKey:photos-only', origin: 'photos', actions: ['read'] },
    ]),
    WAYBILL_MAX_BATCH: '50',
    ...overrides,
  }
}

export const app = createApp({ clock: () => NOW })

export interface Problem {
  type: string
  title: string
  status: number
  detail: string
  errors?: { path: string; message: string }[]
}

/** POST /v1/sign with a JSON body (or a raw string) and the all-origins key unless told. */
export async function postSign(
  body: unknown,
  options: { env?: Env; key?: string | null; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (options.key !== null) headers.authorization = `Bearer ${options.key ?? ALL_KEY}`
  return app.request(
    '/v1/sign',
    {
      method: 'POST',
      headers: { ...headers, ...options.headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    },
    options.env ?? (await testEnv()),
  )
}

/** Asserts a problem response and returns its body. */
export async function problemOf(response: Response): Promise<Problem> {
  if (response.headers.get('content-type') !== 'application/problem+json') {
    throw new Error(
      `expected a problem, got ${response.status} ${response.headers.get('content-type')}`,
    )
  }
  return (await response.json()) as Problem
}
