// Before any rule: the origin and the caller's grants there, what the origin cannot serve, and the
// keys its key policy refuses. In this order, so that an origin's own rules never tell a caller
// without a grant there that it exists.

import type { Action, Config, Origin } from '../../config'
import type { FieldError } from '../../errors'
import { MAX_REPORTED_ERRORS as MAX_LISTED } from '../../limits'
import type { Principal } from '../../principal'
import { unsafeKeyReason } from '../../core/key-safety'
import { granted, type ResolvedGrant } from './grants'
import { invalidFields, noGrant, notServed, type Refusal } from './permit'
import { actionOf, type Reach } from './reach'
import type { Target } from './rules/rule'
import { targetsOf } from './targets'

/** A reach the caller may ask of the origin: its targets, and the grants that could allow them. */
export interface Admitted {
  readonly origin: Origin
  readonly action: Action
  /** The caller's grants on the origin for the action, prefixes filled. */
  readonly grants: readonly ResolvedGrant[]
  readonly targets: readonly Target[]
  /** A listing's URLs: objects no grant covers are left out, not refused. */
  readonly partial: boolean
}

/**
 * `no-grant` naming `origin` unless the caller holds some grant there (unknown origins answer the
 * same); `not-covered` for what the origin cannot serve (`fits`, response overrides it does not
 * carry); `invalid` for keys its key policy refuses; `no-grant` again without a grant for the
 * action. Otherwise what the rules judge.
 */
export function admit(config: Config, principal: Principal, reach: Reach): Admitted | Refusal {
  const action = actionOf(reach)
  const found = granted(config, principal, reach.origin, action)
  if ('refused' in found) return found
  const { origin, grants: applying } = found

  // Only now: an origin's own rules must not tell strangers that it exists.
  const unfit = reach.fits?.(origin) ?? []
  if (unfit.length > 0) return notServed(origin, unfit)

  if (!origin.urls.overrides && 'itemPath' in reach) {
    const overridden = reach.items.findIndex((item) => item.response !== undefined)
    if (overridden >= 0) {
      // The item, not its key: `items.3` (the redirect's one item is its `key`).
      const at = reach.itemPath(overridden)
      return notServed(origin, [
        {
          path: at.endsWith('.key') ? at.slice(0, -'.key'.length) : at,
          message: `cannot carry download, inline or response overrides: origin "${origin.name}" does not forward them to its store (a CloudFront origin says so with responseOverrides)`,
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
  return { origin, action, grants, targets, partial }
}
