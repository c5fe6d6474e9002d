// What a principal may sign: grants by origin, key prefix and action. Pure: no I/O, no clock.
// Deny by default: a request is allowed only when every key is covered by a grant of the caller.

import type { Action, Config, Grant, GrantSubject, Origin } from '../config'
import { PLACEHOLDER } from '../config/grants'
import { MAX_EXPIRES_S } from '../constants'
import type { PresignMethod } from '../core/s3/presign'
import { WaybillError, invalid, type FieldError } from '../errors'
import { unsafeKeyReason } from './key-safety'
import type { Principal } from './principal'

const MAX_LISTED = 100
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
 * Fills `{claim}` placeholders from the verified claims. Undefined when a value is missing or would
 * change the prefix's shape (`/`, `..`, backslash, control characters): then the grant does not apply.
 *
 * @example
 * resolvePrefix('users/{sub}/', { sub: 'alice' }) // 'users/alice/'
 * resolvePrefix('users/{sub}/', { sub: '../bob' }) // undefined
 */
export function resolvePrefix(
  template: string,
  claims: Readonly<Record<string, unknown>>,
): string | undefined {
  let ok = true
  const prefix = template.replace(PLACEHOLDER, (_, name: string) => {
    const value = claims[name]
    const text = typeof value === 'string' || typeof value === 'number' ? String(value) : ''
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

interface ResolvedGrant {
  grant: Grant
  prefix: string
}

/** The caller's grants for `action` on `origin`, with their prefixes filled in. */
function grantsFor(
  config: Config,
  principal: Principal,
  origin: Origin,
  action: Action,
): ResolvedGrant[] {
  const grants: ResolvedGrant[] = []
  for (const grant of config.grants) {
    if (grant.origin !== origin.name || !grant.actions.has(action)) continue
    if (!subjectMatches(grant.subject, principal)) continue
    const prefix = resolvePrefix(grant.prefix, principal.claims)
    if (prefix !== undefined) grants.push({ grant, prefix })
  }
  return grants
}

function noGrant(action: Action, originName: string): WaybillError {
  // The same answer for unknown and ungranted origins, so callers cannot probe the config.
  return new WaybillError(
    'forbidden',
    `No grant lets this caller ${action} on origin "${originName}".`,
    { errors: [{ path: 'origin', message: `no grant to ${action} on this origin` }] },
  )
}

export interface BatchRequest {
  origin: string
  action: Action
  /** Each key with the request path to blame (`keys.3`, `items.3.key`). */
  keys: ReadonlyArray<{ key: string; path: string }>
  /** The requested lifetime, or undefined to use the default (capped by the grants). */
  expiresIn: number | undefined
}

export interface Authorized {
  origin: Origin
  expiresIn: number
  /** The longest life the caller's grants allow for these keys. */
  maxExpiresIn: number
}

/**
 * Authorizes a whole batch, all or nothing. 403 lists every key no grant covers; 400 for keys the
 * origin's key policy refuses, an `expiresIn` above what the grants allow, or a batch above their
 * `maxBatch`.
 */
export function authorizeBatch(
  config: Config,
  principal: Principal,
  request: BatchRequest,
): Authorized {
  const origin = config.origins.get(request.origin)

  const grants = origin === undefined ? [] : grantsFor(config, principal, origin, request.action)
  if (origin === undefined || grants.length === 0) throw noGrant(request.action, request.origin)

  // Only after the grant check: an origin's own rules must not tell strangers that it exists.
  if (origin.keys === 'safe') {
    const unsafe: FieldError[] = []
    for (const { key, path } of request.keys) {
      const reason = unsafeKeyReason(key)
      if (reason !== undefined) unsafe.push({ path, message: reason })
      if (unsafe.length >= MAX_LISTED) break
    }
    if (unsafe.length > 0) throw invalid(unsafe)
  }

  // Per key, the most generous covering grant decides; the batch gets the least of those.
  const uncovered: FieldError[] = []
  let uncoveredCount = 0
  let allowedExpiry = Infinity
  let allowedBatch = Infinity
  for (const { key, path } of request.keys) {
    let expiry = 0
    let batch = 0
    for (const { grant, prefix } of grants) {
      if (!prefixCovers(prefix, key)) continue
      expiry = Math.max(expiry, grant.maxExpiresIn)
      batch = Math.max(batch, grant.maxBatch)
    }
    if (expiry === 0) {
      uncoveredCount++
      if (uncovered.length < MAX_LISTED) {
        uncovered.push({ path, message: `is not covered by a grant to ${request.action}` })
      }
    } else {
      allowedExpiry = Math.min(allowedExpiry, expiry)
      allowedBatch = Math.min(allowedBatch, batch)
    }
  }
  if (uncovered.length > 0) {
    throw new WaybillError(
      'forbidden',
      `${uncoveredCount} key${uncoveredCount === 1 ? ' is' : 's are'} not covered by this caller's grants; nothing was signed.`,
      { errors: uncovered },
    )
  }

  if (request.keys.length > allowedBatch) {
    const path = request.keys[0]!.path.split('.')[0]!
    throw invalid([
      { path, message: `must contain at most ${allowedBatch} entries for this caller` },
    ])
  }
  if (request.expiresIn !== undefined && request.expiresIn > allowedExpiry) {
    throw invalid([
      { path: 'expiresIn', message: `must be at most ${allowedExpiry} for this caller` },
    ])
  }
  return {
    origin,
    expiresIn: request.expiresIn ?? Math.min(config.defaultExpiresIn, allowedExpiry),
    maxExpiresIn: allowedExpiry,
  }
}

/**
 * The signing window of an authorized request: the caller's own `signingWindow`, which must keep
 * every URL within the grant (a URL lives up to expiresIn + window), or else the origin's, shortened
 * by the signer to fit the grant.
 */
export function signingWindowFor(
  authorized: Authorized,
  requested: number | undefined,
  field = 'signingWindow',
): { window: number; maxLifetime: number } {
  const { origin, expiresIn, maxExpiresIn } = authorized
  if (requested === undefined) return { window: origin.signingWindow, maxLifetime: maxExpiresIn }
  const limit = Math.min(maxExpiresIn, MAX_EXPIRES_S) - expiresIn
  if (requested > limit) {
    throw invalid([
      {
        path: field,
        message: `must be at most ${limit} for this caller with expiresIn ${expiresIn} (a URL lives up to expiresIn + signingWindow seconds)`,
      },
    ])
  }
  return { window: requested, maxLifetime: maxExpiresIn }
}

/** True when every key starting with `keyPrefix` is covered by the grant prefix `prefix`. */
export function prefixCoversAll(prefix: string, keyPrefix: string): boolean {
  if (prefix === '') return true
  return keyPrefix.startsWith(prefix.endsWith('/') ? prefix : prefix + '/')
}

/**
 * Authorizes a wildcard grant of read access to everything under `keyPrefix` (a CloudFront custom
 * policy for a batch, or signed cookies). Needs a read grant with `"wildcard": true` whose prefix
 * contains all of it: a wildcard reaches keys nobody listed.
 */
export function authorizeWildcard(
  config: Config,
  principal: Principal,
  origin: Origin,
  keyPrefix: string,
  field: string,
): { maxExpiresIn: number } {
  let maxExpiresIn = 0
  const wildcards = config.grants.filter(
    (grant) =>
      grant.origin === origin.name &&
      grant.wildcard &&
      grant.actions.has('read') &&
      subjectMatches(grant.subject, principal),
  )
  if (wildcards.length === 0) throw noGrant('read', origin.name)
  for (const grant of wildcards) {
    if (grant.origin !== origin.name || !grant.wildcard || !grant.actions.has('read')) continue
    if (!subjectMatches(grant.subject, principal)) continue
    const prefix = resolvePrefix(grant.prefix, principal.claims)
    if (prefix !== undefined && prefixCoversAll(prefix, keyPrefix)) {
      maxExpiresIn = Math.max(maxExpiresIn, grant.maxExpiresIn)
    }
  }
  if (maxExpiresIn > 0) return { maxExpiresIn }
  throw new WaybillError(
    'forbidden',
    `No grant lets this caller read everything under "${keyPrefix}" with one wildcard policy.`,
    { errors: [{ path: field, message: 'no wildcard grant covers this prefix' }] },
  )
}

export interface AuthorizedList {
  origin: Origin
  /** Most entries one listing may return for this caller. */
  maxBatch: number
}

/**
 * Authorizes listing everything under each of `prefixes`: a `list` grant must contain the whole of
 * each (`users/al` lists nothing of `users/alice/`, and `users/alice` would reach `users/alice2/`).
 */
export function authorizeList(
  config: Config,
  principal: Principal,
  originName: string,
  prefixes: readonly string[],
): AuthorizedList {
  const origin = config.origins.get(originName)
  const grants = origin === undefined ? [] : grantsFor(config, principal, origin, 'list')
  if (origin === undefined || grants.length === 0) throw noGrant('list', originName)
  const uncovered: FieldError[] = []
  let maxBatch = Infinity
  prefixes.forEach((keyPrefix, i) => {
    let batch = 0
    for (const { grant, prefix } of grants) {
      if (prefixCoversAll(prefix, keyPrefix)) batch = Math.max(batch, grant.maxBatch)
    }
    if (batch === 0) {
      uncovered.push({ path: `prefix.${i}`, message: 'is not wholly covered by a grant to list' })
    }
    maxBatch = Math.min(maxBatch, batch)
  })
  if (uncovered.length > 0) {
    throw new WaybillError('forbidden', "A prefix is not covered by this caller's list grants.", {
      errors: uncovered,
    })
  }
  return { origin, maxBatch }
}

export interface AuthorizedReads {
  /** Per key: may the caller get a URL for it. */
  readable: boolean[]
  expiresIn: number
  maxExpiresIn: number
}

/**
 * Which of `keys` the caller may read, for a listing: keys without a covering `read` grant (or
 * that the origin's key policy refuses) are listed without a URL rather than failing the request.
 */
export function authorizeReads(
  config: Config,
  principal: Principal,
  origin: Origin,
  keys: readonly string[],
  expiresIn: number | undefined,
): AuthorizedReads {
  const grants = grantsFor(config, principal, origin, 'read')
  let allowedExpiry = Infinity
  const readable = keys.map((key) => {
    if (origin.keys === 'safe' && unsafeKeyReason(key) !== undefined) return false
    let expiry = 0
    for (const { grant, prefix } of grants) {
      if (prefixCovers(prefix, key)) expiry = Math.max(expiry, grant.maxExpiresIn)
    }
    if (expiry > 0) allowedExpiry = Math.min(allowedExpiry, expiry)
    return expiry > 0
  })
  if (allowedExpiry === Infinity) {
    allowedExpiry = grants.reduce((max, { grant }) => Math.max(max, grant.maxExpiresIn), 0)
  }
  if (expiresIn !== undefined && expiresIn > allowedExpiry && readable.includes(true)) {
    throw invalid([
      { path: 'expiresIn', message: `must be at most ${allowedExpiry} for this caller` },
    ])
  }
  return {
    readable,
    expiresIn: expiresIn ?? Math.min(config.defaultExpiresIn, allowedExpiry || Infinity),
    maxExpiresIn: allowedExpiry,
  }
}

export interface UploadRequestScope {
  origin: string
  /** The key, or for a POST policy with `keyPrefix` the prefix every key will start with. */
  key: string
  keyIsPrefix: boolean
  /**
   * A media type (`image/png; charset=…`) or, for POST policies, a family (`image/*`); undefined
   * for the multipart follow-ups, whose type was checked when the upload began.
   */
  contentType: string | undefined
  contentLength: number | undefined
  expiresIn: number | undefined
}

export interface AuthorizedUpload extends Authorized {
  /** The largest object the caller may upload here, if the grant limits it. */
  maxContentLength: number | undefined
}

/** True when a grant's content type patterns admit `contentType` (a whole family needs `x/*`). */
export function contentTypeAllowed(
  patterns: readonly string[] | undefined,
  contentType: string,
): boolean {
  if (patterns === undefined) return true
  const media = contentType.split(';')[0]!.trim().toLowerCase()
  const family = media.slice(0, media.indexOf('/'))
  return patterns.some(
    (pattern) => pattern === media || (pattern.endsWith('/*') && pattern === `${family}/*`),
  )
}

/**
 * Authorizes an upload: a `write` grant covering the key (or the whole key prefix) that admits the
 * content type and size. 403 when no grant covers the key; 400 naming `contentType`,
 * `contentLength` or `expiresIn` when the covering grants refuse the value.
 */
export function authorizeUpload(
  config: Config,
  principal: Principal,
  request: UploadRequestScope,
): AuthorizedUpload {
  const origin = config.origins.get(request.origin)
  const path = request.keyIsPrefix ? 'keyPrefix' : 'key'
  if (origin !== undefined && origin.keys === 'safe') {
    const reason = unsafeKeyReason(request.key)
    if (reason !== undefined) throw invalid([{ path, message: reason }])
  }
  const grants = origin === undefined ? [] : grantsFor(config, principal, origin, 'write')
  if (origin === undefined || grants.length === 0) throw noGrant('write', request.origin)
  const covering = grants.filter(({ prefix }) =>
    request.keyIsPrefix ? prefixCoversAll(prefix, request.key) : prefixCovers(prefix, request.key),
  )
  if (covering.length === 0) {
    throw new WaybillError('forbidden', 'The key is not covered by a grant to write.', {
      errors: [{ path, message: 'is not covered by a grant to write' }],
    })
  }
  const { contentType } = request
  const typed =
    contentType === undefined
      ? covering
      : covering.filter(({ grant }) => contentTypeAllowed(grant.contentTypes, contentType))
  if (typed.length === 0) {
    const allowed = [...new Set(covering.flatMap(({ grant }) => grant.contentTypes ?? []))]
    throw invalid([
      { path: 'contentType', message: `must be one of ${allowed.join(', ')} for this caller` },
    ])
  }
  // The most generous grant that admits the type decides the size and lifetime limits.
  const maxContentLength = typed.some(({ grant }) => grant.maxContentLength === undefined)
    ? undefined
    : Math.max(...typed.map(({ grant }) => grant.maxContentLength!))
  if (
    maxContentLength !== undefined &&
    request.contentLength !== undefined &&
    request.contentLength > maxContentLength
  ) {
    throw invalid([
      {
        path: 'contentLength',
        message: `must be at most ${maxContentLength} bytes for this caller`,
      },
    ])
  }
  const maxExpiresIn = Math.max(...typed.map(({ grant }) => grant.maxExpiresIn))
  if (request.expiresIn !== undefined && request.expiresIn > maxExpiresIn) {
    throw invalid([
      { path: 'expiresIn', message: `must be at most ${maxExpiresIn} for this caller` },
    ])
  }
  return {
    origin,
    expiresIn: request.expiresIn ?? Math.min(config.defaultExpiresIn, maxExpiresIn),
    maxExpiresIn,
    maxContentLength,
  }
}

/**
 * The origin, when the caller holds at least one grant on it (for `action`, or for any action
 * when `anyAction`); otherwise the same 403 whether the origin exists or not. Checks that depend
 * on the origin's configuration come after this.
 */
export function requireAnyGrant(
  config: Config,
  principal: Principal,
  originName: string,
  action: Action,
  anyAction = false,
): Origin {
  const origin = config.origins.get(originName)
  const actions: readonly Action[] = anyAction ? ['read', 'write', 'delete', 'list'] : [action]
  if (
    origin === undefined ||
    actions.every((a) => grantsFor(config, principal, origin, a).length === 0)
  ) {
    throw noGrant(action, originName)
  }
  return origin
}
