// What a principal may sign. Every artifact waybill signs is first described by what it lets its
// holder do (a `Reach`: the action, the exact keys or key patterns it reaches, for how long, and
// which upload limits the signature itself enforces). `authorize` compares that description with
// every field of the caller's grants and answers a `Permit`, the only thing the signers accept
// (src/signing.ts). A grant limit counts only when the signature enforces it: a limit the holder
// could simply not send is no limit. Pure: no I/O, no clock. Deny by default.

import type { Action, Config, Grant, GrantSubject, Origin } from '../config'
import { PLACEHOLDER } from '../config/grants'
import {
  DEFAULT_LINK_EXPIRES_S,
  MAX_EXPIRES_S,
  MAX_FILENAME_BYTES,
  MAX_REPORTED_ERRORS as MAX_LISTED,
} from '../config/limits'
import type { PresignItem, PresignMethod } from '../core/s3/presign'
import { WaybillError, invalid, type FieldError } from '../errors'
import { sanitizeFilename, unsafeKeyReason } from './key-safety'
import { placeholderValue, type Principal } from './principal'

const UNSAFE_CLAIM = /[/\\\x00-\x1f\x7f-\x9f]|\.\./

export function actionFor(method: PresignMethod): Action {
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
  return applicable(config, principal, origin).some(
    ({ grant, prefix }) =>
      grant.deleteMismatched && grant.actions.has('write') && prefixCovers(prefix, key),
  )
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

/** A media type's essence, `type/subtype` in lower case, without parameters. */
export function essence(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase()
}

/** True when a grant's content type patterns admit `contentType` (a whole family needs `x/*`). */
function contentTypeAllowed(patterns: readonly string[] | undefined, contentType: string): boolean {
  if (patterns === undefined) return true
  const media = essence(contentType)
  const family = media.slice(0, media.indexOf('/'))
  return patterns.some(
    (pattern) => pattern === media || (pattern.endsWith('/*') && pattern === `${family}/*`),
  )
}

// What a browser renders as a document that runs script, or runs as script, when an object is
// served with it: HTML, XML of any kind (XHTML and SVG carry script), JavaScript, and the types a
// browser sniffs instead of trusting. https://mimesniff.spec.whatwg.org/#javascript-mime-type
const ACTIVE_TYPE =
  /^(?:text\/html|text\/xml|text\/xsl|application\/xml|[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]*\+xml|(?:text|application)\/(?:x-)?(?:javascript|ecmascript)|text\/(?:jscript|livescript)|multipart\/x-mixed-replace|unknown\/unknown|application\/unknown|\*\/\*)$/

/** True when serving an object as `contentType` would let it run script on the bucket's origin. */
function isActiveContent(contentType: string): boolean {
  return ACTIVE_TYPE.test(essence(contentType))
}

/**
 * May a `response.contentType` override set `contentType` under this grant: a type it names, or
 * with no list, any type that is not active content. Active types must be named exactly.
 */
function overrideAllowed(grant: Grant, contentType: string): boolean {
  const listed = grant.responseContentTypes
  if (isActiveContent(contentType)) return listed?.includes(essence(contentType)) ?? false
  return listed === undefined || contentTypeAllowed(listed, contentType)
}

/** Upload limits a signature enforces itself: a signed Content-Type, a signed length. */
export interface ContentReach {
  /** The signed Content-Type (`family` for a POST policy's `starts-with "image/"`); absent: unsigned. */
  type?: { value: string; family: boolean; path: string } | undefined
  /**
   * The signed length: exactly `exact` bytes, or at most `atMost` (`'grant'`: the caller's own
   * largest, resolved into the permit). Absent: unsigned, the holder may send any size.
   */
  length?: { exact: number } | { atMost: number | 'grant' } | undefined
  /** The request field that sets the length, to name when it is missing or too large. */
  lengthPath?: string | undefined
}

/** What a signed artifact lets its holder do, before it is signed. */
export interface Reach {
  origin: string
  action: Action
  /** The objects the artifact names, by exact key. */
  items?: readonly PresignItem[] | undefined
  /** The field naming item `i`'s key (`keys.3`, `items.3.key`), and its Content-Type override. */
  itemPath?: ((i: number) => string) | undefined
  overridePath?: ((i: number) => string) | undefined
  /** Key patterns it reaches: every key starting with `prefix` (wildcards, starts-with, listings). */
  under?: readonly { prefix: string; path: string }[] | undefined
  /** Entries it carries, against the grants' `maxBatch` (default: the items, at their field). */
  count?: { n: number; path: string } | undefined
  /** Requested lifetime and signing window; undefined: the defaults, capped by the grants. */
  expiresIn?: number | undefined
  signingWindow?: number | undefined
  /** For `write`: the upload limits the signature enforces. Absent: none. */
  content?: ContentReach | undefined
  /** A signed link: its lifetime is bounded by the grants' `maxLinkExpiresIn`. */
  link?: boolean | undefined
  /** Leave out the items no grant covers instead of refusing (listings: keys without a URL). */
  partial?: boolean | undefined
  /** What the origin's type cannot do; checked once the caller is known to hold a grant there. */
  fits?: ((origin: Origin) => readonly FieldError[]) | undefined
}

declare const PERMIT: unique symbol

/** The answer of `authorize`: exactly what may be signed, and nothing else. */
export interface Permit {
  readonly [PERMIT]: true
  readonly origin: Origin
  readonly action: Action
  /** The objects to sign (only the covered ones for a partial reach), in request order. */
  readonly items: readonly PresignItem[]
  /** The key patterns the artifact reaches. */
  readonly under: readonly string[]
  /** The least life every URL has from the request time, and the signing window to use. */
  readonly expiresIn: number
  readonly window: number
  /** The longest any URL may live (the grants' `maxExpiresIn`): the window shrinks to fit. */
  readonly maxLifetime: number
  readonly content: ContentReach | undefined
  /** The largest body the signature admits, `'grant'` resolved; undefined: unsigned or unlimited. */
  readonly maxContentLength: number | undefined
  /** Entries one more artifact of this kind may carry for this caller (listings size pages by it). */
  readonly maxCount: number
}

const issued = new WeakSet<object>()

/** True for a permit `authorize` made; the signers refuse anything else. */
export function isPermit(value: unknown): value is Permit {
  return typeof value === 'object' && value !== null && issued.has(value)
}

function noGrant(action: Action, originName: string): WaybillError {
  // The same answer for unknown and ungranted origins, so callers cannot probe the config.
  return new WaybillError(
    'forbidden',
    `No grant lets this caller ${action} on origin "${originName}".`,
    { errors: [{ path: 'origin', message: `no grant to ${action} on this origin` }] },
  )
}

interface ResolvedGrant {
  grant: Grant
  prefix: string
}

/** The caller's grants on `origin` that apply (their prefix templates fill), prefixes filled. */
function applicable(config: Config, principal: Principal, origin: Origin): ResolvedGrant[] {
  const grants: ResolvedGrant[] = []
  for (const grant of config.grants) {
    if (grant.origin !== origin.name || !subjectMatches(grant.subject, principal)) continue
    const prefix = resolvePrefix(grant.prefix, principal)
    if (prefix !== undefined) grants.push({ grant, prefix })
  }
  return grants
}

/**
 * The origin, when some grant of the caller applies there; otherwise the 403 an unknown origin
 * gets. Whatever depends on the origin (its rules, what waybill sealed for it) comes after this.
 */
export function grantedOrigin(
  config: Config,
  principal: Principal,
  name: string,
  action: Action,
): Origin {
  return granted(config, principal, name, action).origin
}

/** `grantedOrigin`, with the caller's grants there (for `authorize`, which needs both). */
function granted(
  config: Config,
  principal: Principal,
  name: string,
  action: Action,
): { origin: Origin; grants: ResolvedGrant[] } {
  const origin = config.origins.get(name)
  const grants = origin === undefined ? [] : applicable(config, principal, origin)
  if (origin === undefined || grants.length === 0) throw noGrant(action, name)
  return { origin, grants }
}

/** A target's verdict: refused (why, and how loudly) or the most its grants allow. */
type Verdict =
  | { ok: false; status: 400 | 403; error: FieldError }
  | { ok: true; expiry: number; batch: number; maxLength: number | undefined }

const largest = (grants: readonly ResolvedGrant[], pick: (grant: Grant) => number) =>
  grants.reduce((max, { grant }) => Math.max(max, pick(grant)), 0)

/** The most a length limit admits under `grants`: undefined when one of them has none. */
function lengthLimit(grants: readonly ResolvedGrant[]): number | undefined {
  if (grants.some(({ grant }) => grant.maxContentLength === undefined)) return undefined
  return largest(grants, (grant) => grant.maxContentLength!)
}

/** Refused: a grant covers the target but limits what this artifact does not sign. */
function unsignedLimit(path: string, limit: string): Verdict {
  return {
    ok: false,
    status: 403,
    error: {
      path,
      message: `a grant to write covers it, but limits ${limit}, which this URL does not sign; use POST /v1/uploads`,
    },
  }
}

/** Filters `grants` down to those whose upload limits this signature enforces. */
function judgeContent(
  grants: readonly ResolvedGrant[],
  content: ContentReach | undefined,
  path: string,
): readonly ResolvedGrant[] | Verdict {
  const type = content?.type
  const typed = grants.filter(
    ({ grant }) =>
      grant.contentTypes === undefined ||
      (type !== undefined && contentTypeAllowed(grant.contentTypes, type.value)),
  )
  if (typed.length === 0) {
    if (type === undefined) return unsignedLimit(path, 'the content type')
    const allowed = [...new Set(grants.flatMap(({ grant }) => grant.contentTypes ?? []))]
    return {
      ok: false,
      status: 400,
      error: { path: type.path, message: `must be one of ${allowed.join(', ')} for this caller` },
    }
  }
  const length = content?.length
  const most = length === undefined ? undefined : 'exact' in length ? length.exact : length.atMost
  const sized = typed.filter(
    ({ grant }) =>
      grant.maxContentLength === undefined ||
      most === 'grant' ||
      (most !== undefined && most <= grant.maxContentLength),
  )
  if (sized.length > 0) return sized
  const limit = lengthLimit(typed)!
  const lengthPath = content?.lengthPath
  if (lengthPath === undefined) return unsignedLimit(path, `the size to ${limit} bytes`)
  const message =
    most === undefined
      ? `is required: this caller's uploads are limited to ${limit} bytes, and only a signed length enforces that`
      : `must be at most ${limit} bytes for this caller`
  return { ok: false, status: 400, error: { path: lengthPath, message } }
}

/**
 * Compares what an artifact would let its holder do with every field of the caller's grants, and
 * answers the permit to sign it, all or nothing (a `partial` reach leaves uncovered items out).
 *
 * In order: 403 naming `origin` unless the caller holds some grant on the origin (unknown origins
 * answer the same); 400 for what the origin cannot do (`fits`) and for keys its key policy refuses;
 * 403 listing each key or pattern no grant covers with all its limits enforced by the signature;
 * 400 naming the field a grant limits (content type, length, response type, batch size, RSA
 * signatures, `expiresIn`, `signingWindow`).
 *
 * @example
 * const permit = authorize(config, principal, { origin: 'photos', action: 'read', items: [{ key: 'a.jpg' }] })
 * const urls = await batchSigner(permit, { method: 'GET', now }).sign()
 */
export function authorize(config: Config, principal: Principal, reach: Reach): Permit {
  const { action } = reach
  const { origin, grants: applying } = granted(config, principal, reach.origin, action)

  // Only now: an origin's own rules must not tell strangers that it exists.
  const unfit = reach.fits?.(origin) ?? []
  if (unfit.length > 0) throw invalid(unfit)

  const items = reach.items ?? []
  if (origin.type === 'cloudfront' && !origin.responseOverrides) {
    const overridden = items.findIndex((item) => item.response !== undefined)
    if (overridden >= 0) {
      // The item, not its key: `items.3` (the redirect's one item is its `key`).
      const at = reach.itemPath?.(overridden) ?? `keys.${overridden}`
      throw invalid([
        {
          path: at.endsWith('.key') ? at.slice(0, -'.key'.length) : at,
          message: `cannot carry download, inline or response overrides: origin "${origin.name}" does not say its distribution forwards response-* query strings to the bucket (responseOverrides)`,
        },
      ])
    }
  }

  const under = reach.under ?? []
  const itemPath = reach.itemPath ?? ((i: number) => `keys.${i}`)
  const partial = reach.partial === true
  let safe: boolean[] | undefined
  if (origin.keys === 'safe') {
    const unsafe: FieldError[] = []
    for (const { prefix, path } of under) {
      const reason = prefix === '' ? undefined : unsafeKeyReason(prefix)
      if (reason !== undefined) unsafe.push({ path, message: reason })
    }
    if (partial) safe = items.map((item) => unsafeKeyReason(item.key) === undefined)
    else {
      for (let i = 0; i < items.length && unsafe.length < MAX_LISTED; i++) {
        const reason = unsafeKeyReason(items[i]!.key)
        if (reason !== undefined) unsafe.push({ path: itemPath(i), message: reason })
      }
    }
    if (unsafe.length > 0) throw invalid(unsafe)
  }

  const grants = applying.filter(({ grant }) => grant.actions.has(action))
  if (grants.length === 0 && !partial) throw noGrant(action, origin.name)

  const expiryOf = reach.link
    ? (grant: Grant) => grant.maxLinkExpiresIn
    : (grant: Grant) => grant.maxExpiresIn
  const judge = (
    covering: readonly ResolvedGrant[],
    path: string,
    pattern: string | undefined,
    item: PresignItem | undefined,
    itemIndex: number,
  ): Verdict => {
    let allowed = covering
    if (allowed.length === 0) {
      const message =
        pattern === undefined
          ? `is not covered by a grant to ${action}`
          : pattern === '' && action === 'list'
            ? 'is absent or empty, which lists the whole origin: no grant to list covers it'
            : `is not wholly covered by a grant to ${action}`
      return { ok: false, status: 403, error: { path, message } }
    }
    if (pattern !== undefined && action === 'read') {
      // A wildcard reaches keys nobody listed: only grants that say so may sign one.
      allowed = allowed.filter(({ grant }) => grant.wildcard)
      if (allowed.length === 0) {
        return {
          ok: false,
          status: 403,
          error: { path, message: 'no wildcard grant covers this prefix' },
        }
      }
    }
    if (action === 'write') {
      const judged = judgeContent(allowed, reach.content, path)
      if (!Array.isArray(judged)) return judged as Verdict
      allowed = judged as readonly ResolvedGrant[]
    }
    const override = item?.response?.contentType
    if (override !== undefined) {
      allowed = allowed.filter(({ grant }) => overrideAllowed(grant, override))
      if (allowed.length === 0) {
        const overridePath = reach.overridePath?.(itemIndex) ?? `${path}.response.contentType`
        return {
          ok: false,
          status: 400,
          error: {
            path: overridePath,
            message: isActiveContent(override)
              ? `must not be ${essence(override)} for this caller: a browser would run the object as a page on the bucket's origin`
              : 'is not a type this caller may set',
          },
        }
      }
    }
    return {
      ok: true,
      expiry: largest(allowed, expiryOf),
      batch: largest(allowed, (grant) => grant.maxBatch),
      maxLength: lengthLimit(allowed),
    }
  }

  // Each target's most generous grant decides for it; the artifact gets the least of those.
  const refused: FieldError[] = []
  const invalidFields: FieldError[] = []
  let refusedCount = 0
  let allowedExpiry = Infinity
  let allowedBatch = Infinity
  let maxLength: number | undefined
  let lengthBound = false
  const take = (verdict: Verdict & { ok: true }) => {
    allowedExpiry = Math.min(allowedExpiry, verdict.expiry)
    allowedBatch = Math.min(allowedBatch, verdict.batch)
    if (verdict.maxLength !== undefined) {
      maxLength = Math.min(maxLength ?? Infinity, verdict.maxLength)
      lengthBound = true
    }
  }
  const refuse = (verdict: Verdict & { ok: false }) => {
    if (verdict.status === 403) {
      refusedCount++
      if (refused.length < MAX_LISTED) refused.push(verdict.error)
    } else if (invalidFields.length < MAX_LISTED) invalidFields.push(verdict.error)
  }
  for (const { prefix: pattern, path } of under) {
    const covering = grants.filter(({ prefix }) => prefixCoversAll(prefix, pattern))
    const verdict = judge(covering, path, pattern, undefined, -1)
    if (verdict.ok) take(verdict)
    else refuse(verdict)
  }
  const kept: PresignItem[] = []
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    if (safe !== undefined && !safe[i]) continue
    // Without a pattern the item's own key is what the signature reaches; with one, the pattern
    // already decided and the items only name where URLs point (each must lie inside it).
    if (under.length > 0) {
      if (!under.some(({ prefix }) => item.key.startsWith(prefix))) {
        throw new Error('an item lies outside the pattern it is signed under')
      }
      kept.push(item)
      continue
    }
    const covering = grants.filter(({ prefix }) => prefixCovers(prefix, item.key))
    const verdict = judge(covering, itemPath(i), undefined, item, i)
    if (verdict.ok) {
      take(verdict)
      kept.push(item)
    } else if (!partial) refuse(verdict)
  }
  if (refused.length > 0) {
    // A listing is one request over its prefixes, not a batch of entries: its errors name them.
    const detail =
      action === 'list'
        ? "This listing is not covered by this caller's grants to list; nothing was listed."
        : `${refusedCount} ${refusedCount === 1 ? 'entry is' : 'entries are'} not covered by this caller's grants; nothing was signed.`
    throw new WaybillError('forbidden', detail, { errors: refused })
  }
  if (invalidFields.length > 0) throw invalid(invalidFields)

  // A partial reach that covers nothing signs nothing: no limit below applies to it.
  const nothing = partial && kept.length === 0 && under.length === 0
  if (nothing) allowedExpiry = largest(grants, expiryOf) || MAX_EXPIRES_S

  const rsa =
    origin.type === 'cloudfront' && origin.signingKeys[0]!.parsed.kind === 'rsa'
      ? config.maxRsaSignatures
      : Infinity
  // Canned CloudFront URLs cost one RSA signature each; a listing signs one per entry it returns.
  // A link costs nothing to issue: its one signature is made each time it is followed.
  const signs = !reach.link && (action === 'list' || (action === 'read' && under.length === 0))
  const maxCount = Math.min(allowedBatch, signs ? rsa : Infinity)
  const count = reach.count ?? {
    n: kept.length,
    path: items.length > 0 ? itemPath(0).split('.')[0]! : 'keys',
  }
  if (!nothing && count.n > allowedBatch) {
    throw invalid([
      { path: count.path, message: `must contain at most ${allowedBatch} entries for this caller` },
    ])
  }
  if (!nothing && count.n > maxCount) {
    throw invalid([
      {
        path: count.path,
        message: `must contain at most ${maxCount} entries: each canned URL costs an RSA signature (WAYBILL_MAX_RSA_SIGNATURES); use "policy": "wildcard" for one signature in all, or an ECDSA key`,
      },
    ])
  }
  if (!nothing && reach.expiresIn !== undefined && reach.expiresIn > allowedExpiry) {
    throw invalid([
      { path: 'expiresIn', message: `must be at most ${allowedExpiry} for this caller` },
    ])
  }
  const expiresIn =
    reach.expiresIn ??
    Math.min(reach.link ? DEFAULT_LINK_EXPIRES_S : config.defaultExpiresIn, allowedExpiry)
  let window = origin.signingWindow
  if (reach.signingWindow !== undefined) {
    // A URL lives up to expiresIn + window, which must stay within the grant.
    const limit = Math.min(allowedExpiry, MAX_EXPIRES_S) - expiresIn
    if (!nothing && reach.signingWindow > limit) {
      throw invalid([
        {
          path: 'signingWindow',
          message: `must be at most ${limit} for this caller with expiresIn ${expiresIn} (a URL lives up to expiresIn + signingWindow seconds)`,
        },
      ])
    }
    window = reach.signingWindow
  }
  const length = reach.content?.length
  const permit = {
    origin,
    action,
    items: kept,
    under: under.map(({ prefix }) => prefix),
    expiresIn,
    window,
    maxLifetime: allowedExpiry,
    content: reach.content,
    maxContentLength:
      length === undefined
        ? undefined
        : 'exact' in length
          ? length.exact
          : length.atMost === 'grant'
            ? lengthBound
              ? maxLength
              : undefined
            : length.atMost,
    maxCount,
  } as Omit<Permit, typeof PERMIT> as Permit
  issued.add(permit)
  return Object.freeze(permit)
}

/**
 * The permit a followed link carries: reading its one object, for `expiresIn` seconds at most
 * `maxLifetime` (what is left of the link). The link was authorized when it was issued (`authorize`
 * with `link`); following it needs no caller, only the origin to exist still and the key to pass
 * its key policy. 404 otherwise, as for a link to nothing.
 */
export function linkPermit(
  config: Config,
  link: { origin: string; item: PresignItem; expiresIn: number; maxLifetime: number },
): Permit {
  const origin = config.origins.get(link.origin)
  if (
    origin === undefined ||
    (origin.keys === 'safe' && unsafeKeyReason(link.item.key) !== undefined)
  ) {
    throw new WaybillError('not_found', 'This link leads to nothing that can be signed now.')
  }
  const permit = {
    origin,
    action: 'read',
    items: [link.item],
    under: [],
    expiresIn: link.expiresIn,
    window: origin.signingWindow,
    maxLifetime: link.maxLifetime,
    content: undefined,
    maxContentLength: undefined,
    maxCount: 1,
  } as Omit<Permit, typeof PERMIT> as Permit
  issued.add(permit)
  return Object.freeze(permit)
}
