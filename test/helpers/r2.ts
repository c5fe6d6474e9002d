// An R2 origin in tests: Miniflare's local R2 behind the DEMO_R2 binding wrangler.jsonc declares,
// an origin `media` on it, an API key granted every action there, and the Worker's own URLs sent
// back into the Worker as a browser would send them.

import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { apiKeysBinding } from './api-keys'
import { workerEnv } from './worker-env'

type App = ReturnType<typeof createApp>

/** The local bucket every R2 test shares (keys under a folder of its own). */
export const r2Bucket = () => workerEnv.DEMO_R2 as R2Bucket

/** An env with the R2 origin `media` (with `settings` added), and `key` granted on it. */
export async function r2Env(
  key: string,
  settings: Record<string, unknown> = {},
  grant: Record<string, unknown> = {},
): Promise<Env> {
  return {
    ...workerEnv,
    WAYBILL_ORIGINS: JSON.stringify({ media: { type: 'r2', binding: 'DEMO_R2', ...settings } }),
    WAYBILL_API_KEYS: await apiKeysBinding([{ id: 'media-key', key }]),
    WAYBILL_GRANTS: JSON.stringify([
      {
        to: 'apiKey:media-key',
        origin: 'media',
        actions: ['read', 'write', 'delete', 'list'],
        ...grant,
      },
    ]),
  }
}

/**
 * A request to the Worker as a browser sends it: a body goes with its Content-Length (a Request
 * made in a test has none), and an `ExecutionContext` when the test waits on it.
 */
export async function browserRequest(
  app: App,
  env: Env,
  url: string,
  init: RequestInit = {},
  ctx?: ExecutionContext,
): Promise<Response> {
  const headers = new Headers(init.headers)
  if (init.body !== undefined && init.body !== null && !headers.has('content-length')) {
    const length = (await new Response(init.body).arrayBuffer()).byteLength
    headers.set('content-length', String(length))
  }
  return app.request(url, { ...init, headers }, env, ctx)
}

/** A JSON call to the API with the bearer `key`. */
export function apiCall(app: App, env: Env, key: string, path: string, body?: unknown) {
  return app.request(
    path,
    {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    },
    env,
  )
}

/** Signed GET URLs for `keys` on `media` (items when given instead). */
export async function signedUrls(
  app: App,
  env: Env,
  key: string,
  body: Record<string, unknown>,
): Promise<string[]> {
  const response = await apiCall(app, env, key, '/v1/sign', { origin: 'media', ...body })
  if (response.status !== 200) throw new Error(`sign: ${response.status} ${await response.text()}`)
  return (await response.json<{ urls: { url: string }[] }>()).urls.map((u) => u.url)
}
