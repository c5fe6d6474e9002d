// The rule of a grant's `maxContentLength`.

import type { Content } from '../reach'
import { most, unsignedLimit, type Rule } from './rule'

/** `maxContentLength`: the signed length must fit the grant's; an unsigned length fits none. */
export function lengthRule(content: Content): Rule {
  const length = content.length
  const signed = length === undefined ? undefined : 'exact' in length ? length.exact : length.atMost
  return {
    admits: (grant) =>
      grant.maxContentLength === undefined ||
      signed === 'grant' ||
      (signed !== undefined && signed <= grant.maxContentLength),
    refuse(grants, target) {
      const limit = most(grants, (grant) => grant.maxContentLength ?? 0)
      if (content.lengthPath === undefined) {
        return unsignedLimit(
          target,
          `the size to ${limit} bytes`,
          'URL does not sign; use POST /v1/uploads',
        )
      }
      const message =
        signed === undefined
          ? `is required: this caller's uploads are limited to ${limit} bytes, and only a signed length enforces that`
          : `must be at most ${limit} bytes for this caller`
      return { kind: 'invalid', error: { path: content.lengthPath, message } }
    },
  }
}
