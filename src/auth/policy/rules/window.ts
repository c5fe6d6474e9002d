// The rule of a grant's `signingWindow` against `maxExpiresIn`.

import { MAX_EXPIRES_S } from '../../../limits'
import type { Grant } from '../../../config'
import { most, type Rule } from './rule'

/**
 * A requested signing window: a URL lives up to expiresIn + window, within the grant's maximum. A
 * grant that allows SigV4's seven days limits nothing beyond them, which the signing time keeps
 * by shortening the window (src/core/window.ts), as it does an origin's.
 */
export function windowRule(window: number, expiresIn: number): Rule {
  const room = (grant: Grant) =>
    grant.maxExpiresIn >= MAX_EXPIRES_S ? Infinity : grant.maxExpiresIn - expiresIn
  return {
    admits: (grant) => window <= room(grant),
    refuse(grants) {
      const bound = most(grants, room)
      return {
        kind: 'invalid',
        bound,
        error: {
          path: 'signingWindow',
          message: `must be at most ${bound} for this caller with expiresIn ${expiresIn} (a URL lives up to expiresIn + signingWindow seconds)`,
        },
      }
    },
  }
}
