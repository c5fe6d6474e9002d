// WAYBILL_GRANTS: what each principal may sign. Deny by default: no grant, no URL.
//
//   [{ "to": "apiKey:web" | "sub:<sub>" | "role:<role>" | "email:<email>" | "*",
//      "origin": "photos", "prefix": "users/{sub}/", "actions": ["read", "write", "delete", "list"],
//      "maxExpiresIn"?: 3600, "maxBatch"?: 1000, "contentTypes"?: ["image/*"], "maxContentLength"?: 10485760,
//      "responseContentTypes"?: ["application/pdf"], "wildcard"?: false }]

import { MAX_BATCH_CEILING, MAX_EXPIRES_S } from './limits'
import { checkExpiresIn } from '../core/s3/presign'
import type { FieldError } from '../errors'
import { isRecord, rejectUnknownFields } from '../validation'
import type { Action, Grant, GrantSubject, Origin } from './types'

const GRANT_FIELDS = new Set([
  'to',
  'origin',
  'prefix',
  'actions',
  'maxExpiresIn',
  'maxBatch',
  'contentTypes',
  'maxContentLength',
  'responseContentTypes',
  'wildcard',
])
const ACTIONS: ReadonlySet<string> = new Set<Action>(['read', 'write', 'delete', 'list', 'debug'])
const SUBJECT_KINDS = new Set(['apiKey', 'sub', 'role', 'email'])
/** `{claim}` placeholders in a prefix. */
export const PLACEHOLDER = /\{([A-Za-z0-9_:.-]{1,128})\}/g
const CONTENT_TYPE = /^[a-z0-9!#$&^_.+-]+\/(?:\*|[a-z0-9!#$&^_.+-]+)$/
/** S3's largest single object. */
const MAX_OBJECT_BYTES = 5 * 1024 ** 4

function parseSubject(
  value: unknown,
  path: string,
  errors: FieldError[],
): GrantSubject | undefined {
  if (value === '*') return { kind: 'any' }
  if (typeof value === 'string') {
    const colon = value.indexOf(':')
    const kind = value.slice(0, colon)
    const subject = value.slice(colon + 1)
    if (colon > 0 && SUBJECT_KINDS.has(kind) && subject !== '') {
      return { kind: kind as 'apiKey' | 'sub' | 'role' | 'email', value: subject }
    }
  }
  errors.push({
    path,
    message: 'must be "apiKey:<id>", "sub:<subject>", "role:<role>", "email:<address>" or "*"',
  })
  return undefined
}

/** Why a prefix template cannot be a grant's prefix, or undefined. */
function prefixProblem(prefix: string): string | undefined {
  const literal = prefix.replace(PLACEHOLDER, 'x')
  if (/[{}]/.test(literal)) return 'has a malformed {placeholder}'
  if (literal.startsWith('/')) return 'must not start with "/"'
  if (/[\x00-\x1f\x7f\\]/.test(literal)) return 'must not contain control characters or "\\"'
  const segments = literal.split('/')
  // The last segment may be empty (a trailing slash) or partial; earlier ones are whole.
  if (segments.slice(0, -1).some((s) => s === '' || s === '.' || s === '..')) {
    return 'must not contain empty, "." or ".." segments'
  }
  if (segments.at(-1) === '.' || segments.at(-1) === '..') return 'must not end in "." or ".."'
  return undefined
}

/** Why a template's placeholders can never be filled for the grant's subject, or undefined. */
function placeholderProblem(prefix: string, subject: GrantSubject | undefined): string | undefined {
  const names = [...prefix.matchAll(PLACEHOLDER)].map((match) => match[1]!)
  if (subject?.kind === 'apiKey' && names.some((name) => name !== 'apiKey')) {
    return 'an API key fills only {apiKey}; token claims such as {sub} are never filled for it'
  }
  if ((subject?.kind === 'sub' || subject?.kind === 'email') && names.includes('apiKey')) {
    return '{apiKey} is filled only for API keys, never for this token-based subject'
  }
  return undefined
}

/**
 * A prefix grant means something only where keys cannot be rewritten into other keys: on an origin
 * with `keys: "any"`, `public/../private/x` is signed under `public/` and fetched as `private/x`.
 */
function keyPolicyProblem(prefix: string, origin: Origin | undefined): string | undefined {
  if (prefix === '' || origin?.keys !== 'any') return undefined
  return 'must be empty on an origin with keys "any" (a key such as "public/../x" escapes any prefix); use keys "safe" on the origin for prefix grants'
}

function positiveInteger(
  value: unknown,
  max: number,
  path: string,
  errors: FieldError[],
): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    errors.push({ path, message: `must be a whole number from 1 to ${max}` })
    return undefined
  }
  return value
}

export function parseGrants(
  value: unknown,
  origins: ReadonlyMap<string, Origin> | undefined,
  defaults: { maxBatch: number },
  errors: FieldError[],
): readonly Grant[] {
  if (value === undefined) return Object.freeze([])
  if (!Array.isArray(value)) {
    errors.push({ path: 'WAYBILL_GRANTS', message: 'must be a JSON array of grants' })
    return Object.freeze([])
  }
  const grants: Grant[] = []
  value.forEach((def: unknown, index) => {
    const path = `WAYBILL_GRANTS.${index}`
    if (!isRecord(def)) {
      errors.push({ path, message: 'must be an object { "to", "origin", "actions", … }' })
      return
    }
    const before = errors.length
    rejectUnknownFields(def, GRANT_FIELDS, path, errors)
    const subject = parseSubject(def.to, `${path}.to`, errors)

    if (typeof def.origin !== 'string' || (origins !== undefined && !origins.has(def.origin))) {
      errors.push({ path: `${path}.origin`, message: 'must name a configured origin' })
    }
    const prefix = def.prefix ?? ''
    if (typeof prefix !== 'string' || prefix.length > 1024) {
      errors.push({
        path: `${path}.prefix`,
        message: 'must be a string of at most 1024 characters',
      })
    } else {
      const problem =
        prefixProblem(prefix) ??
        placeholderProblem(prefix, subject) ??
        keyPolicyProblem(
          prefix,
          typeof def.origin === 'string' ? origins?.get(def.origin) : undefined,
        )
      if (problem !== undefined) errors.push({ path: `${path}.prefix`, message: problem })
    }

    const actions = new Set<Action>()
    if (!Array.isArray(def.actions) || def.actions.length === 0) {
      errors.push({
        path: `${path}.actions`,
        message: 'must be a non-empty list of read, write, delete, list, debug',
      })
    } else {
      def.actions.forEach((action: unknown, i) => {
        if (typeof action === 'string' && ACTIONS.has(action)) actions.add(action as Action)
        else
          errors.push({
            path: `${path}.actions.${i}`,
            message: 'must be read, write, delete, list or debug',
          })
      })
    }

    let maxExpiresIn = MAX_EXPIRES_S
    if (def.maxExpiresIn !== undefined) {
      const problem =
        typeof def.maxExpiresIn === 'number' ? checkExpiresIn(def.maxExpiresIn) : 'must be a number'
      if (problem !== undefined) errors.push({ path: `${path}.maxExpiresIn`, message: problem })
      else maxExpiresIn = def.maxExpiresIn as number
    }
    const maxBatch =
      positiveInteger(def.maxBatch, MAX_BATCH_CEILING, `${path}.maxBatch`, errors) ??
      defaults.maxBatch

    let contentTypes: string[] | undefined
    if (def.contentTypes !== undefined) {
      if (
        !Array.isArray(def.contentTypes) ||
        def.contentTypes.length === 0 ||
        !def.contentTypes.every((t) => typeof t === 'string' && CONTENT_TYPE.test(t))
      ) {
        errors.push({
          path: `${path}.contentTypes`,
          message:
            'must be a non-empty list of lower-case media types such as "image/png" or "image/*"',
        })
      } else contentTypes = def.contentTypes as string[]
    }
    const maxContentLength = positiveInteger(
      def.maxContentLength,
      MAX_OBJECT_BYTES,
      `${path}.maxContentLength`,
      errors,
    )
    let responseContentTypes: string[] | undefined
    if (def.responseContentTypes !== undefined) {
      if (
        !Array.isArray(def.responseContentTypes) ||
        !def.responseContentTypes.every((t) => typeof t === 'string' && CONTENT_TYPE.test(t))
      ) {
        errors.push({
          path: `${path}.responseContentTypes`,
          message:
            'must be a list of lower-case media types such as "application/pdf" or "image/*" ([] allows none)',
        })
      } else responseContentTypes = def.responseContentTypes as string[]
    }
    const wildcard = def.wildcard ?? false
    if (typeof wildcard !== 'boolean') {
      errors.push({ path: `${path}.wildcard`, message: 'must be true or false' })
    }
    if (errors.length > before || subject === undefined) return
    grants.push(
      Object.freeze({
        subject: Object.freeze(subject),
        origin: def.origin as string,
        prefix: prefix as string,
        actions,
        maxExpiresIn,
        maxBatch,
        contentTypes: contentTypes && Object.freeze(contentTypes),
        maxContentLength,
        responseContentTypes: responseContentTypes && Object.freeze(responseContentTypes),
        wildcard: wildcard as boolean,
      }),
    )
  })
  return Object.freeze(grants)
}
