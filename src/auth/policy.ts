// What a principal may sign. Every artifact waybill signs is first described by what it lets its
// holder do: a `Reach`, one variant per kind of artifact (URLs, a wildcard policy, a listing, an
// upload, links). `authorize` compares it with the caller's grants, rule by rule, one small rule
// per grant field, and answers a `Permit` (the only thing the signers in src/services/signers.ts
// accept) or a `Refusal` that says why, field by field. The services turn a refusal into a problem.
//
// One grant justifies each target (each key, pattern or prefix): a single grant must allow every
// field of it at once (its key, action, content type, size, overwrite, response type, batch size,
// lifetime and window). Limits are never combined across grants. A limit counts only where the
// signature enforces it: a limit the holder could simply not send is no limit.
//
// Pure: no I/O, no clock, no HTTP. Deny by default.

import type { Action, Config, Grant, GrantSubject, Origin } from '../config'
import { PLACEHOLDER } from '../config/grants'
import {
  DEFAULT_LINK_EXPIRES_S,
  MAX_EXPIRES_S,
  MAX_FILENAME_BYTES,
  MAX_NAMED_KEYS,
  MAX_REPORTED_ERRORS as MAX_LISTED,
} from '../limits'
import { essenceOf, isPassive, MEDIA_FAMILIES, patternAdmits } from '../core/media-type'
import type { PresignItem, PresignMethod } from '../core/s3/presign'
import type { FieldError } from '../errors'
import { sanitizeFilename } from '../core/filename'
import { unsafeKeyReason } from './key-safety'
import { placeholderValue, type Principal } from '../principal'

const UNSAFE_CLAIM = /[/\\\x00-\x1f\x7f-\x9f]|\.\./

export function actionFor(method: PresignMethod): 'read' | 'write' | 'delete' {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return 'read'
    case 'PUT':
      return 'write'
    case 'DELETE':
      return 'delete'
  }
}

/**
 * Every subject a grant may name to reach `principal`: a grant applies exactly when its subject is
 * one of these (`subjectMatches`). The control plane reads a caller's stored grants by them.
 */
export function subjectsOf(principal: Principal): GrantSubject[] {
  const subjects: GrantSubject[] = [
    principal.kind === 'api-key'
      ? { kind: 'apiKey', value: principal.id }
      : { kind: 'sub', value: principal.id },
  ]
  if (principal.email !== undefined) subjects.push({ kind: 'email', value: principal.email })
  for (const role of [...principal.roles].sort()) subjects.push({ kind: 'role', value: role })
  subjects.push({ kind: 'any' })
  return subjects
}

export function subjectMatches(subject: GrantSubject, principal: Principal): boolean {
  switch (subject.kind) {
    case 'any':
      return true
    case 'apiKey':
      return principal.kind === 'api-key' && principal.id === subject.value
    case 'sub':
      return principal.kind !== 'api-key' && principal.id === subject.value
    case 'role':
      return principal.roles.has(subject.value)
    case 'email':
      return principal.email !== undefined && principal.email === subject.value
  }
}

/**
 * Fills `{claim}` placeholders for the caller (`{apiKey}` for an API key, token claims otherwise).
 * Undefined when a value is missing, not a string or number, or would change the prefix's shape
 * (`/`, `..`, backslash, control characters): then the grant does not apply.
 *
 * @example
 * resolvePrefix('users/{sub}/', alice) // 'users/alice/'
 * resolvePrefix('users/{sub}/', apiKeyNamedAlice) // undefined: {sub} is a token claim
 */
export function resolvePrefix(
  template: string,
  principal: Principal,
  filled: Readonly<Record<string, string>> = {},
): string | undefined {
  let ok = true
  const prefix = template.replace(PLACEHOLDER, (_, name: string) => {
    // An upload key's own placeholders ({uuid}, {filename}), already made safe by the caller.
    if (Object.hasOwn(filled, name)) return filled[name]!
    const value = placeholderValue(principal, name)
    const text =
      typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))
        ? String(value)
        : ''
    if (text === '' || text === '.' || UNSAFE_CLAIM.test(text) || !text.isWellFormed()) ok = false
    return text
  })
  return ok ? prefix : undefined
}

/** True when `prefix` covers `key` on whole path segments: `users/al` covers `users/al/x`, not `users/alice`. */
export function prefixCovers(prefix: string, key: string): boolean {
  if (prefix === '') return true
  if (prefix.endsWith('/')) return key.startsWith(prefix)
  return key === prefix || key.startsWith(prefix + '/')
}

/** True when every key starting with `keyPrefix` is covered by the grant prefix `prefix`. */
function prefixCoversAll(prefix: string, keyPrefix: string): boolean {
  if (prefix === '') return true
  return keyPrefix.startsWith(prefix.endsWith('/') ? prefix : prefix + '/')
}

// ---------------------------------------------------------------------------------------------
// What an artifact reaches

/** Upload limits a signature enforces itself: a signed Content-Type, length, checksum, no-overwrite. */
export interface Content {
  /** The signed Content-Type, canonical (src/core/media-type.ts); absent: the URL signs none. */
  type?: { value: string; path: string } | undefined
  /**
   * The signed length: exactly `exact` bytes, at most `atMost`, or at most the justifying grant's
   * own limit (`'grant'`, resolved into the permit). Absent: unsigned, any size.
   */
  length?: { exact: number } | { atMost: number } | { atMost: 'grant' } | undefined
  /** The request field that sets the length, to name when it is missing or too large. */
  lengthPath?: string | undefined
  /** The signed SHA-256 of the body (base64), when the caller gave one. */
  checksumSha256?: string | undefined
  /**
   * Whether the artifact can replace an existing object: absent or false, it signs
   * `If-None-Match: *`. `path` names what makes it replace one (`overwrite`, or `mode` for a POST
   * form, which cannot refuse to).
   */
  overwrite?: { path: string; unsigned?: boolean } | undefined
}

interface ReachCommon {
  origin: string
  /** Requested lifetime and signing window; undefined: the defaults, within the justifying grant. */
  expiresIn?: number | undefined
  signingWindow?: number | undefined
  /** What the origin's type cannot do; checked once the caller is known to hold a grant there. */
  fits?: ((origin: Origin) => readonly FieldError[]) | undefined
}

/** Entries an artifact carries, against the grants' `maxBatch`. */
interface Count {
  n: number
  path: string
}

/** Exact keys, each one a target. */
interface Items {
  items: readonly PresignItem[]
  /** The field naming item `i`'s key (`keys.3`, `items.3.key`). */
  itemPath: (i: number) => string
  /** The field naming item `i`'s Content-Type override. */
  overridePath?: ((i: number) => string) | undefined
}

/** What a signed artifact lets its holder do, before it is signed: one variant per artifact. */
export type Reach =
  /** Presigned (or canned CloudFront) URLs for exact keys: `/v1/sign`, the redirect. */
  | (ReachCommon & Items & { kind: 'urls'; action: 'read' | 'write' | 'delete' })
  /** The debug view of URLs: its own grant, on the same keys. */
  | (ReachCommon & Items & { kind: 'debug' })
  /** One CloudFront policy for every key under `pattern` (a wildcard batch, or cookies). */
  | (ReachCommon &
      Items & {
        kind: 'wildcard'
        /** Every key under it; the items (none for cookies) are where the URLs point, inside it. */
        pattern: { prefix: string; path: string }
        count?: Count | undefined
      })
  /** A listing of whole prefixes; `limit` entries when the request gives one. */
  | (ReachCommon & {
      kind: 'listing'
      prefixes: readonly { prefix: string; path: string }[]
      limit?: Count | undefined
    })
  /** The URLs of a listing's objects: objects no grant covers are left out, not refused. */
  | (ReachCommon & { kind: 'listed'; items: readonly PresignItem[] })
  /**
   * One upload: a PUT URL, a POST policy or a multipart upload's parts, for an exact key, or
   * (POST on origins with keys "any") any key under `keyPrefix`.
   */
  | (ReachCommon & {
      kind: 'upload'
      /** `chosen`: the grant's uploadKey chose the key, which the caller never saw. */
      target:
        | { key: string; path: string; chosen?: boolean | undefined }
        | { keyPrefix: string; path: string }
      content: Content
      count?: Count | undefined
    })
  /** Signed links to exact keys: their lifetime is judged against `maxLinkExpiresIn`. */
  | (ReachCommon & Items & { kind: 'links' })

function actionOf(reach: Reach): Action {
  switch (reach.kind) {
    case 'urls':
      return reach.action
    case 'debug':
      return 'debug'
    case 'wildcard':
    case 'listed':
    case 'links':
      return 'read'
    case 'listing':
      return 'list'
    case 'upload':
      return 'write'
  }
}

// ---------------------------------------------------------------------------------------------
// Answers

declare const PERMIT: unique symbol

/** The answer of `authorize` when it allows: exactly what may be signed, and nothing else. */
export interface Permit {
  readonly [PERMIT]: true
  readonly origin: Origin
  readonly action: Action
  /** The objects to sign (for a `listed` reach, only the covered ones), in request order. */
  readonly items: readonly PresignItem[]
  /** The key patterns the artifact reaches. */
  readonly under: readonly string[]
  /** The least life every URL has from the request time, and the signing window to use. */
  readonly expiresIn: number
  readonly window: number
  /** The longest any URL may live (its grant's `maxExpiresIn`): the window shrinks to fit. */
  readonly maxLifetime: number
  readonly content: Content | undefined
  /** The largest body the signature admits, `'grant'` resolved; undefined: unsigned or unlimited. */
  readonly maxContentLength: number | undefined
  /** Entries one more artifact of this kind may carry for this caller (listings size pages by it). */
  readonly maxCount: number
}

/** Why nothing may be signed. The services answer `no-grant` and `not-covered` as 403, `invalid` as 400. */
export interface Refusal {
  readonly refused: 'no-grant' | 'not-covered' | 'invalid'
  /** One sentence for the whole refusal. */
  readonly detail: string
  /** Each field at fault, up to the reporting cap. */
  readonly errors: readonly FieldError[]
}

export function isRefusal(answer: Permit | Refusal | Origin): answer is Refusal {
  return 'refused' in answer
}

/**
 * What a permit is made as. Its brand is a private field, which only this class can give or test:
 * a copy of a permit (`{ ...permit, items }`) or an object made to look like one is not one. (Not a
 * WeakSet of issued permits: each entry costs the garbage collector, on every request.)
 */
class Minted {
  readonly #minted = true
  static has(value: object): boolean {
    return #minted in value
  }
}

/** True for a permit this module made; the signers refuse anything else. */
export function isPermit(value: unknown): value is Permit {
  return typeof value === 'object' && value !== null && Minted.has(value)
}

/** The one place a permit is made: by `authorize`, or for a followed link by `linkPermit`. */
function mint(fields: Omit<Permit, typeof PERMIT>): Permit {
  return Object.freeze(Object.assign(new Minted(), fields)) as unknown as Permit
}

function noGrant(action: Action, originName: string): Refusal {
  // The same answer for unknown and ungranted origins, so callers cannot probe the config.
  return {
    refused: 'no-grant',
    detail: `No grant lets this caller ${action} on origin "${originName}".`,
    errors: [{ path: 'origin', message: `no grant to ${action} on this origin` }],
  }
}

/**
 * What an origin cannot serve (an S3 origin's cookies, a CloudFront origin's uploads, overrides
 * its distribution does not forward): refused as an artifact no grant covers, a 403. The document
 * cannot know a deployment's origins, so a request it allows is never a 400 for them.
 */
function notServed(origin: Origin, errors: readonly FieldError[]): Refusal {
  return {
    refused: 'not-covered',
    detail: `Origin "${origin.name}" cannot serve this request.`,
    errors: errors.slice(0, MAX_LISTED),
  }
}

function invalidFields(errors: readonly FieldError[]): Refusal {
  return { refused: 'invalid', detail: '', errors: errors.slice(0, MAX_LISTED) }
}

// ---------------------------------------------------------------------------------------------
// Grants that apply

interface ResolvedGrant {
  readonly grant: Grant
  /** The grant's prefix with the caller's placeholders filled. */
  readonly prefix: string
}

/** The caller's grants on `origin` that apply (their prefix templates fill), prefixes filled. */
export function applicable(config: Config, principal: Principal, origin: Origin): ResolvedGrant[] {
  const grants: ResolvedGrant[] = []
  for (const grant of config.grants) {
    if (grant.origin !== origin.name || !subjectMatches(grant.subject, principal)) continue
    const prefix = resolvePrefix(grant.prefix, principal)
    if (prefix !== undefined) grants.push({ grant, prefix })
  }
  return grants
}

/** The origin and the caller's grants there, or the refusal an unknown origin gets. */
function granted(
  config: Config,
  principal: Principal,
  name: string,
  action: Action,
): { origin: Origin; grants: ResolvedGrant[] } | Refusal {
  const origin = config.origins.get(name)
  const grants = origin === undefined ? [] : applicable(config, principal, origin)
  if (origin === undefined || grants.length === 0) return noGrant(action, name)
  return { origin, grants }
}

/**
 * The origin, when some grant of the caller applies there; otherwise the refusal an unknown origin
 * gets. Whatever depends on the origin (its rules, what waybill sealed for it) comes after this.
 */
export function grantedOrigin(
  config: Config,
  principal: Principal,
  name: string,
  action: Action,
): Origin | Refusal {
  const found = granted(config, principal, name, action)
  return 'refused' in found ? found : found.origin
}

/**
 * The key an upload sent with `filename` gets: the first of the caller's write grants on the origin
 * with an `uploadKey` template whose placeholders fill, with `{uuid}` and `{filename}` (sanitized)
 * filled in. Undefined when no such grant applies. The key is then authorized like any other.
 *
 * @example
 * uploadKeyFor(config, alice, origin, 'My Report.pdf', uuid) // 'users/alice/<uuid>-My Report.pdf'
 */
export function uploadKeyFor(
  config: Config,
  principal: Principal,
  origin: Origin,
  filename: string,
  uuid: string,
): string | undefined {
  const name = sanitizeFilename(filename, MAX_FILENAME_BYTES)
  for (const { grant } of applicable(config, principal, origin)) {
    if (grant.uploadKey === undefined || !grant.actions.has('write')) continue
    const key = resolvePrefix(grant.uploadKey, principal, { uuid, filename: name })
    if (key !== undefined) return key
  }
  return undefined
}

/** True when one grant of the caller covers `key` for `action` and, if given, says `also`. */
function someGrant(
  config: Config,
  principal: Principal,
  origin: Origin,
  key: string,
  action: Action,
  also: (grant: Grant) => boolean = () => true,
): boolean {
  return applicable(config, principal, origin).some(
    ({ grant, prefix }) => grant.actions.has(action) && prefixCovers(prefix, key) && also(grant),
  )
}

/**
 * True when one of the caller's write grants covering `key` says to delete an upload whose
 * completion check finds it is not what was signed (`deleteMismatched`).
 */
export function deletesMismatched(
  config: Config,
  principal: Principal,
  origin: Origin,
  key: string,
): boolean {
  return someGrant(config, principal, origin, key, 'write', (grant) => grant.deleteMismatched)
}

/** True when a grant of the caller lets it read `key` (and so see what the object is). */
export function mayRead(
  config: Config,
  principal: Principal,
  origin: Origin,
  key: string,
): boolean {
  return someGrant(config, principal, origin, key, 'read')
}

// ---------------------------------------------------------------------------------------------
// The rules: one per grant field

/** One target of an artifact: an exact key (with its overrides) or a key pattern. */
interface Target {
  readonly key: string
  /** A pattern reaches every key starting with `key`. */
  readonly pattern: boolean
  readonly path: string
  readonly item?: PresignItem | undefined
  readonly overridePath?: string | undefined
  /** A key the caller did not send (an uploadKey chose it): no refusal names it. */
  readonly chosen?: boolean | undefined
}

/**
 * An item of a batch as a target. Its field paths are made only when a refusal names them: a
 * 10,000-key batch that passes builds none.
 */
class ItemTarget implements Target {
  readonly pattern = false
  constructor(
    readonly item: PresignItem,
    private readonly i: number,
    private readonly fields: Items,
  ) {}
  get key(): string {
    return this.item.key
  }
  get path(): string {
    return this.fields.itemPath(this.i)
  }
  get overridePath(): string | undefined {
    return this.fields.overridePath?.(this.i)
  }
}

/** A rule's refusal: 403 when no grant covers the target, 400 when a limit refuses a field. */
interface Denial {
  kind: 'not-covered' | 'invalid'
  error: FieldError
  /** For artifact-wide fields (batch, lifetime, window): the most any grant here allowed. */
  bound?: number | undefined
}

/**
 * A grant field's rule: does this grant alone allow the target, and if no grant of those that
 * reached this rule does, why not (from those grants).
 */
interface Rule {
  admits(grant: Grant, target: Target): boolean
  refuse(grants: readonly Grant[], target: Target): Denial
}

const most = (grants: readonly Grant[], pick: (grant: Grant) => number) =>
  grants.reduce((max, grant) => Math.max(max, pick(grant)), 0)

/** Refused: a grant covers the target, but limits what this artifact does not sign. */
function unsignedLimit(target: Target, limit: string, instead: string): Denial {
  return {
    kind: 'not-covered',
    error: {
      path: target.path,
      message: `a grant to write covers it, but limits ${limit}, which this ${instead}`,
    },
  }
}

/** `wildcard`: a pattern read reaches keys nobody listed, so only grants that say so sign one. */
const wildcardRule: Rule = {
  admits: (grant) => grant.wildcard,
  refuse: (_, target) => ({
    kind: 'not-covered',
    error: { path: target.path, message: 'no wildcard grant covers this prefix' },
  }),
}

/** `contentTypes`: the signed type must be one the grant admits; an unsigned type admits none. */
function contentTypeRule(content: Content): Rule {
  const type = content.type
  const essence = type === undefined ? undefined : essenceOf(type.value)
  return {
    admits: (grant) =>
      grant.contentTypes === undefined ||
      (essence !== undefined && grant.contentTypes.some((p) => patternAdmits(p, essence))),
    refuse(grants, target) {
      if (type === undefined || essence === undefined) {
        return unsignedLimit(target, 'the content type', 'URL does not sign; use POST /v1/uploads')
      }
      const allowed = [...new Set(grants.flatMap((grant) => grant.contentTypes ?? []))]
      const family = `${essence.slice(0, essence.indexOf('/'))}/*`
      const message = allowed.includes(family)
        ? `${essence} is not a type ${family} admits (only ${family} types that never run as script, such as ${familyExample(family)}); a grant must name ${essence} exactly`
        : `must be one of ${allowed.join(', ')} for this caller`
      return { kind: 'invalid', error: { path: type.path, message } }
    },
  }
}

function familyExample(family: string): string {
  const name = family.slice(0, -2)
  return MEDIA_FAMILIES.includes(name as never) ? `${name}/${passiveExample(name)}` : family
}

function passiveExample(family: string): string {
  return (
    { image: 'png', audio: 'mpeg', video: 'mp4', text: 'plain', font: 'woff2' }[family] ??
    'octet-stream'
  )
}

/** `maxContentLength`: the signed length must fit the grant's; an unsigned length fits none. */
function lengthRule(content: Content): Rule {
  const length = content.length
  const signed = length === undefined ? undefined : 'exact' in length ? length.exact : length.atMost
  return {
    admits: (grant) =>
      grant.maxContentLength === undefined ||
      signed === 'grant' ||
      (signed !== undefined && signed <= grant.maxContentLength),
    refuse(grants, target) {
      const limit = most(grants, (grant) => grant.maxContentLength ?? 0)
      if (content.lengthPath === undefined) {
        return unsignedLimit(
          target,
          `the size to ${limit} bytes`,
          'URL does not sign; use POST /v1/uploads',
        )
      }
      const message =
        signed === undefined
          ? `is required: this caller's uploads are limited to ${limit} bytes, and only a signed length enforces that`
          : `must be at most ${limit} bytes for this caller`
      return { kind: 'invalid', error: { path: content.lengthPath, message } }
    },
  }
}

/** `overwrite`: an artifact that may replace an existing object needs a grant that says so. */
function overwriteRule(content: Content): Rule {
  const overwrite = content.overwrite
  return {
    admits: (grant) => overwrite === undefined || grant.overwrite,
    refuse(_, target) {
      if (overwrite === undefined || overwrite.unsigned === true) {
        return unsignedLimit(
          target,
          'it to new objects (no overwrite)',
          'URL does not refuse; use POST /v1/uploads, which signs If-None-Match',
        )
      }
      return {
        kind: 'invalid',
        error: {
          path: overwrite.path,
          message:
            overwrite.path === 'mode'
              ? 'cannot be "post" for this caller: a POST form cannot refuse to replace an existing object, and no grant here allows that (overwrite); use "put" or "multipart"'
              : 'cannot be true for this caller: no grant covering the key allows replacing an existing object (overwrite)',
        },
      }
    },
  }
}

/**
 * `responseContentTypes`: a type the grant names (exactly, or a passive type of a family it
 * names); with no list, any passive type. Anything else could make the bucket serve the object as
 * a page that runs script on its origin.
 */
const overrideRule: Rule = {
  admits(grant, target) {
    const override = target.item?.response?.contentType
    if (override === undefined) return true
    const essence = essenceOf(override)
    const listed = grant.responseContentTypes
    return listed === undefined ? isPassive(essence) : listed.some((p) => patternAdmits(p, essence))
  },
  refuse(_, target) {
    const essence = essenceOf(target.item!.response!.contentType!)
    return {
      kind: 'invalid',
      error: {
        path: target.overridePath ?? `${target.path}.response.contentType`,
        message: isPassive(essence)
          ? 'is not a type this caller may set'
          : `must not be ${essence} for this caller: only passive types (images, audio, video, plain text, PDF, …) unless the grant's responseContentTypes names it exactly, since a browser could run the object as a page on the bucket's origin`,
      },
    }
  },
}

/** `maxBatch`: the whole artifact's entries, against each grant alone. */
function batchRule(count: Count): Rule {
  return {
    admits: (grant) => count.n <= grant.maxBatch,
    refuse(grants) {
      const bound = most(grants, (grant) => grant.maxBatch)
      return {
        kind: 'invalid',
        bound,
        error: {
          path: count.path,
          message: `must contain at most ${bound} entries for this caller`,
        },
      }
    },
  }
}

/** `maxExpiresIn` (or `maxLinkExpiresIn` for links): the lifetime asked or defaulted. */
function expiryRule(expiresIn: number, expiryOf: (grant: Grant) => number): Rule {
  return {
    admits: (grant) => expiresIn <= expiryOf(grant),
    refuse(grants) {
      const bound = most(grants, expiryOf)
      return {
        kind: 'invalid',
        bound,
        error: { path: 'expiresIn', message: `must be at most ${bound} for this caller` },
      }
    },
  }
}

/**
 * A requested signing window: a URL lives up to expiresIn + window, within the grant's maximum. A
 * grant that allows SigV4's seven days limits nothing beyond them, which the signing time keeps
 * by shortening the window (src/core/window.ts), as it does an origin's.
 */
function windowRule(window: number, expiresIn: number): Rule {
  const room = (grant: Grant) =>
    grant.maxExpiresIn >= MAX_EXPIRES_S ? Infinity : grant.maxExpiresIn - expiresIn
  return {
    admits: (grant) => window <= room(grant),
    refuse(grants) {
      const bound = most(grants, room)
      return {
        kind: 'invalid',
        bound,
        error: {
          path: 'signingWindow',
          message: `must be at most ${bound} for this caller with expiresIn ${expiresIn} (a URL lives up to expiresIn + signingWindow seconds)`,
        },
      }
    },
  }
}

/**
 * The grants among `grants` that pass every rule for `target`, or the denial of the first rule no
 * grant passes (explained from the grants that reached it).
 */
function judge(
  grants: readonly Grant[],
  rules: readonly Rule[],
  target: Target,
): readonly Grant[] | Denial {
  let left = grants
  for (const rule of rules) {
    const passed = left.filter((grant) => rule.admits(grant, target))
    if (passed.length === 0) return rule.refuse(left, target)
    left = passed
  }
  return left
}

// ---------------------------------------------------------------------------------------------
// authorize

/** The targets of a reach: each exact key, or each pattern. */
function targetsOf(reach: Reach): Target[] {
  switch (reach.kind) {
    case 'urls':
    case 'debug':
    case 'links':
      return reach.items.map((item, i) => new ItemTarget(item, i, reach))
    case 'listed':
      return reach.items.map((item, i) => ({ key: item.key, pattern: false, path: `items.${i}` }))
    case 'wildcard':
      return [{ key: reach.pattern.prefix, pattern: true, path: reach.pattern.path }]
    case 'listing':
      return reach.prefixes.map(({ prefix, path }) => ({ key: prefix, pattern: true, path }))
    case 'upload':
      return 'key' in reach.target
        ? [{ ...reach.target, pattern: false }]
        : [{ key: reach.target.keyPrefix, pattern: true, path: reach.target.path }]
  }
}

/** The entries the artifact carries, when a grant's `maxBatch` applies to them. */
function countOf(reach: Reach): Count | undefined {
  switch (reach.kind) {
    case 'urls':
    case 'debug':
    case 'links':
      return { n: reach.items.length, path: reach.itemPath(0).split('.')[0]! }
    case 'listed':
      return { n: reach.items.length, path: 'limit' }
    case 'wildcard':
      return reach.count
    case 'listing':
      return reach.limit
    case 'upload':
      return reach.count
  }
}

/** Field errors for the refusals of a reach's targets: per-target ones, then artifact-wide ones. */
function collect(denials: readonly Denial[]): { covered: FieldError[]; invalid: FieldError[] } {
  const covered: FieldError[] = []
  const invalid: FieldError[] = []
  // Artifact-wide fields (batch, expiresIn, signingWindow) once each, at the least bound.
  const wide = new Map<string, Denial>()
  for (const denial of denials) {
    if (denial.bound !== undefined) {
      const seen = wide.get(denial.error.path)
      if (seen === undefined || denial.bound < seen.bound!) wide.set(denial.error.path, denial)
    } else if (denial.kind === 'not-covered') covered.push(denial.error)
    else invalid.push(denial.error)
  }
  for (const denial of wide.values()) invalid.push(denial.error)
  return { covered, invalid }
}

/**
 * Compares what an artifact would let its holder do with the caller's grants and answers the
 * permit to sign it, or why not. All or nothing (a `listed` reach leaves uncovered objects out).
 *
 * In order: `no-grant` naming `origin` unless the caller holds some grant on the origin (unknown
 * origins answer the same); `not-covered` for what the origin cannot serve (`fits`); `invalid` for
 * keys its key policy refuses; `not-covered` listing each key or pattern no grant covers for the action with
 * every limit enforced by the signature; `invalid` naming each field only a grant covering the
 * target limits (content type, length, overwrite, response type, batch size, RSA signatures,
 * `expiresIn`, `signingWindow`). Each target must be allowed by one grant on every field.
 *
 * @example
 * const answer = authorize(config, principal, { kind: 'urls', action: 'read', origin: 'photos',
 *   items: [{ key: 'a.jpg' }], itemPath: (i) => `keys.${i}` })
 * if (!isRefusal(answer)) await batchSigner(answer, { method: 'GET', now }).sign()
 */
export function authorize(config: Config, principal: Principal, reach: Reach): Permit | Refusal {
  const action = actionOf(reach)
  const found = granted(config, principal, reach.origin, action)
  if ('refused' in found) return found
  const { origin, grants: applying } = found

  // Only now: an origin's own rules must not tell strangers that it exists.
  const unfit = reach.fits?.(origin) ?? []
  if (unfit.length > 0) return notServed(origin, unfit)

  if (origin.type === 'cloudfront' && !origin.responseOverrides && 'itemPath' in reach) {
    const overridden = reach.items.findIndex((item) => item.response !== undefined)
    if (overridden >= 0) {
      // The item, not its key: `items.3` (the redirect's one item is its `key`).
      const at = reach.itemPath(overridden)
      return notServed(origin, [
        {
          path: at.endsWith('.key') ? at.slice(0, -'.key'.length) : at,
          message: `cannot carry download, inline or response overrides: origin "${origin.name}" does not say its distribution forwards response-* query strings to the bucket (responseOverrides)`,
        },
      ])
    }
  }

  const targets = targetsOf(reach)
  const partial = reach.kind === 'listed'
  if (origin.keys === 'safe') {
    const unsafe: FieldError[] = []
    for (const target of targets) {
      if (unsafe.length >= MAX_LISTED) break
      // A pattern may be empty (the whole origin); a key may not, and partial reaches skip.
      const reason = target.pattern && target.key === '' ? undefined : unsafeKeyReason(target.key)
      if (reason !== undefined && !partial) unsafe.push({ path: target.path, message: reason })
    }
    if (unsafe.length > 0) return invalidFields(unsafe)
  }

  const grants = applying.filter(({ grant }) => grant.actions.has(action))
  if (grants.length === 0 && !partial) return noGrant(action, origin.name)

  // The rules of this artifact, in the order their refusals are told. All but the override rule
  // depend on the grant alone, so they are judged once per grant, not once per key.
  const content = reach.kind === 'upload' ? reach.content : undefined
  const writes = reach.kind === 'urls' && reach.action === 'write'
  const rules: Rule[] = []
  if (reach.kind === 'wildcard') rules.push(wildcardRule)
  if (content !== undefined || writes) {
    const c = content ?? { overwrite: { path: 'method', unsigned: true } }
    rules.push(contentTypeRule(c), lengthRule(c), overwriteRule(c))
  }
  const overrides = 'itemPath' in reach && reach.items.some((item) => item.response !== undefined)
  if (overrides) rules.push(overrideRule)
  const covers = (prefix: string, target: Target) =>
    target.pattern ? prefixCoversAll(prefix, target.key) : prefixCovers(prefix, target.key)

  // A listing's URLs count only the objects they are for.
  let count = countOf(reach)
  if (partial) {
    count = {
      n: targets.filter((t) => grants.some(({ prefix }) => covers(prefix, t))).length,
      path: 'limit',
    }
  }
  if (count !== undefined) rules.push(batchRule(count))
  const expiryOf =
    reach.kind === 'links'
      ? (grant: Grant) => grant.maxLinkExpiresIn
      : (grant: Grant) => grant.maxExpiresIn
  const grantOnly = rules.filter((rule) => rule !== overrideRule)
  const passes = (okay: readonly boolean[], i: number, target: Target) =>
    okay[i]! && (!overrides || overrideRule.admits(grants[i]!.grant, target))

  // Each target, then, is covered by some grant that alone passes every rule, or refused with
  // the first rule none of its covering grants passes.
  const denials: Denial[] = []
  let uncovered = 0
  // The keys the caller sent that no grant covers, for the refusal to name.
  const named: string[] = []
  const deny = (target: Target, denial: Denial) => {
    if (denial.kind === 'not-covered' && uncovered++ < MAX_NAMED_KEYS && !target.chosen) {
      named.push(target.key)
    }
    if (denials.length < MAX_LISTED) denials.push(denial)
  }
  const coveringOf = (target: Target) =>
    grants.filter(({ prefix }) => covers(prefix, target)).map(({ grant }) => grant)
  // Which grants cover each target, as a bit set: most batches' keys share one, so the sweeps
  // below judge each distinct set once rather than each key (without overrides, whether a grant
  // allows a target depends on the grant alone once it covers it).
  const byCover = !overrides && grants.length <= 30
  const cover = byCover
    ? targets.map((target) => {
        let set = 0
        for (let i = 0; i < grants.length; i++) {
          if (covers(grants[i]!.prefix, target)) set |= 1 << i
        }
        return set
      })
    : []
  /** Per target: the most `pick` gives among the grants that allow it, or -1 when none does. */
  const sweep = (okay: readonly boolean[], pick: (grant: Grant) => number): number[] => {
    const bestOf = (target: Target, set: number) => {
      let best = -1
      for (let i = 0; i < grants.length; i++) {
        const covering = byCover ? (set & (1 << i)) !== 0 : covers(grants[i]!.prefix, target)
        if (covering && passes(okay, i, target)) best = Math.max(best, pick(grants[i]!.grant))
      }
      return best
    }
    if (!byCover) return targets.map((target) => bestOf(target, 0))
    const memo = new Map<number, number>()
    return targets.map((target, t) => {
      const set = cover[t]!
      let best = memo.get(set)
      if (best === undefined) memo.set(set, (best = bestOf(target, set)))
      return best
    })
  }
  const okA = grants.map(({ grant }) => grantOnly.every((rule) => rule.admits(grant, targets[0]!)))
  const reachA = sweep(okA, expiryOf)
  const kept: boolean[] = []
  targets.forEach((target, t) => {
    if (reachA[t]! >= 0) return void (kept[t] = true)
    kept[t] = false
    const covering = coveringOf(target)
    if (covering.length > 0) deny(target, judge(covering, rules, target) as Denial)
    else if (!partial) {
      const quoted = target.chosen ? '' : `${JSON.stringify(target.key)} `
      deny(target, {
        kind: 'not-covered',
        error: {
          path: target.path,
          message: !target.pattern
            ? `${quoted}is not covered by a grant to ${action}`
            : target.key === '' && action === 'list'
              ? 'is absent or empty, which lists the whole origin: no grant to list covers it'
              : `${quoted}is not wholly covered by a grant to ${action}`,
        },
      })
    }
  })
  const refusal = refusalOf(denials, uncovered, reach, named)
  if (refusal !== undefined) return refusal

  // The lifetime: asked for, or the default within every target's most generous grant.
  const least = (values: readonly number[]) =>
    values.reduce((min, value, t) => (kept[t] ? Math.min(min, value) : min), Infinity)
  const nothing = !kept.includes(true)
  const anyGrant = (pick: (grant: Grant) => number) =>
    most(
      grants.map(({ grant }) => grant),
      pick,
    ) || MAX_EXPIRES_S
  const expiresIn =
    reach.expiresIn ??
    Math.min(
      reach.kind === 'links' ? DEFAULT_LINK_EXPIRES_S : config.defaultExpiresIn,
      nothing ? anyGrant(expiryOf) : least(reachA),
    )
  const timeRules = [expiryRule(expiresIn, expiryOf)]
  if (reach.signingWindow !== undefined) timeRules.push(windowRule(reach.signingWindow, expiresIn))
  const okB = grants.map(
    ({ grant }, i) => okA[i]! && timeRules.every((rule) => rule.admits(grant, targets[0]!)),
  )
  const lifetimes = sweep(okB, expiryOf)
  targets.forEach((target, t) => {
    if (!kept[t] || lifetimes[t]! >= 0) return
    const allowed = coveringOf(target).filter((grant) => {
      const i = grants.findIndex((g) => g.grant === grant)
      return passes(okA, i, target)
    })
    deny(target, judge(allowed, timeRules, target) as Denial)
  })
  const late = refusalOf(denials, 0, reach, named)
  if (late !== undefined) return late

  const maxLifetime = nothing ? anyGrant(expiryOf) : least(lifetimes)
  const rsa =
    origin.type === 'cloudfront' && origin.signingKeys[0]!.parsed.kind === 'rsa'
      ? config.maxRsaSignatures
      : Infinity
  // Canned CloudFront URLs cost one RSA signature each; a listing signs one per entry it returns.
  // A link costs nothing to issue: its one signature is made each time it is followed.
  const signsEach =
    reach.kind === 'listing' || (reach.kind === 'urls' && action === 'read') || partial
  const batchBound = nothing
    ? anyGrant((grant) => grant.maxBatch)
    : least(sweep(okB, (grant) => grant.maxBatch))
  const maxCount = Math.min(batchBound, signsEach ? rsa : Infinity)
  if (!nothing && count !== undefined && count.n > maxCount) {
    return invalidFields([
      {
        path: count.path,
        message: `must contain at most ${maxCount} entries: each canned URL costs an RSA signature (WAYBILL_MAX_RSA_SIGNATURES); use "policy": "wildcard" for one signature in all, or an ECDSA key`,
      },
    ])
  }
  if (reach.kind === 'wildcard') {
    const prefix = reach.pattern.prefix
    if (reach.items.some((item) => !item.key.startsWith(prefix))) {
      throw new Error('an item lies outside the pattern it is signed under')
    }
  }

  const length = content?.length
  // Up to a grant's own limit: the most one grant allowing the upload allows (none: S3's own).
  const grantLength = () => {
    const limits = grants.flatMap(({ grant, prefix }, i) =>
      covers(prefix, targets[0]!) && okB[i] ? [grant.maxContentLength] : [],
    )
    return limits.includes(undefined) ? undefined : Math.max(...(limits as number[]))
  }
  return mint({
    origin,
    action,
    items: itemsOf(reach, kept),
    under: reach.kind === 'wildcard' ? [reach.pattern.prefix] : uploadPattern(reach),
    expiresIn,
    window: reach.signingWindow ?? origin.signingWindow,
    maxLifetime,
    content,
    maxContentLength:
      length === undefined
        ? undefined
        : 'exact' in length
          ? length.exact
          : length.atMost === 'grant'
            ? grantLength()
            : length.atMost,
    maxCount,
  })
}

/** The objects a permit signs: the reach's items (a listing's readable ones), or an upload's key. */
function itemsOf(reach: Reach, kept: readonly boolean[]): readonly PresignItem[] {
  switch (reach.kind) {
    case 'listed':
      return reach.items.filter((_, t) => kept[t])
    case 'upload':
      return 'key' in reach.target ? [{ key: reach.target.key }] : []
    case 'listing':
      return []
    default:
      return reach.items
  }
}

function uploadPattern(reach: Reach): readonly string[] {
  return reach.kind === 'upload' && 'keyPrefix' in reach.target ? [reach.target.keyPrefix] : []
}

/**
 * The refusal for a reach's denials: 403 when a target is not covered, else 400; none, none. Its
 * sentence names the first of the keys not covered that the caller sent (`named`).
 */
function refusalOf(
  denials: readonly Denial[],
  uncovered: number,
  reach: Reach,
  named: readonly string[],
): Refusal | undefined {
  if (denials.length === 0) return undefined
  const { covered, invalid } = collect(denials)
  if (covered.length > 0) {
    const n = Math.max(uncovered, covered.length)
    const more = n - named.length
    const keys =
      named.length === 0
        ? ''
        : ` (${named.map((key) => JSON.stringify(key)).join(', ')}${more > 0 ? ` and ${more} more` : ''})`
    // A listing is one request over its prefixes, not a batch of entries: its errors name them.
    return {
      refused: 'not-covered',
      detail:
        reach.kind === 'listing'
          ? "This listing is not covered by this caller's grants to list; nothing was listed."
          : `${n} ${n === 1 ? 'entry is' : 'entries are'} not covered by this caller's grants${keys}; nothing was signed.`,
      errors: covered.slice(0, MAX_LISTED),
    }
  }
  return invalidFields(invalid)
}

/**
 * The permit a followed link carries: reading its one object, for `expiresIn` seconds at most
 * `maxLifetime` (what is left of the link). The link was authorized when it was issued
 * (`authorize` with a `links` reach); following it needs no caller, only the origin to exist
 * still and the key to pass its key policy. Undefined otherwise: a link to nothing.
 */
export function linkPermit(
  config: Config,
  link: { origin: string; item: PresignItem; expiresIn: number; maxLifetime: number },
): Permit | undefined {
  const origin = config.origins.get(link.origin)
  if (
    origin === undefined ||
    (origin.keys === 'safe' && unsafeKeyReason(link.item.key) !== undefined)
  ) {
    return undefined
  }
  return mint({
    origin,
    action: 'read',
    items: [link.item],
    under: [],
    expiresIn: link.expiresIn,
    // A followed link's URL lives `maxLifetime` at most, whatever the origin's window.
    window: 0,
    maxLifetime: link.maxLifetime,
    content: undefined,
    maxContentLength: undefined,
    maxCount: 1,
  })
}
