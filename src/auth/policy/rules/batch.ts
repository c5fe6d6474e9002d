// The rule of a grant's `maxBatch`.

import type { Count } from '../reach'
import { most, type Rule } from './rule'

/** `maxBatch`: the whole artifact's entries, against each grant alone. */
export function batchRule(count: Count): Rule {
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
