// `authorize`: compares what an artifact would let its holder do (a `Reach`) with the caller's
// grants, rule by rule (./rules/, one per grant field), and answers a `Permit` or a `Refusal`.

import type { Config, Grant } from '../../config'
import {
  DEFAULT_LINK_EXPIRES_S,
  MAX_EXPIRES_S,
  MAX_NAMED_KEYS,
  MAX_REPORTED_ERRORS as MAX_LISTED,
} from '../../limits'
import type { Principal } from '../../principal'
import { admit } from './admit'
import { coverage, covers } from './coverage'
import { invalidFields, mint, type Permit, type Refusal } from './permit'
import type { Reach } from './reach'
import { refusalOf } from './refusal'
import { batchRule } from './rules/batch'
import { contentTypeRule } from './rules/content-type'
import { expiryRule } from './rules/expiry'
import { lengthRule } from './rules/length'
import { overwriteRule } from './rules/overwrite'
import { overrideRule } from './rules/response-type'
import { judge, most, type Denial, type Rule, type Target } from './rules/rule'
import { wildcardRule } from './rules/wildcard'
import { windowRule } from './rules/window'
import { countOf, itemsOf, uploadPattern } from './targets'

/**
 * Compares what an artifact would let its holder do with the caller's grants and answers the
 * permit to sign it, or why not. All or nothing (a `listed` reach leaves uncovered objects out).
 *
 * In order: what `admit` refuses (no grant on the origin, what it cannot serve, unsafe keys);
 * `not-covered` listing each key or pattern no grant covers for the action with every limit
 * enforced by the signature; `invalid` naming each field only a grant covering the target limits
 * (content type, length, overwrite, response type, batch size, RSA signatures, `expiresIn`,
 * `signingWindow`). Each target must be allowed by one grant on every field.
 *
 * @example
 * const answer = authorize(config, principal, { kind: 'urls', action: 'read', origin: 'photos',
 *   items: [{ key: 'a.jpg' }], itemPath: (i) => `keys.${i}` })
 * if (!isRefusal(answer)) await batchSigner(answer, { method: 'GET', now }).sign()
 */
export function authorize(config: Config, principal: Principal, reach: Reach): Permit | Refusal {
  const admitted = admit(config, principal, reach)
  if ('refused' in admitted) return admitted
  const { origin, action, grants, targets, partial } = admitted

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
  const { coveringOf, sweep } = coverage(grants, targets, passes, !overrides)

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
  // What a URL costs is the origin's to say (canned CloudFront URLs: one RSA signature each); a
  // listing signs one per entry it returns. A link costs nothing to issue: its one signature is
  // made each time it is followed.
  const cost = origin.urls.rsaSignatures
  const rsa = cost > 0 ? Math.floor(config.maxRsaSignatures / cost) : Infinity
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
  // Up to a grant's own limit: the most one grant allowing the upload allows (none: the store's).
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
