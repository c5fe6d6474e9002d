// A grant field's rule, and what every rule shares: the target it judges and the denial it
// answers when no grant allows it. One rule per grant field, one file each (./*.ts).

import type { Grant } from '../../../config'
import type { FieldError } from '../../../errors'
import type { ObjectItem } from '../../../origins/types'
import type { Items } from '../reach'

/** One target of an artifact: an exact key (with its overrides) or a key pattern. */
export interface Target {
  readonly key: string
  /** A pattern reaches every key starting with `key`. */
  readonly pattern: boolean
  readonly path: string
  readonly item?: ObjectItem | undefined
  readonly overridePath?: string | undefined
  /** A key the caller did not send (an uploadKey chose it): no refusal names it. */
  readonly chosen?: boolean | undefined
}

/**
 * An item of a batch as a target. Its field paths are made only when a refusal names them: a
 * 10,000-key batch that passes builds none.
 */
export class ItemTarget implements Target {
  readonly pattern = false
  constructor(
    readonly item: ObjectItem,
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
export interface Denial {
  kind: 'not-covered' | 'invalid'
  error: FieldError
  /** For artifact-wide fields (batch, lifetime, window): the most any grant here allowed. */
  bound?: number | undefined
}

/**
 * A grant field's rule: does this grant alone allow the target, and if no grant of those that
 * reached this rule does, why not (from those grants).
 */
export interface Rule {
  admits(grant: Grant, target: Target): boolean
  refuse(grants: readonly Grant[], target: Target): Denial
}

export const most = (grants: readonly Grant[], pick: (grant: Grant) => number) =>
  grants.reduce((max, grant) => Math.max(max, pick(grant)), 0)

/** Refused: a grant covers the target, but limits what this artifact does not sign. */
export function unsignedLimit(target: Target, limit: string, instead: string): Denial {
  return {
    kind: 'not-covered',
    error: {
      path: target.path,
      message: `a grant to write covers it, but limits ${limit}, which this ${instead}`,
    },
  }
}

/**
 * The grants among `grants` that pass every rule for `target`, or the denial of the first rule no
 * grant passes (explained from the grants that reached it).
 */
export function judge(
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
