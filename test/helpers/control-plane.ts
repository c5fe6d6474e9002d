// The control plane in tests: the local D1 and Durable Objects wrangler.jsonc declares (migrated
// by test/apply-migrations.ts), the two Workers' apps over them (the data plane's, and the admin
// plane's with an admin token made for this run), and a clock each test moves itself. The
// database is shared by every file of a run: tests name what they make with fresh ids.
//
// The admin app reaches the data plane as a deployment reaches it through its service binding:
// through the bridge (src/bridge/), here over the same env as the data app's, in the same isolate.

import { env as bindings } from 'cloudflare:workers'
import { createAdminApp } from '../../src/admin/app'
import { createApp } from '../../src/app'
import { bridgeOf } from '../../src/bridge'
import type { AdminEnv } from '../../src/config/admin'
import type { Env } from '../../src/env'
import { apiKeysBinding } from './api-keys'

/** An admin token for this run only. */
export const ADMIN_TOKEN = `wba_${crypto.randomUUID().replaceAll('-', '')}`

/** A fresh name: ids of keys, folders, subjects, so that files sharing the database never meet. */
export function fresh(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`
}

/** `env` with the control plane bound: D1 and the quota counters. */
export function withControl(env: Env): Promise<Env> {
  return Promise.resolve({
    ...env,
    WAYBILL_DB: bindings.WAYBILL_DB,
    WAYBILL_QUOTAS: bindings.WAYBILL_QUOTAS,
  })
}

const adminEnvs = new WeakMap<Env, Promise<AdminEnv>>()

/**
 * The admin Worker's env beside the data plane's `env`: its D1 and quota counters, this run's
 * admin token, the data plane as its bridge, and the Access application `env` names (if any).
 */
export function adminEnvOf(env: Env): Promise<AdminEnv> {
  let made = adminEnvs.get(env)
  if (made === undefined) {
    made = apiKeysBinding([{ id: 'ops', key: ADMIN_TOKEN }]).then((tokens) => ({
      WAYBILL_DB: env.WAYBILL_DB,
      WAYBILL_QUOTAS: env.WAYBILL_QUOTAS,
      WAYBILL_ADMIN_TOKENS: tokens,
      WAYBILL_AUTH: env.WAYBILL_AUTH,
      WAYBILL_JWT_HS256_SECRET: env.WAYBILL_JWT_HS256_SECRET,
      WAYBILL_DATA_PLANE: bridgeOf(env),
    }))
    adminEnvs.set(env, made)
  }
  return made
}

/**
 * The two Workers' apps on a clock the test moves: `clock.now`, `clock.advance(ms)`. They are two
 * isolates: an admin write reaches the data app's caches within the control plane's bound
 * (CONTROL_MAX_AGE_MS), not at once.
 */
export function appWithClock(start: Date) {
  const clock = {
    now: start,
    advance(ms: number) {
      clock.now = new Date(clock.now.getTime() + ms)
    },
  }
  const now = () => clock.now
  return { app: createApp({ clock: now }), adminApp: createAdminApp({ clock: now }), clock }
}

type App = ReturnType<typeof createApp>
export type AdminApp = ReturnType<typeof createAdminApp>

/** A request to `app` with a JSON body (when given) and a bearer credential (when given). */
export function send(
  app: App | AdminApp,
  env: Env | AdminEnv,
  method: string,
  path: string,
  options: { body?: unknown; bearer?: string; ctx?: ExecutionContext; headers?: HeadersInit } = {},
): Promise<Response> {
  const headers = new Headers(options.headers)
  if (options.bearer !== undefined) headers.set('authorization', `Bearer ${options.bearer}`)
  if (options.body !== undefined) headers.set('content-type', 'application/json')
  return Promise.resolve(
    app.request(
      path,
      {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      },
      env,
      options.ctx,
    ),
  )
}

/** A request to the admin app, as the admin, beside the data plane's `env`. */
export async function admin(
  app: AdminApp,
  env: Env,
  method: string,
  path: string,
  body?: unknown,
  headers?: HeadersInit,
) {
  return send(app, await adminEnvOf(env), method, `/admin/v1${path}`, {
    body,
    bearer: ADMIN_TOKEN,
    headers,
  })
}
