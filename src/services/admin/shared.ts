// What the admin services share: the request's context (the control plane's database, the data
// plane's deployment, who and when), ids, times, pages, origins, and D1's failures as answers.

import type { DataPlaneBridge, Deployment, OriginTraits } from '../../schemas/bridge'
import { scopeProblem, type GrantDefinition } from '../../config/grants'
import { DEFAULT_ADMIN_PAGE } from '../../limits'
import { conflict, WaybillError, type FieldError } from '../../errors'
import { unavailable } from '../../control/plane'
import { deleteRecord, type AuditEntry } from '../../control/admin-store'

/** The data plane's deployment once it answered. */
export type Deployed = Extract<Deployment, { ok: true }>

/** What an admin request's services work with. */
export interface AdminContext {
  readonly db: D1Database
  /** The quota counters (the data plane's Durable Objects), to read a quota's use. */
  readonly quotaCounters: DurableObjectNamespace | undefined
  /** The data plane's configuration, asked once per request and only when needed. */
  deployment(): Promise<Deployed>
  /** The data plane, to ask it more (explain); `deployment` says when it is not bound. */
  readonly bridge: DataPlaneBridge | undefined
  readonly now: Date
  /** Who: `admin:<token id>` or `admin:access:<email>`. */
  readonly actor: string
  readonly requestId: string
  /**
   * The audit record of a write this request makes (it goes into the write's own transaction),
   * kept for the audit sinks too, which get it after the answer.
   */
  audit(fields: AuditFields): AuditEntry
}

/** What a write's audit record says besides who and when. */
export type AuditFields = Omit<AuditEntry, 'id' | 'actor' | 'requestId'>

/** `ctx.audit` for a request: each entry it makes is kept in `recorded`. */
export function auditor(
  actor: string,
  requestId: string,
  now: Date,
  recorded: AuditEntry[],
): AdminContext['audit'] {
  return (fields) => {
    const entry = { ...fields, id: newId('a', now), actor, requestId }
    recorded.push(entry)
    return entry
  }
}

/**
 * The deployment, asked of `bridge` at most once: a 503 when it cannot be asked (no binding, or
 * the data plane does not answer) or its configuration is invalid, naming each problem.
 */
export function deploymentOnce(bridge: DataPlaneBridge | undefined): () => Promise<Deployed> {
  let asked: Promise<Deployed> | undefined
  return () =>
    (asked ??= (async () => {
      if (bridge === undefined) {
        throw new WaybillError(
          'control_unavailable',
          'The admin plane is not bound to the data plane (WAYBILL_DATA_PLANE, a service binding to its DataPlane entrypoint), so it cannot check this against the deployment.',
        )
      }
      let deployment: Deployment
      try {
        deployment = await bridge.deployment()
      } catch (error) {
        throw unavailable(
          error,
          'The data plane (WAYBILL_DATA_PLANE) cannot be reached; nothing was changed. Retry shortly.',
        )
      }
      if (!deployment.ok) {
        throw new WaybillError(
          'config_invalid',
          `The data plane's configuration is invalid (${deployment.errors.length} problem${deployment.errors.length === 1 ? '' : 's'}); an operator must fix it.`,
          { errors: deployment.errors, headers: { 'retry-after': '60' } },
        )
      }
      return deployment
    })())
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz'

/**
 * A new record id: `<prefix>_`, the time in base 36 (so ids sort by creation, and pages follow
 * them), then 10 random characters.
 */
export function newId(prefix: string, now: Date): string {
  const random = crypto.getRandomValues(new Uint8Array(10))
  let tail = ''
  for (const byte of random) tail += BASE36[byte % 36]
  return `${prefix}_${now.getTime().toString(36).padStart(9, '0')}${tail}`
}

export function iso(ms: number): string {
  return new Date(ms).toISOString()
}

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms)
}

/**
 * `read` as the admin API's answer: D1's failures are a 503 (logged without the statement's
 * values), a uniqueness conflict raced past the service's own check is the 409 `taken` says.
 */
export async function stored<T>(read: () => Promise<T>, taken?: FieldError): Promise<T> {
  try {
    return await read()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (taken !== undefined && /UNIQUE constraint failed/.test(message)) {
      throw conflict([taken])
    }
    throw unavailable(
      error,
      'The control plane (D1) cannot be reached; nothing was changed. Retry shortly.',
    )
  }
}

/** Which page of a list: `limit` records from just after `cursor` (src/control/admin-schemas.ts). */
export type PageQuery = { limit?: number | undefined; cursor?: string | undefined }

/**
 * One page of records by id: `query.limit` of them (the default page otherwise) from just after
 * `query.cursor`, and the next page's cursor (null at the end). `select` reads `limit` rows.
 */
export async function pageOf<T extends { id: string }>(
  query: PageQuery,
  select: (after: string, limit: number) => Promise<T[]>,
): Promise<{ rows: T[]; cursor: string | null }> {
  const limit = query.limit ?? DEFAULT_ADMIN_PAGE
  const rows = await stored(() => select(query.cursor ?? '', limit + 1))
  const more = rows.length > limit
  const kept = more ? rows.slice(0, limit) : rows
  return { rows: kept, cursor: more ? kept.at(-1)!.id : null }
}

/** The 404 for a record `id` of `kind` the control plane does not hold. */
export function noRecord(kind: 'grant' | 'quota' | 'revocation', id: string): WaybillError {
  return new WaybillError('not_found', `No ${kind} "${id}".`, {
    errors: [{ path: 'id', message: `is not a ${kind} in the control plane` }],
  })
}

/**
 * Removes record `id` of `kind`, as `read` finds it (its view, for the audit record's `before`):
 * from then on (within the control plane's bound) it holds no more. A 404 when there is none.
 */
export async function removeRecord<T>(
  ctx: AdminContext,
  kind: 'grant' | 'quota' | 'revocation',
  id: string,
  read: () => Promise<T | null>,
  concerns: (record: T) => Pick<AuditFields, 'keyId' | 'principal'>,
): Promise<void> {
  const before = await stored(read)
  if (before === null) throw noRecord(kind, id)
  const entry = ctx.audit({
    action: `${kind}.delete`,
    target: id,
    ...concerns(before),
    before,
  })
  const { deleted } = await stored(() =>
    deleteRecord(ctx.db, `${kind}s`, id, ctx.now.getTime(), entry),
  )
  if (!deleted) throw noRecord(kind, id)
}

/**
 * The origin `name` the data plane has now; a 404 naming the field at `path` when there is none
 * (the document cannot know a deployment's origins).
 */
export function originNamed(deployment: Deployed, name: string, path: string): OriginTraits {
  const origin = deployment.origins.find((candidate) => candidate.name === name)
  if (origin !== undefined) return origin
  throw new WaybillError('not_found', `No origin "${name}" is configured.`, {
    errors: [{ path, message: 'is not an origin of WAYBILL_ORIGINS' }],
  })
}

/** A 403 for what an origin cannot hold, as the caller's routes refuse what it cannot serve. */
export function cannotHold(detail: string, errors: readonly FieldError[]): WaybillError {
  return new WaybillError('forbidden', detail, { errors })
}

/**
 * Throws unless `grant` (its shape checked by the route) can be one on its origin as configured
 * now, each problem named under `at` (`grants.3.`, or nothing for a body that is the grant).
 */
export function checkOnOrigin(deployment: Deployed, grant: GrantDefinition, at: string): void {
  const origin = originNamed(deployment, grant.origin, `${at}origin`)
  const problem = scopeProblem(grant, {
    ...origin,
    grantProblem: ({ wildcard }) =>
      origin.grantProblems[wildcard ? 'wildcard' : 'exact'] ?? undefined,
  })
  if (problem !== undefined) {
    throw cannotHold(`This grant would not hold on origin "${origin.name}".`, [
      { path: `${at}${problem.path}`, message: problem.message },
    ])
  }
}
