// The rule of a grant's `overwrite`.

import type { Content } from '../reach'
import { unsignedLimit, type Rule } from './rule'

/** `overwrite`: an artifact that may replace an existing object needs a grant that says so. */
export function overwriteRule(content: Content): Rule {
  const overwrite = content.overwrite
  return {
    admits: (grant) => overwrite === undefined || grant.overwrite,
    refuse(_, target) {
      if (overwrite === undefined || overwrite.unsigned === true) {
        return unsignedLimit(
          target,
          'it to new objects (no overwrite)',
          'URL does not refuse; use POST /v1/uploads, which signs If-None-Match',
        )
      }
      return {
        kind: 'invalid',
        error: {
          path: overwrite.path,
          message:
            overwrite.path === 'mode'
              ? 'cannot be "post" for this caller: a POST form cannot refuse to replace an existing object, and no grant here allows that (overwrite); use "put" or "multipart"'
              : 'cannot be true for this caller: no grant covering the key allows replacing an existing object (overwrite)',
        },
      }
    },
  }
}
