// The rule of a grant's `contentTypes`.

import { essenceOf, MEDIA_FAMILIES, patternAdmits } from '../../../core/media-type'
import type { Content } from '../reach'
import { unsignedLimit, type Rule } from './rule'

/** `contentTypes`: the signed type must be one the grant admits; an unsigned type admits none. */
export function contentTypeRule(content: Content): Rule {
  const type = content.type
  const essence = type === undefined ? undefined : essenceOf(type.value)
  return {
    admits: (grant) =>
      grant.contentTypes === undefined ||
      (essence !== undefined && grant.contentTypes.some((p) => patternAdmits(p, essence))),
    refuse(grants, target) {
      if (type === undefined || essence === undefined) {
        return unsignedLimit(target, 'the content type', 'URL does not sign; use POST /v1/uploads')
      }
      const allowed = [...new Set(grants.flatMap((grant) => grant.contentTypes ?? []))]
      const family = `${essence.slice(0, essence.indexOf('/'))}/*`
      const message = allowed.includes(family)
        ? `${essence} is not a type ${family} admits (only ${family} types that never run as script, such as ${familyExample(family)}); a grant must name ${essence} exactly`
        : `must be one of ${allowed.join(', ')} for this caller`
      return { kind: 'invalid', error: { path: type.path, message } }
    },
  }
}

function familyExample(family: string): string {
  const name = family.slice(0, -2)
  return MEDIA_FAMILIES.includes(name as never) ? `${name}/${passiveExample(name)}` : family
}

function passiveExample(family: string): string {
  return (
    { image: 'png', audio: 'mpeg', video: 'mp4', text: 'plain', font: 'woff2' }[family] ??
    'octet-stream'
  )
}
