// The control plane in tests: the local D1 and Durable Objects wrangler.jsonc declares (migrated
// by test/apply-migrations.ts), an admin token made for this run (its hash in
// WAYBILL_ADMIN_TOKENS), and a clock each test moves itself. The database is shared by every file
// of a run: tests name what they make with fresh ids.

import { env as bindings } from 'cloudflare:workers'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { apiKeysBinding } from './api-keys'

/** An admin token for this run only. */
export const ADMIN_TOKEN = `wba_${crypto.randomUUID().replaceAll('-', '')}`

/** A fresh name: ids of keys, folders, subjects, so that files sharing the database never meet. */
export function fresh(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`
}

/** `env` with the control plane bound: D1, the quota counters, the admin token. */
export async function withControl(env: Env): Promise<Env> {
  return {
    ...env,
    WAYBILL_DB: bindings.WAYBILL_DB,
    WAYBILL_QUOTAS: bindings.WAYBILL_QUOTAS,
    WAYBILL_ADMIN_TOKENS: await apiKeysBinding([{ id: 'ops', key: ADMIN_TOKEN }]),
  }
}

/** An app on a clock the test moves: `clock.now`, `clock.advance(ms)`. */
export function appWithClock(start: Date) {
  const clock = {
    now: start,
    advance(ms: number) {
      clock.now = new Date(clock.now.getTime() + ms)
    },
  }
  return { app: createApp({ clock: () => clock.now }), clock }
}

type App = ReturnType<typeof createApp>

/** A request to `app` with a JSON body (when given) and a bearer credential (when given). */
export function send(
  app: App,
  env: Env,
  method: string,
  path: string,
  options: { body?: unknown; bearer?: string; ctx?: ExecutionContext } = {},
): Promise<Response> {
  const headers: Record<string, string> = {}
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`
  if (options.body !== undefined) headers['content-type'] = 'application/json'
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

/** The same, as the admin. */
export function admin(app: App, env: Env, method: string, path: string, body?: unknown) {
  return send(app, env, method, `/admin/v1${path}`, { body, bearer: ADMIN_TOKEN })
}
