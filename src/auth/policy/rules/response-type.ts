// The rule of a grant's `responseContentTypes`.

import { essenceOf, isPassive, patternAdmits } from '../../../core/media-type'
import type { Rule } from './rule'

/**
 * `responseContentTypes`: a type the grant names (exactly, or a passive type of a family it
 * names); with no list, any passive type. Anything else could make the bucket serve the object as
 * a page that runs script on its origin.
 */
export const overrideRule: Rule = {
  admits(grant, target) {
    const override = target.item?.response?.contentType
    if (override === undefined) return true
    const essence = essenceOf(override)
    const listed = grant.responseContentTypes
    return listed === undefined ? isPassive(essence) : listed.some((p) => patternAdmits(p, essence))
  },
  refuse(_, target) {
    const essence = essenceOf(target.item!.response!.contentType!)
    return {
      kind: 'invalid',
      error: {
        path: target.overridePath ?? `${target.path}.response.contentType`,
        message: isPassive(essence)
          ? 'is not a type this caller may set'
          : `must not be ${essence} for this caller: only passive types (images, audio, video, plain text, PDF, …) unless the grant's responseContentTypes names it exactly, since a browser could run the object as a page on the bucket's origin`,
      },
    }
  },
}
