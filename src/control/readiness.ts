// Readiness: whether a Worker can do its work, not only whether it runs (that is /healthz). Each
// check names what it found: the control plane's database at the latest migration (D1 records the
// migrations `wrangler d1 migrations apply` applied, in d1_migrations), the quota counters (a
// Durable Object) answering, and for the admin plane the data plane answering its bridge.

import type { Context } from 'hono'
import * as v from 'valibot'
import { WaybillError } from '../errors'
import { Answer } from '../http/answer'
import { CONTROL_RETRY_AFTER_S } from '../limits'
import type { QuotaCounter } from './quota-counter'

/**
 * The latest migration in migrations/: the schema this code reads and writes
 * (test/control/migrations.test.ts holds it to the folder).
 */
export const LATEST_MIGRATION = '0003_audit_and_idempotency.sql'

/** One check's outcome, named as a /readyz answer and a problem's `errors` name it. */
export interface Check {
  readonly name: 'd1' | 'durableObjects' | 'dataPlane'
  readonly ok: boolean
  readonly detail: string
}

/** Why a D1 error means the schema is not there: a table or column it needs is missing. */
const NOT_MIGRATED = /no such (?:table|column)/i

/** Whether `error` says the control plane's database lacks the schema (it is not migrated). */
export function notMigrated(error: unknown): boolean {
  return error instanceof Error && NOT_MIGRATED.test(error.message)
}

/** The D1 database `db` holds LATEST_MIGRATION (and so every migration before it). */
export async function schemaCheck(db: D1Database): Promise<Check> {
  let rows: { name: string }[]
  try {
    const { results } = await db
      .prepare('SELECT name FROM d1_migrations ORDER BY id DESC')
      .all<{ name: string }>()
    rows = results
  } catch (error) {
    return notMigrated(error)
      ? { name: 'd1', ok: false, detail: `is not migrated: none of migrations/ is applied` }
      : { name: 'd1', ok: false, detail: `cannot be reached (${errorName(error)})` }
  }
  if (rows.some((row) => row.name === LATEST_MIGRATION)) {
    return { name: 'd1', ok: true, detail: `migrated (${LATEST_MIGRATION})` }
  }
  return {
    name: 'd1',
    ok: false,
    detail: `is not migrated: ${LATEST_MIGRATION} is not applied (the last is ${rows[0]?.name})`,
  }
}

/** One quota counter answers a read (a counter of its own, which holds no caller's quota). */
export async function countersCheck(
  counters: DurableObjectNamespace,
  nowMs: number,
): Promise<Check> {
  const typed = counters as unknown as DurableObjectNamespace<QuotaCounter>
  try {
    await typed.get(typed.idFromName('waybill:readiness')).read({ windowS: 60 }, nowMs)
    return { name: 'durableObjects', ok: true, detail: 'answer' }
  } catch (error) {
    return { name: 'durableObjects', ok: false, detail: `do not answer (${errorName(error)})` }
  }
}

/** The name of what was thrown, never its message (which may quote a statement or a value). */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error
}

/** `GET /readyz`'s answer when every check passes. */
export const READY = new Answer(
  v.object({
    ok: v.literal(true),
    checks: v.array(v.object({ name: v.string(), ok: v.boolean(), detail: v.string() })),
  }),
  'Ready: each check, and what it found',
)

/**
 * `/readyz`'s answer to `checks`: 200 listing them when every one passed, otherwise a 503
 * `control_unavailable` naming each that failed (its name as the field, what it found as the
 * message), with Retry-After. What failed is logged with its cause.
 */
export function readiness(c: Context, checks: readonly Check[]) {
  const failed = checks.filter((check) => !check.ok)
  if (failed.length === 0) return READY.json(c, { ok: true, checks: [...checks] })
  console.error(JSON.stringify({ level: 'error', message: 'not ready', failed }))
  throw new WaybillError(
    'control_unavailable',
    `Not ready: ${failed.map((check) => `${check.name} ${check.detail}`).join('; ')}.`,
    {
      errors: failed.map((check) => ({ path: check.name, message: check.detail })),
      headers: { 'retry-after': String(CONTROL_RETRY_AFTER_S) },
    },
  )
}
