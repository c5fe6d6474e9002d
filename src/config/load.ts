// Turns the Worker's `env` into a frozen, checked Config, once per env object (so once per isolate).
// Each variable has a schema; every problem is collected, not just the first, and each names the
// variable and the field. Secret values are never echoed: a message may say a secret is missing or
// malformed, never what it holds.

import * as v from 'valibot'
import type { FieldError } from '../errors'
import { ExpiresIn, wholeNumber } from '../schemas/fields'
import { fieldErrors, pathTo } from '../schemas/valibot'
import { authSchema } from './auth'
import { Cors } from '../schemas/cors'
import type { Env } from '../env'
import { completeGrant, grantsSchema } from './grants'
import { hashedKeys } from './hashed-keys'
import { AuditDataset, AuditQueue, D1Binding, LinkUsesBinding, QuotasBinding } from './control'
import { LinkRevocations } from './links'
import { TokenSecrets } from './tokens'
import {
  DEFAULT_EXPIRES_S,
  DEFAULT_MAX_BATCH,
  DEFAULT_MAX_RSA_SIGNATURES,
  MAX_BATCH_CEILING,
  MAX_RSA_SIGNATURES_CEILING,
} from '../limits'
import { notifySchema } from './notify'
import { originsSchema } from '../origins'
import type { Config, ConfigResult, Origin } from './types'

const cache = new WeakMap<object, ConfigResult>()

/**
 * Parses and validates the Worker's configuration. The result is cached per `env` object, which
 * workerd keeps for the life of an isolate, so the work happens once.
 *
 * @example
 * const result = loadConfig(env)
 * if (!result.ok) console.log(result.errors) // [{ path: 'WAYBILL_ORIGINS.photos.bucket', message: '…' }]
 */
export function loadConfig(env: Env): ConfigResult {
  const cached = cache.get(env)
  if (cached !== undefined) return cached
  const result = parseConfig(env)
  cache.set(env, result)
  return result
}

/** Uncached parse, for tests. */
export function parseConfig(env: Env): ConfigResult {
  // The grants are checked against the origins, so those come first.
  const origins = v.safeParse(v.object({ WAYBILL_ORIGINS: json(originsSchema(env)) }), env)
  const valid = origins.success ? origins.output.WAYBILL_ORIGINS : undefined
  const rest = v.safeParse(variables(env, valid), env)
  const notify = v.safeParse(notifySchema(env), env)
  if (!origins.success || !rest.success || !notify.success) {
    const errors = configErrors(env, [
      ...(origins.issues ?? []),
      ...(rest.issues ?? []),
      ...(notify.issues ?? []),
    ])
    return Object.freeze({ ok: false, errors: Object.freeze(errors) })
  }
  const config: Config = Object.freeze({
    origins: origins.output.WAYBILL_ORIGINS,
    ...rest.output,
    notify: notify.output,
  })
  return Object.freeze({ ok: true, config })
}

/** Every variable but WAYBILL_ORIGINS, becoming the rest of the Config. */
function variables(env: Env, origins: ReadonlyMap<string, Origin> | undefined) {
  return v.pipe(
    v.object({
      WAYBILL_API_KEYS: json(hashedKeys('WAYBILL_API_KEYS', 'npm run hash-key')),
      WAYBILL_AUTH: json(authSchema(env)),
      WAYBILL_CORS: json(Cors),
      WAYBILL_MAX_BATCH: count(DEFAULT_MAX_BATCH, wholeNumber(1, MAX_BATCH_CEILING)),
      WAYBILL_GRANTS: json(grantsSchema(origins)),
      WAYBILL_DEFAULT_EXPIRES_S: count(DEFAULT_EXPIRES_S, ExpiresIn),
      WAYBILL_MAX_RSA_SIGNATURES: count(
        DEFAULT_MAX_RSA_SIGNATURES,
        wholeNumber(1, MAX_RSA_SIGNATURES_CEILING),
      ),
      WAYBILL_TOKEN_SECRETS: json(TokenSecrets),
      // Its former name is read no more: set, it is an error saying so (CHANGELOG.md).
      WAYBILL_LINK_SECRETS: v.optional(v.unknown()),
      WAYBILL_LINK_REVOCATIONS: json(LinkRevocations),
      WAYBILL_REQUEST_LOG: v.optional(
        v.picklist(['all', 'errors'], 'must be "all" (the default) or "errors"'),
        'all',
      ),
      WAYBILL_DB: D1Binding,
      WAYBILL_QUOTAS: QuotasBinding,
      WAYBILL_LINK_USES: LinkUsesBinding,
      WAYBILL_AUDIT: AuditDataset,
      WAYBILL_AUDIT_QUEUE: AuditQueue,
    }),
    // What needs the control plane's database.
    v.rawTransform(({ dataset: { value: vars }, addIssue, NEVER }) => {
      if (vars.WAYBILL_DB !== undefined || vars.WAYBILL_QUOTAS === undefined) return vars
      addIssue({
        message:
          'needs WAYBILL_DB, the control plane\'s D1 database (wrangler.jsonc "d1_databases")',
        path: pathTo(env, 'WAYBILL_QUOTAS'),
      })
      return NEVER
    }),
    // The token secrets: required, under their one name.
    v.rawTransform(({ dataset: { value: vars }, addIssue, NEVER }) => {
      if (vars.WAYBILL_LINK_SECRETS !== undefined) {
        addIssue({
          message: 'is read no more: name it WAYBILL_TOKEN_SECRETS (CHANGELOG.md)',
          path: pathTo(env, 'WAYBILL_LINK_SECRETS'),
        })
        return NEVER
      }
      if (vars.WAYBILL_TOKEN_SECRETS.length === 0) {
        addIssue({
          message:
            'is required: a JSON array of { "id", "secret" } (32 characters or more) that seals links, upload handles, receipts and listing cursors',
          path: pathTo(env, 'WAYBILL_TOKEN_SECRETS'),
        })
        return NEVER
      }
      return vars
    }),
    v.transform((vars) => ({
      apiKeys: vars.WAYBILL_API_KEYS,
      jwt: vars.WAYBILL_AUTH.jwt,
      access: vars.WAYBILL_AUTH.access,
      grants: Object.freeze(
        vars.WAYBILL_GRANTS.map((grant) => completeGrant(grant, vars.WAYBILL_MAX_BATCH)),
      ),
      cors: vars.WAYBILL_CORS,
      maxBatch: vars.WAYBILL_MAX_BATCH,
      defaultExpiresIn: vars.WAYBILL_DEFAULT_EXPIRES_S,
      maxRsaSignatures: vars.WAYBILL_MAX_RSA_SIGNATURES,
      requestLog: vars.WAYBILL_REQUEST_LOG,
      tokenSecrets: vars.WAYBILL_TOKEN_SECRETS,
      linkRevocations: vars.WAYBILL_LINK_REVOCATIONS,
      linkUses: vars.WAYBILL_LINK_USES,
      control:
        vars.WAYBILL_DB === undefined
          ? undefined
          : Object.freeze({ db: vars.WAYBILL_DB, quotaCounters: vars.WAYBILL_QUOTAS }),
      audit: Object.freeze({ dataset: vars.WAYBILL_AUDIT, queue: vars.WAYBILL_AUDIT_QUEUE }),
      // The env's own config has none; the control plane adds a caller's (src/control/plane.ts).
      quotas: Object.freeze([]),
    })),
  )
}

/**
 * A JSON variable: a wrangler var is JSON already, a secret or `.dev.vars` entry is JSON text.
 * Absent and blank are `undefined`.
 */
export function json<const TSchema extends v.GenericSchema>(schema: TSchema) {
  return v.pipe(
    // The default makes v.object run this for an absent variable too.
    v.optional(v.unknown(), ''),
    v.rawTransform(({ dataset: { value }, addIssue, NEVER }): unknown => {
      if (typeof value !== 'string') return value
      if (value.trim() === '') return undefined
      try {
        return JSON.parse(value)
      } catch {
        addIssue({ message: 'is not valid JSON' })
        return NEVER
      }
    }),
    schema,
  )
}

/** A whole-number variable: a number, or its digits as a string (as wrangler vars often are). */
function count<TOutput>(fallback: number, schema: v.GenericSchema<number, TOutput>) {
  return v.pipe(
    v.optional(v.unknown(), fallback),
    // NaN (anything else) fails `schema`.
    v.transform((value) => {
      if (value === '') return fallback
      if (typeof value === 'number') return value
      return typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN
    }),
    schema,
  )
}

/**
 * The config's errors, one per field, each at its dotted path from the variable
 * (`WAYBILL_ORIGINS.photos.bucket`). A problem with a secret a field names was raised at
 * `pathTo(env, NAME)` (see readSecret): it is filed under the secret, saying which field named it.
 */
export function configErrors(env: Env, issues: readonly v.BaseIssue<unknown>[]): FieldError[] {
  return fieldErrors(
    issues.map(({ message, path = [] }) => {
      const secret = path.findLastIndex((item) => item.input === env)
      if (secret <= 0) return { message, path }
      const field = path
        .slice(0, secret)
        .map((item) => String(item.key))
        .join('.')
      return { message: `for ${field}: ${message}`, path: path.slice(secret) }
    }),
  )
}
