// Which grants cover each target, and per target the most a field gives among the grants that
// cover it and pass the rules: a 10,000-key batch is judged without judging 10,000 keys.

import type { Grant } from '../../config'
import { prefixCovers, prefixCoversAll, type ResolvedGrant } from './grants'
import type { Target } from './rules/rule'

/** Whether `prefix` covers `target`: a key on whole segments, or a whole pattern. */
export const covers = (prefix: string, target: Target) =>
  target.pattern ? prefixCoversAll(prefix, target.key) : prefixCovers(prefix, target.key)

/**
 * The coverage of `targets` by `grants`. `passes(okay, i, target)` says whether grant `i`, which
 * covers the target, allows it, given which grants passed the grant-only rules (`okay`).
 */
export function coverage(
  grants: readonly ResolvedGrant[],
  targets: readonly Target[],
  passes: (okay: readonly boolean[], i: number, target: Target) => boolean,
  /** Whether whether a grant allows a target depends on the grant alone once it covers it. */
  byGrantAlone: boolean,
) {
  const coveringOf = (target: Target) =>
    grants.filter(({ prefix }) => covers(prefix, target)).map(({ grant }) => grant)
  // Which grants cover each target, as a bit set: most batches' keys share one, so the sweeps
  // judge each distinct set once rather than each key.
  const byCover = byGrantAlone && grants.length <= 30
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
  return { coveringOf, sweep }
}
