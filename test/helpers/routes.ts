// A self-contained app and env for route tests: no network, a fixed clock, two API keys.

import committedDocument from '../../docs/openapi.json'
import { createAdminApp } from '../../src/admin/app'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { apiKeysBinding } from './api-keys'
import { TEST_TOKEN_SECRETS } from '../fixtures/token-secrets'

export const NOW = new Date('2026-11-23T10:00:00Z')
export const ALL_KEY = 'wb_test_all_origins_0123456789'
export const PHOTOS_KEY = 'wb_test_photos_only_0123456789'
export const SECRET = 'routeTestSecret/DoNotUse+0123456789abcdefghij'

/** The S3 origin route tests sign for most, with the `MAIN` credentials. */
export const PHOTOS_ORIGIN = {
  type: 's3',
  bucket: 'photos',
  region: 'eu-west-1',
  credentials: 'MAIN',
} as const

/** A CloudFront origin whose private key is the `CDN_PRIVATE_KEY` binding. */
export const CDN_ORIGIN = {
  type: 'cloudfront',
  baseUrl: 'https://cdn.example.com/assets',
  keyPairId: 'K2JCJMDEHXQW5F',
  privateKey: 'CDN_PRIVATE_KEY',
} as const

/** Two S3 origins and a CloudFront one, for tests that cover both kinds. */
export const S3_AND_CDN_ORIGINS = {
  photos: PHOTOS_ORIGIN,
  docs: { type: 's3', bucket: 'docs', region: 'us-east-1', credentials: 'MAIN' },
  cdn: CDN_ORIGIN,
} as const

/**
 * A stand-in for the static assets binding: what scripts/docs-assets.mjs puts in public/ (the
 * committed API document, a page for /docs), answered by path, 404 otherwise.
 */
export const TEST_ASSETS = {
  fetch(input: RequestInfo | URL): Promise<Response> {
    const path = new URL(input instanceof Request ? input.url : input).pathname
    if (path === '/openapi.json') return Promise.resolve(Response.json(committedDocument))
    if (path === '/docs') {
      const page = '<!doctype html><title>waybill API</title>'
      return Promise.resolve(new Response(page, { headers: { 'content-type': 'text/html' } }))
    }
    return Promise.resolve(new Response('Not Found', { status: 404 }))
  },
  connect() {
    throw new Error('not a socket')
  },
} as Fetcher

export async function testEnv(overrides: Partial<Env> = {}): Promise<Env> {
  return {
    ASSETS: TEST_ASSETS,
    WAYBILL_TOKEN_SECRETS: TEST_TOKEN_SECRETS,
    WAYBILL_ORIGINS: {
      photos: PHOTOS_ORIGIN,
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
    WAYBILL_API_KEYS: await apiKeysBinding([
      { id: 'all', key: ALL_KEY },
      { id: 'photos-only', key: PHOTOS_KEY, label: 'the photos frontend' },
    ]),
    WAYBILL_GRANTS: JSON.stringify([
      // Bare PUT URLs from /v1/sign cannot refuse to replace an object: they need `overwrite`.
      { to: 'apiKey:all', origin: 'photos', actions: ['read', 'write', 'delete'], overwrite: true },
      { to: 'apiKey:all', origin: 'docs', actions: ['read', 'write', 'delete'], overwrite: true },
      { to: 'apiKey:photos-only', origin: 'photos', actions: ['read'] },
    ]),
    WAYBILL_MAX_BATCH: '50',
    ...overrides,
  }
}

export const app = createApp({ clock: () => NOW })

/** The admin plane's app, on the same clock. */
export const adminApp = createAdminApp({ clock: () => NOW })

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
  return await response.json<Problem>()
}
