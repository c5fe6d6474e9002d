// WAYBILL_GRANTS: what each principal may sign. Deny by default: no grant, no URL.
//
//   [{ "to": "apiKey:web" | "sub:<sub>" | "role:<role>" | "email:<email>" | "*",
//      "origin": "photos", "prefix": "users/{sub}/", "actions": ["read", "write", "delete", "list"],
//      "maxExpiresIn"?: 3600, "maxBatch"?: 1000, "contentTypes"?: ["image/*"], "maxContentLength"?: 10485760,
//      "responseContentTypes"?: ["application/pdf"], "wildcard"?: false,
//      "uploadKey"?: "users/{sub}/{uuid}-{filename}", "deleteMismatched"?: false, "overwrite"?: false }]

import * as v from 'valibot'
import { characters, ExpiresIn, KEY_ID_PATTERN, OriginName, wholeNumber } from '../schemas/fields'
import { list, pathTo, strict } from '../schemas/valibot'
import { MAX_BATCH_CEILING, MAX_EXPIRES_S, MAX_LINK_EXPIRES_S, MAX_UPLOAD_BYTES } from '../limits'
import type { Action, Grant, Origin } from './types'
import { subjectOf, subjectText, type GrantSubject } from '../principal/subjects'
import { grantTypePattern, MEDIA_FAMILIES, parseMediaType } from '../core/media-type'
import type { FieldError } from '../errors'

const ACTIONS = ['read', 'write', 'delete', 'list', 'debug'] as const satisfies readonly Action[]
/** `{claim}` placeholders in a prefix. */
export const PLACEHOLDER = /\{([A-Za-z0-9_:.-]{1,128})\}/g
/** Placeholders an `uploadKey` fills per upload, not from the caller's claims. */
const UPLOAD_PLACEHOLDERS: ReadonlySet<string> = new Set(['uuid', 'filename'])

const subjectMessage =
  'must be "apiKey:<id>", "sub:<subject>", "role:<role>", "email:<address>" or "*"'

/** `to` as `pattern` (what subjectOf parses, or less) admits it, parsed. */
function subject(pattern: RegExp, message: string) {
  return v.pipe(
    v.string(message),
    v.regex(pattern, message),
    v.transform((text) => Object.freeze(subjectOf(text)!)),
  )
}

/** A grant's `to` in WAYBILL_GRANTS: any text after `apiKey:` (which names no key unless an id). */
const Subject = subject(/^(?:\*|(?:apiKey|sub|role|email):[\s\S]+)$/, subjectMessage)

/**
 * `to` as the control plane stores it: `apiKey:` names a key as keys are named, so that nothing is
 * stored that names nobody.
 */
export const StoredSubject = subject(
  new RegExp(`^(?:\\*|apiKey:${KEY_ID_PATTERN}|(?:sub|role|email):[\\s\\S]+)$`),
  'must be "apiKey:<id>" (an id of 1-64 characters of A-Z, a-z, 0-9, ".", "_" and "-"), "sub:<subject>", "role:<role>", "email:<address>" or "*"',
)

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

// prefixProblem and uploadKeyProblem as patterns, for the document. A unit is a placeholder or one
// character a key may hold; a segment is one or more units but "." and "..".
const PLACEHOLDER_SOURCE = '\\{[A-Za-z0-9_:.-]{1,128}\\}'
// Any placeholder but {filename}, which an uploadKey holds in its last segment only.
const NOT_FILENAME_SOURCE = '\\{(?!filename\\})[A-Za-z0-9_:.-]{1,128}\\}'
const CHAR = '[^{}/\\\\\\x00-\\x1f\\x7f]'
const NOT_DOT = '[^{}/\\\\\\x00-\\x1f\\x7f.]'

function segment(placeholder: string): string {
  const unit = `(?:${placeholder}|${CHAR})`
  const notDot = `(?:${placeholder}|${NOT_DOT})`
  return `(?:${notDot}${unit}*|\\.${notDot}${unit}*|\\.\\.${unit}+)`
}

/** Whole segments, each followed by "/", then a partial one or none. */
const PREFIX_PATTERN = `^(?:${segment(PLACEHOLDER_SOURCE)}/)*${segment(PLACEHOLDER_SOURCE)}?$`

/**
 * Segments as in a prefix, the last one not empty and the only one with {filename}, and {uuid} or
 * {filename} in one of them.
 */
const UPLOAD_KEY_PATTERN = (() => {
  const unit = `(?:${PLACEHOLDER_SOURCE}|${CHAR})`
  const earlyUnit = `(?:${NOT_FILENAME_SOURCE}|${CHAR})`
  const early = `(?:${segment(NOT_FILENAME_SOURCE)}/)*`
  const withUuid = `${earlyUnit}*\\{uuid\\}${earlyUnit}*/`
  const lastWithName = `${unit}*\\{(?:uuid|filename)\\}${unit}*`
  return `^(?:${early}${withUuid}${early}${segment(PLACEHOLDER_SOURCE)}|${early}${lastWithName})$`
})()

/** Why `to`'s subject can never fill a placeholder of `template`, or undefined. */
function placeholderProblem(template: string, subject: GrantSubject): string | undefined {
  const names = [...template.matchAll(PLACEHOLDER)]
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

/** The document's word for placeholderProblem on `field`, when `to` is what `to` says. */
function placeholderRules(field: 'prefix' | 'uploadKey', to: 'to' | 'apiKey') {
  const claims = '\\{(?!(?:apiKey|uuid|filename)\\})[A-Za-z0-9_:.-]{1,128}\\}'
  const apiKey = { properties: { [field]: { pattern: claims } }, required: [field] }
  if (to === 'apiKey') return [{ not: apiKey }]
  return [
    {
      not: {
        properties: { ...apiKey.properties, to: { pattern: '^apiKey:' } },
        required: ['to', field],
      },
    },
    {
      not: {
        properties: { [field]: { pattern: '\\{apiKey\\}' }, to: { pattern: '^(?:sub|email):' } },
        required: ['to', field],
      },
    },
  ]
}

/**
 * A prefix grant means something only where keys cannot be rewritten into other keys: on an origin
 * with `keys: "any"`, `public/../private/x` is signed under `public/` and fetched as `private/x`.
 */
function keyPolicyProblem(prefix: string, origin: Pick<Origin, 'keys'>): string | undefined {
  if (prefix === '' || origin.keys !== 'any') return undefined
  return 'must be empty on an origin with keys "any" (a key such as "public/../x" escapes any prefix); use keys "safe" on the origin for prefix grants'
}

/** Why an `uploadKey` template cannot be one, or undefined; whether it fits the prefix is apart. */
function uploadKeyProblem(template: string): string | undefined {
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
  return undefined
}

const templateMessage = 'must be a string of at most 1024 characters'

/** A key template of `min` to 1024 characters that `problem` finds none in, as `pattern` says. */
function keyTemplate(
  min: 0 | 1,
  problem: (template: string) => string | undefined,
  pattern: string,
) {
  return v.pipe(
    characters(min, 1024, templateMessage),
    v.check(
      (template) => problem(template) === undefined,
      (issue) => problem(issue.input) ?? templateMessage,
    ),
    v.metadata(DOCS ? { pattern } : {}),
  )
}

const Prefix = keyTemplate(0, prefixProblem, PREFIX_PATTERN)

const UploadKey = v.pipe(
  keyTemplate(1, uploadKeyProblem, UPLOAD_KEY_PATTERN),
  v.description(
    DOCS
      ? 'The key an upload by file name gets: {uuid} and {filename} (last segment only), and claims as in the prefix; under the prefix.'
      : '',
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
    v.minLength(min, message),
    v.check(
      (types) => types.every((type) => mediaPatternProblem(type) === undefined),
      (issue) => issue.input.map(mediaPatternProblem).find((p) => p !== undefined) ?? message,
    ),
    // The list's problems are the list's (the first one named); the document says it per item.
    v.metadata(
      DOCS ? { items: { type: 'string', pattern: grantTypePattern(), maxLength: 256 } } : {},
    ),
    v.transform((types) => Object.freeze(types)),
  )
}

/** A grant's fields but `to`, whose origin is one of `origins` (when known). */
function grantFields(origins: ReadonlyMap<string, Origin> | undefined) {
  return {
    origin: origins
      ? v.pipe(
          OriginName,
          v.check((name) => origins.has(name), 'must name a configured origin'),
        )
      : OriginName,
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
    uploadKey: v.optional(UploadKey),
    deleteMismatched: v.optional(v.boolean('must be true or false'), false),
    overwrite: v.optional(v.boolean('must be true or false'), false),
  }
}

type Fields = v.InferOutput<v.ObjectSchema<ReturnType<typeof grantFields>, undefined>>

const WRITE_FOR_UPLOAD_KEY = 'is for grants with the "write" action'
const writes = (grant: { actions: readonly Action[]; uploadKey?: string | undefined }) =>
  grant.uploadKey === undefined || grant.actions.includes('write')

/**
 * The rules across a grant's fields, each filed at the field to change: its placeholders can be
 * filled for its subject (`to`, or an API key's for a key's own grants), and an uploadKey is for
 * writing. With the document's word for each.
 */
function grantRules<T extends Fields>(to: 'to' | 'apiKey', subjectOf: (grant: T) => GrantSubject) {
  const fills = (field: 'prefix' | 'uploadKey') =>
    v.forward(
      v.partialCheck(
        [[field], ...(to === 'to' ? [['to']] : [])] as [[typeof field]],
        (grant: T) => {
          const template = grant[field]
          return (
            template === undefined || placeholderProblem(template, subjectOf(grant)) === undefined
          )
        },
        (issue) => placeholderProblem(String(issue.input[field]), subjectOf(issue.input)) ?? '',
      ),
      [field],
    )
  const rules = [
    fills('prefix'),
    v.forward(v.partialCheck([['uploadKey'], ['actions']], writes, WRITE_FOR_UPLOAD_KEY), [
      'uploadKey',
    ]),
    fills('uploadKey'),
    v.metadata(
      DOCS
        ? {
            allOf: [
              ...placeholderRules('prefix', to),
              ...placeholderRules('uploadKey', to),
              {
                not: {
                  properties: { actions: { not: { contains: { const: 'write' } } } },
                  required: ['uploadKey'],
                },
              },
            ],
          }
        : {},
    ),
  ]
  // A validation hands on its input as it is: rules over these fields hold for any T with them.
  return rules as unknown as v.GenericValidation<T>[]
}

/** A checked grant as `authorize` takes it, but its `maxBatch`. */
function definition(fields: Fields, subject: GrantSubject): GrantDefinition {
  return {
    ...fields,
    subject,
    actions: new Set(fields.actions),
    maxLinkExpiresIn: fields.maxLinkExpiresIn ?? fields.maxExpiresIn,
  }
}

const grantType = 'must be an object { "to", "origin", "actions", … }'

/** A grant's shape, whatever the origins: its fields and the rules across them. */
function grantShape(to: typeof Subject, origins: ReadonlyMap<string, Origin> | undefined) {
  return v.pipe(
    v.pipe(
      strict({ to, ...grantFields(origins) }, { type: grantType }),
      ...grantRules('to', (grant: Fields & { to: GrantSubject }) => grant.to),
    ),
    v.transform(({ to: subject, ...fields }) => definition(fields, subject)),
  )
}

/**
 * A grant the admin API takes, its shape only: how it holds on the origins configured now is
 * `scopeProblem`'s.
 */
export const StoredGrant = grantShape(StoredSubject, undefined)

/** A grant of a key the admin API makes: as StoredGrant, for that key, without `to`. */
export const KeyGrant = v.pipe(
  v.pipe(
    strict(
      {
        to: v.optional(v.never('is the key\'s own ("apiKey:<id>"): leave it out')),
        ...grantFields(undefined),
      },
      { type: 'must be an object: a grant as in WAYBILL_GRANTS, without "to"' },
    ),
    ...grantRules<Fields & { to?: undefined }>('apiKey', () => API_KEY),
  ),
)
const API_KEY: GrantSubject = { kind: 'apiKey', value: '' }

/** A key's grant (KeyGrant), for the key `id`. */
export function keyGrant(fields: v.InferOutput<typeof KeyGrant>, id: string): GrantDefinition {
  return definition(fields, Object.freeze({ kind: 'apiKey', value: id }))
}

/** What `scopeProblem` reads of an origin: the data plane's origin, or what the admin plane knows. */
type OriginTraits = Pick<Origin, 'name' | 'keys' | 'grantProblem'>

/**
 * Why `grant` would not hold on `origin`, or undefined: a prefix the origin's keys can escape,
 * wildcard URLs whose response-* parameters the origin does not pin, an uploadKey that chooses
 * keys outside the prefix. What the schema of a grant's own fields cannot say.
 */
export function scopeProblem(grant: GrantDefinition, origin: OriginTraits): FieldError | undefined {
  const policy = keyPolicyProblem(grant.prefix, origin)
  if (policy !== undefined) return { path: 'prefix', message: policy }
  const problem = origin.grantProblem?.(grant)
  if (problem !== undefined) return problem
  const template = grant.uploadKey
  // Written with the same placeholders, it then falls under the prefix on whole segments.
  const prefix = grant.prefix
  if (
    template !== undefined &&
    prefix !== '' &&
    !template.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)
  ) {
    return { path: 'uploadKey', message: `must start with the grant's prefix "${prefix}"` }
  }
  return undefined
}

/**
 * One grant checked against `origins` (undefined when they are broken: then only its shape): an
 * entry of WAYBILL_GRANTS, or a grant the control plane stored.
 */
export function grantSchema(origins: ReadonlyMap<string, Origin> | undefined) {
  return v.pipe(
    grantShape(Subject, origins),
    v.rawTransform(({ dataset: { value: grant }, addIssue, NEVER }) => {
      const origin = origins?.get(grant.origin)
      const problem = origin && scopeProblem(grant, origin)
      if (problem === undefined) return grant
      addIssue({ message: problem.message, path: pathTo(grant, problem.path) })
      return NEVER
    }),
  )
}

/** Grant, until WAYBILL_MAX_BATCH fills in a missing `maxBatch`. */
export type GrantDefinition = Omit<Grant, 'maxBatch'> & { readonly maxBatch?: number | undefined }

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
