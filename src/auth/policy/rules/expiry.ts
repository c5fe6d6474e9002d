// The rule of a grant's `maxExpiresIn` (`maxLinkExpiresIn` for links).

import type { Grant } from '../../../config'
import { most, type Rule } from './rule'

/** `maxExpiresIn` (or `maxLinkExpiresIn` for links): the lifetime asked or defaulted. */
export function expiryRule(expiresIn: number, expiryOf: (grant: Grant) => number): Rule {
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
