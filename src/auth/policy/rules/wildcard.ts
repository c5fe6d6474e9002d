// The rule of a grant's `wildcard`: a pattern read reaches keys nobody listed.

import type { Rule } from './rule'

/** `wildcard`: a pattern read reaches keys nobody listed, so only grants that say so sign one. */
export const wildcardRule: Rule = {
  admits: (grant) => grant.wildcard,
  refuse: (_, target) => ({
    kind: 'not-covered',
    error: { path: target.path, message: 'no wildcard grant covers this prefix' },
  }),
}
