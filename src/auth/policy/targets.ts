// The targets of a reach (each exact key, each pattern), the entries it counts against a batch
// limit, and the objects a permit signs.

import type { ObjectItem } from '../../origins/types'
import type { Count, Reach } from './reach'
import { ItemTarget, type Target } from './rules/rule'

/** The targets of a reach: each exact key, or each pattern. */
export function targetsOf(reach: Reach): Target[] {
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
export function countOf(reach: Reach): Count | undefined {
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

/** The objects a permit signs: the reach's items (a listing's readable ones), or an upload's key. */
export function itemsOf(reach: Reach, kept: readonly boolean[]): readonly ObjectItem[] {
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

export function uploadPattern(reach: Reach): readonly string[] {
  return reach.kind === 'upload' && 'keyPrefix' in reach.target ? [reach.target.keyPrefix] : []
}
