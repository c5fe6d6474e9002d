// WAYBILL_GRANTS: what each principal may sign. Deny by default: no grant, no URL.
//
//   [{ "to": "apiKey:web" | "sub:<sub>" | "role:<role>" | "email:<email>" | "*",
//      "origin": "photos", "prefix": "users/{sub}/", "actions": ["read", "write", "delete", "list"],
//      "maxExpiresIn"?: 3600, "maxBatch"?: 1000, "contentTypes"?: ["image/*"], "maxContentLength"?: 10485760,
//      "responseContentTypes"?: ["application/pdf"], "wildcard"?: false,
//      "uploadKey"?: "users/{sub}/{uuid}-{filename}", "deleteMismatched"?: false, "overwrite"?: false }]

import * as v from 'valibot'
import { ExpiresIn, OriginName, wholeNumber } from '../schemas/fields'
import { list, pathTo, strict } from '../schemas/valibot'
import { MAX_BATCH_CEILING, MAX_EXPIRES_S, MAX_LINK_EXPIRES_S, MAX_UPLOAD_BYTES } from '../limits'
import type { Action, Grant, GrantSubject, Origin } from './types'
import { parsedString } from './fields'
import { MEDIA_FAMILIES, parseMediaType } from '../core/media-type'

const ACTIONS = ['read', 'write', 'delete', 'list', 'debug'] as const satisfies readonly Action[]
const SUBJECT_KINDS = ['apiKey', 'sub', 'role', 'email'] as const
/** `{claim}` placeholders in a prefix. */
export const PLACEHOLDER = /\{([A-Za-z0-9_:.-]{1,128})\}/g
/** Placeholders an `uploadKey` fills per upload, not from the caller's claims. */
const UPLOAD_PLACEHOLDERS: ReadonlySet<string> = new Set(['uuid', 'filename'])

/** The subject `to` names, or undefined. */
export function subjectOf(to: string): GrantSubject | undefined {
  if (to === '*') return { kind: 'any' }
  const [, prefix, value] = /^([A-Za-z]+):(.+)$/s.exec(to) ?? []
  const kind = SUBJECT_KINDS.find((known) => known === prefix)
  return kind === undefined || value === undefined ? undefined : { kind, value }
}

const subjectMessage =
  'must be "apiKey:<id>", "sub:<subject>", "role:<role>", "email:<address>" or "*"'
const Subject = parsedString(subjectMessage, (text) => {
  const subject = subjectOf(text)
  return subject && Object.freeze(subject)
})

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
function placeholderProblem(prefix: string, subject: GrantSubject): string | undefined {
  const names = [...prefix.matchAll(PLACEHOLDER)]
    .map((match) => match[1]!)
    .filter((name) => !UPLOAD_PLACEHOLDERS.has(name))
  if (subject.kind === 'apiKey' && names.some((name) => name !== 'apiKey')) {
    return 'an API key fills only {apiKey}; token claims such as {sub} are never filled for it'
  }
  if ((subject.kind === 'sub' || subject.kind === 'email') && names.includes('apiKey')) {
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

/** Why an `uploadKey` template cannot be one for a grant on `prefix`, or undefined. */
function uploadKeyProblem(
  template: string,
  prefix: string,
  actions: readonly Action[],
): string | undefined {
  if (!actions.includes('write')) return 'is for grants with the "write" action'
  const shape = prefixProblem(template)
  if (shape !== undefined) return shape
  if (!/\{(?:uuid|filename)\}/.test(template)) {
    return 'must contain {uuid} or {filename}, or every upload would get the same key'
  }
  const segments = template.split('/')
  if (segments.slice(0, -1).some((segment) => /\{filename\}/.test(segment))) {
    return 'may hold {filename} in its last segment only'
  }
  if (template.endsWith('/')) return 'must name an object, not end in "/"'
  // Written with the same placeholders, it then falls under the prefix on whole segments.
  const under = prefix === '' || template.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)
  if (!under) return `must start with the grant's prefix "${prefix}"`
  return undefined
}

const prefixMessage = 'must be a string of at most 1024 characters'
const Prefix = v.pipe(
  v.string(prefixMessage),
  v.maxLength(1024, prefixMessage),
  v.check(
    (prefix) => prefixProblem(prefix) === undefined,
    (issue) => prefixProblem(issue.input) ?? prefixMessage,
  ),
)

const actionsMessage = `must be a non-empty list of ${ACTIONS.join(', ')}`
const Actions = v.pipe(
  list(v.picklist(ACTIONS, 'must be read, write, delete, list or debug'), () => actionsMessage),
  v.minLength(1, actionsMessage),
)

/** Why `pattern` is not an exact media type (no parameters) or a known family `image/*`. */
function mediaPatternProblem(pattern: string): string | undefined {
  if (pattern.endsWith('/*')) {
    const family = pattern.slice(0, -2)
    return MEDIA_FAMILIES.includes(family as never)
      ? undefined
      : `"${pattern}" is not a family waybill knows the passive types of (${MEDIA_FAMILIES.map((f) => `${f}/*`).join(', ')}); name exact types instead`
  }
  const media = parseMediaType(pattern)
  if (media === undefined || media.parameters.length > 0 || media.essence !== pattern) {
    return `"${pattern}" must be a lower-case media type such as "image/png", without parameters`
  }
  return undefined
}

/** A list of exact media types or families (`image/*`), of at least `min` entries. */
function mediaTypes(min: number, message: string) {
  return v.pipe(
    v.array(v.string(message), message),
    v.check((types) => types.length >= min, message),
    v.check(
      (types) => types.every((type) => mediaPatternProblem(type) === undefined),
      (issue) => issue.input.map(mediaPatternProblem).find((p) => p !== undefined) ?? message,
    ),
    v.transform((types) => Object.freeze(types)),
  )
}

/**
 * One grant checked against `origins` (undefined when they are broken: then only its shape): an
 * entry of WAYBILL_GRANTS, or a grant the admin API stores.
 */
export function grantSchema(origins: ReadonlyMap<string, Origin> | undefined) {
  return v.pipe(
    strict(
      {
        to: Subject,
        origin: v.pipe(
          OriginName,
          v.check((name) => origins?.has(name) ?? true, 'must name a configured origin'),
        ),
        prefix: v.optional(Prefix, ''),
        actions: Actions,
        maxExpiresIn: v.optional(ExpiresIn, MAX_EXPIRES_S),
        // Without one, maxExpiresIn.
        maxLinkExpiresIn: v.optional(wholeNumber(1, MAX_LINK_EXPIRES_S)),
        // Without one, WAYBILL_MAX_BATCH (see ./load).
        maxBatch: v.optional(wholeNumber(1, MAX_BATCH_CEILING)),
        contentTypes: v.optional(
          mediaTypes(
            1,
            'must be a non-empty list of lower-case media types such as "image/png" or "image/*"',
          ),
        ),
        maxContentLength: v.optional(wholeNumber(1, MAX_UPLOAD_BYTES)),
        responseContentTypes: v.optional(
          mediaTypes(
            0,
            'must be a list of lower-case media types such as "application/pdf" or "image/*" ([] allows none)',
          ),
        ),
        wildcard: v.optional(v.boolean('must be true or false'), false),
        uploadKey: v.optional(
          v.pipe(
            v.string(prefixMessage),
            v.minLength(1, prefixMessage),
            v.maxLength(1024, prefixMessage),
          ),
        ),
        deleteMismatched: v.optional(v.boolean('must be true or false'), false),
        overwrite: v.optional(v.boolean('must be true or false'), false),
      },
      { type: 'must be an object { "to", "origin", "actions", … }' },
    ),
    // Once its fields are valid: can the prefix be filled for the subject, and hold on the origin?
    v.rawTransform(({ dataset: { value: grant }, addIssue, NEVER }) => {
      const { to: subject, actions, ...rest } = grant
      const problem =
        placeholderProblem(grant.prefix, subject) ??
        keyPolicyProblem(grant.prefix, origins?.get(grant.origin))
      if (problem !== undefined) {
        addIssue({ message: problem, path: pathTo(grant, 'prefix') })
        return NEVER
      }
      const origin = origins?.get(grant.origin)
      if (grant.wildcard && origin?.type === 'cloudfront' && origin.responseOverrides) {
        addIssue({
          message: `cannot be true on origin "${grant.origin}", which has responseOverrides: any holder of a wildcard URL or cookie could add response-* parameters (such as response-content-type=text/html) that its policy does not pin`,
          path: pathTo(grant, 'wildcard'),
        })
        return NEVER
      }
      const template = grant.uploadKey
      const templateProblem =
        template === undefined
          ? undefined
          : (uploadKeyProblem(template, grant.prefix, actions) ??
            placeholderProblem(template, subject))
      if (templateProblem !== undefined) {
        addIssue({ message: templateProblem, path: pathTo(grant, 'uploadKey') })
        return NEVER
      }
      return {
        ...rest,
        subject,
        actions: new Set(actions),
        maxLinkExpiresIn: rest.maxLinkExpiresIn ?? rest.maxExpiresIn,
      }
    }),
  )
}

/** Grant, until WAYBILL_MAX_BATCH fills in a missing `maxBatch`. */
export type GrantDefinition = Omit<Grant, 'maxBatch'> & { readonly maxBatch?: number | undefined }

/** A subject as `to` writes it. */
export function subjectText(subject: GrantSubject): string {
  return subject.kind === 'any' ? '*' : `${subject.kind}:${subject.value}`
}

/**
 * A checked grant as canonical JSON: what the control plane stores and answers, with every
 * default filled in (but `maxBatch`, which WAYBILL_MAX_BATCH fills when it is read). Checked
 * again, it is the same grant.
 *
 * @example
 * grantJson(v.parse(grantSchema(origins), { to: 'apiKey:web', origin: 'photos', actions: ['read'] }))
 * // { to: 'apiKey:web', origin: 'photos', prefix: '', actions: ['read'], maxExpiresIn: 604800, … }
 */
export function grantJson(grant: GrantDefinition): Record<string, unknown> {
  const optional = (name: string, value: unknown) => (value === undefined ? {} : { [name]: value })
  return {
    to: subjectText(grant.subject),
    origin: grant.origin,
    prefix: grant.prefix,
    actions: ACTIONS.filter((action) => grant.actions.has(action)),
    maxExpiresIn: grant.maxExpiresIn,
    maxLinkExpiresIn: grant.maxLinkExpiresIn,
    ...optional('maxBatch', grant.maxBatch),
    ...optional('contentTypes', grant.contentTypes),
    ...optional('maxContentLength', grant.maxContentLength),
    ...optional('responseContentTypes', grant.responseContentTypes),
    wildcard: grant.wildcard,
    ...optional('uploadKey', grant.uploadKey),
    deleteMismatched: grant.deleteMismatched,
    overwrite: grant.overwrite,
  }
}

/** A checked grant as `authorize` takes it: without its own `maxBatch`, WAYBILL_MAX_BATCH's. */
export function completeGrant(definition: GrantDefinition, maxBatch: number): Grant {
  return Object.freeze({ ...definition, maxBatch: definition.maxBatch ?? maxBatch })
}

/**
 * WAYBILL_GRANTS, checked against the configured `origins` (undefined when those are broken:
 * checking grants against them would only add noise).
 *
 * @example
 * const grants = v.parse(grantsSchema(origins), [{ to: 'sub:alice', origin: 'photos', actions: ['read'] }])
 */
export function grantsSchema(
  origins: ReadonlyMap<string, Origin> | undefined,
): v.GenericSchema<unknown, readonly GrantDefinition[]> {
  return v.optional(
    list(grantSchema(origins), () => 'must be a JSON array of grants'),
    [],
  )
}
