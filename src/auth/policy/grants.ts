// The caller's grants that apply on an origin, with their prefix templates filled for the caller,
// and the questions asked of them outside `authorize` (which key a file name gets, whether a grant
// deletes a mismatched upload or lets the caller read a key).

import type { Action, Config, Grant, Origin } from '../../config'
import { PLACEHOLDER } from '../../config/grants'
import { sanitizeFilename } from '../../core/filename'
import { MAX_FILENAME_BYTES } from '../../limits'
import { placeholderValue, type Principal } from '../../principal'
import { subjectMatches } from '../../principal/subjects'
import { noGrant, type Refusal } from './permit'

const UNSAFE_CLAIM = /[/\\\x00-\x1f\x7f-\x9f]|\.\./

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
export function prefixCoversAll(prefix: string, keyPrefix: string): boolean {
  if (prefix === '') return true
  return keyPrefix.startsWith(prefix.endsWith('/') ? prefix : prefix + '/')
}

export interface ResolvedGrant {
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
export function granted(
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
