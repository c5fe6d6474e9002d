// The control plane's bindings and the audit sinks (docs/operating.md).
//
//   WAYBILL_DB (a D1 binding): API keys (hashes only), grants, revocations, quota settings and
//     usage, changed at run time through the admin API. Without it, the env's JSON is all there is.
//   WAYBILL_QUOTAS (a Durable Object namespace binding, class QuotaCounter): quota counters.
//   WAYBILL_LINK_USES (a Durable Object namespace binding, class LinkUses): the use counters of
//     links with `maxUses`. Needs no D1: a link carries its limit, and its counter is all it needs.
//   The admin Worker's own (./admin.ts): WAYBILL_ADMIN_TOKENS and WAYBILL_DATA_PLANE.
//   WAYBILL_AUDIT (an Analytics Engine dataset binding) and WAYBILL_AUDIT_QUEUE (a Queue producer
//     binding): where audit events go, either or both.

import * as v from 'valibot'
import { isRecord, typeName } from '../schemas/valibot'
import type { AuditConfig, Config, ControlConfig } from './types'

/** An optional binding that must have the functions `methods`; absent and blank are undefined. */
function binding<T>(methods: readonly string[], what: string, declare: string) {
  return v.pipe(
    v.optional(v.unknown()),
    v.rawTransform(({ dataset: { value }, addIssue, NEVER }): T | undefined => {
      if (value === undefined || value === null || value === '') return undefined
      if (isRecord(value) && methods.every((name) => typeof value[name] === 'function')) {
        // A binding, not data: left as workerd made it.
        return value as T
      }
      addIssue({
        message: `must be ${what} (wrangler.jsonc: ${declare}), not ${isRecord(value) ? `an object without ${methods.join('() and ')}()` : typeName(value)}`,
      })
      return NEVER
    }),
  )
}

export const D1Binding = binding<ControlConfig['db']>(
  ['prepare', 'batch'],
  'a D1 database binding',
  '"d1_databases": [{ "binding": "WAYBILL_DB", … }]',
)

export const QuotasBinding = binding<NonNullable<ControlConfig['quotaCounters']>>(
  ['idFromName', 'get'],
  'a Durable Object namespace binding of class QuotaCounter',
  '"durable_objects": { "bindings": [{ "name": "WAYBILL_QUOTAS", "class_name": "QuotaCounter" }] }',
)

export const LinkUsesBinding = binding<NonNullable<Config['linkUses']>>(
  ['idFromName', 'get'],
  'a Durable Object namespace binding of class LinkUses',
  '"durable_objects": { "bindings": [{ "name": "WAYBILL_LINK_USES", "class_name": "LinkUses" }] }',
)

export const AuditDataset = binding<NonNullable<AuditConfig['dataset']>>(
  ['writeDataPoint'],
  'an Analytics Engine dataset binding',
  '"analytics_engine_datasets": [{ "binding": "WAYBILL_AUDIT", "dataset": "…" }]',
)

export const AuditQueue = binding<NonNullable<AuditConfig['queue']>>(
  ['send'],
  'a Queue producer binding',
  '"queues": { "producers": [{ "binding": "WAYBILL_AUDIT_QUEUE", "queue": "…" }] }',
)
