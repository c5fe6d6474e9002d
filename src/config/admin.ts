// The admin Worker's configuration (wrangler.admin.jsonc): the control plane's database and quota
// counters (the data plane's, shared), who may call it, where its audit events also go, and the
// data plane it asks about the deployment. No origin, credential, token secret or grant: those
// are the data plane's, reached through WAYBILL_DATA_PLANE (src/bridge/).
//
//   WAYBILL_DB (a D1 binding): the data plane's database. Required.
//   WAYBILL_QUOTAS (a Durable Object namespace binding, class QuotaCounter, "script_name" the data
//     plane): read for a quota's use.
//   WAYBILL_ADMIN_TOKENS (a secret): [{ "id", "sha256" }], bearer tokens for /admin/v1
//     (`npm run admin -- token <id>` makes one).
//   WAYBILL_AUTH: `{ "access": { "teamDomain", "aud", "admins" } }`, the Access application in front
//     of the admin hostname, and the identities that may administer.
//   WAYBILL_DATA_PLANE (a service binding): `{ "service": "waybill", "entrypoint": "DataPlane" }`.
//   WAYBILL_AUDIT, WAYBILL_AUDIT_QUEUE: as the data plane's (./control.ts), for admin events.

import * as v from 'valibot'
import type { DataPlaneBridge } from '../schemas/bridge'
import { authSchema } from './auth'
import { AuditDataset, AuditQueue, D1Binding, QuotasBinding } from './control'
import type { Env } from '../env'
import { hashedKeys } from './hashed-keys'
import { configErrors, json } from './load'
import type { AccessConfig, ApiKey, AuditConfig, ControlConfig } from './types'
import type { FieldError } from '../errors'

/** The admin Worker's bindings (wrangler.admin.jsonc). */
export interface AdminEnv {
  WAYBILL_DB?: unknown
  WAYBILL_QUOTAS?: unknown
  WAYBILL_ADMIN_TOKENS?: unknown
  WAYBILL_AUTH?: unknown
  WAYBILL_DATA_PLANE?: unknown
  WAYBILL_AUDIT?: unknown
  WAYBILL_AUDIT_QUEUE?: unknown
  WAYBILL_REQUEST_LOG?: unknown
  /** The static assets binding: the admin UI, the admin API's document and reference page. */
  ASSETS?: Fetcher
  [name: string]: unknown
}

export interface AdminConfig {
  readonly control: ControlConfig
  /** WAYBILL_ADMIN_TOKENS: who may call with a bearer token (hashes only). */
  readonly adminTokens: readonly ApiKey[]
  /** The Access application in front of the admin hostname, and its admins. */
  readonly access?: AccessConfig | undefined
  readonly audit: AuditConfig
  /** The data plane, when bound: what the admin plane knows of the deployment comes from it. */
  readonly dataPlane?: DataPlaneBridge | undefined
  readonly requestLog: 'all' | 'errors'
}

export type AdminConfigResult =
  | { readonly ok: true; readonly config: AdminConfig }
  | { readonly ok: false; readonly errors: readonly FieldError[] }

const DataPlaneBinding = v.pipe(
  v.optional(v.unknown()),
  v.rawTransform(({ dataset: { value }, addIssue, NEVER }): DataPlaneBridge | undefined => {
    if (value === undefined || value === null || value === '') return undefined
    // A service binding answers every method name with an RPC stub; a test's bridge is an object.
    const deployment = (value as { deployment?: unknown }).deployment
    if (typeof deployment === 'function') return value as DataPlaneBridge
    addIssue({
      message:
        'must be a service binding to the data plane\'s DataPlane entrypoint (wrangler.admin.jsonc: "services": [{ "binding": "WAYBILL_DATA_PLANE", "service": "waybill", "entrypoint": "DataPlane" }])',
    })
    return NEVER
  }),
)

const cache = new WeakMap<object, AdminConfigResult>()

/**
 * The admin Worker's configuration, parsed once per `env` (so once per isolate), every problem
 * named at its variable.
 *
 * @example
 * const result = loadAdminConfig(env)
 * if (!result.ok) console.log(result.errors) // [{ path: 'WAYBILL_DB', message: '…' }]
 */
export function loadAdminConfig(env: AdminEnv): AdminConfigResult {
  const cached = cache.get(env)
  if (cached !== undefined) return cached
  const schema = v.object({
    // The default makes v.object run this for an absent binding too.
    WAYBILL_DB: v.pipe(
      v.optional(v.unknown(), ''),
      D1Binding,
      v.rawTransform(({ dataset, addIssue, NEVER }): ControlConfig['db'] => {
        const db = dataset.value
        if (db !== undefined) return db
        addIssue({
          message:
            'is required: the control plane\'s D1 database, the data plane\'s (wrangler.admin.jsonc "d1_databases")',
        })
        return NEVER
      }),
    ),
    WAYBILL_QUOTAS: QuotasBinding,
    WAYBILL_ADMIN_TOKENS: json(hashedKeys('WAYBILL_ADMIN_TOKENS', 'npm run admin -- token <id>')),
    WAYBILL_AUTH: json(authSchema(env as Env)),
    WAYBILL_DATA_PLANE: DataPlaneBinding,
    WAYBILL_AUDIT: AuditDataset,
    WAYBILL_AUDIT_QUEUE: AuditQueue,
    WAYBILL_REQUEST_LOG: v.optional(
      v.picklist(['all', 'errors'], 'must be "all" (the default) or "errors"'),
      'all',
    ),
  })
  const parsed = v.safeParse(schema, env)
  const result: AdminConfigResult = parsed.success
    ? {
        ok: true,
        config: Object.freeze({
          control: Object.freeze({
            db: parsed.output.WAYBILL_DB,
            quotaCounters: parsed.output.WAYBILL_QUOTAS,
          }),
          adminTokens: parsed.output.WAYBILL_ADMIN_TOKENS,
          access: parsed.output.WAYBILL_AUTH.access,
          audit: Object.freeze({
            dataset: parsed.output.WAYBILL_AUDIT,
            queue: parsed.output.WAYBILL_AUDIT_QUEUE,
          }),
          dataPlane: parsed.output.WAYBILL_DATA_PLANE,
          requestLog: parsed.output.WAYBILL_REQUEST_LOG,
        }),
      }
    : { ok: false, errors: Object.freeze(configErrors(env as Env, parsed.issues)) }
  cache.set(env, Object.freeze(result))
  return result
}
