// Media types: parsed strictly, formatted canonically, judged by allowlist.
// https://www.rfc-editor.org/rfc/rfc9110#section-8.3.1
//
//   media-type = type "/" subtype *( OWS ";" OWS [ parameter ] )
//   parameter  = parameter-name "=" ( token / quoted-string )
//
// Nothing else parses: no comma anywhere (browsers split a Content-Type on commas and take the last
// type, https://fetch.spec.whatwg.org/#concept-header-extract-mime-type, so `text/plain;,text/html`
// renders as HTML), no second type, no `*` in an exact type, no character outside printable ASCII.
// What is signed, compared and stored is the canonical form `format` gives, never the input text.
// jshttp's content-type admits commas inside quoted strings and whatwg-mimetype repairs what it
// cannot parse (`text/plain;,text/html` becomes `text/plain`), so neither is strict enough here.
//
// Pure: no I/O, no clock.

/** The longest media type accepted, in characters. */
export const MAX_MEDIA_TYPE_CHARS = 256

/** A media type in canonical form: lower-case type, subtype and parameter names. */
export interface MediaType {
  /** `type/subtype`, lower case: what allowlists judge. */
  readonly essence: string
  readonly type: string
  readonly subtype: string
  /** Parameters in the order given; names lower case, `charset` values lower case. */
  readonly parameters: readonly (readonly [name: string, value: string])[]
}

// RFC 9110 tchar, without "*" (a wildcard, never a type): ! # $ % & ' + - . ^ _ ` | ~ DIGIT ALPHA.
const TOKEN = /^[!#$%&'+\-.^_`|~0-9A-Za-z]+$/
// One parameter after its ";": a token name, "=", a token or a quoted string (no comma, no
// backslash escapes of anything but printable ASCII, no control character).
const PARAMETER =
  /^([!#$%&'+\-.^_`|~0-9A-Za-z]+)=(?:([!#$%&'+\-.^_`|~0-9A-Za-z]+)|"((?:[\x20\x21\x23-\x2b\x2d-\x5b\x5d-\x7e]|\\[\x20-\x2b\x2d-\x7e])*)")$/
const OWS = /^[ \t]*|[ \t]*$/g

/**
 * The media type `text` names, or undefined when it is not exactly one well-formed media type.
 *
 * @example
 * parseMediaType('Text/Plain; Charset="UTF-8"')?.essence // 'text/plain'
 * parseMediaType('text/plain;,text/html') // undefined
 */
export function parseMediaType(text: string): MediaType | undefined {
  if (text.length === 0 || text.length > MAX_MEDIA_TYPE_CHARS) return undefined
  const [head, ...rest] = text.split(';')
  const slash = head!.indexOf('/')
  // No whitespace around the type: RFC 9110 allows OWS only around ";".
  const type = head!.slice(0, slash)
  const subtype = head!.slice(slash + 1).replace(/[ \t]+$/, '')
  if (slash < 0 || !TOKEN.test(type) || !TOKEN.test(subtype)) return undefined
  const parameters: [string, string][] = []
  for (const raw of rest) {
    const part = raw.replace(OWS, '')
    if (part === '') continue
    const match = PARAMETER.exec(part)
    if (match === null) return undefined
    const name = match[1]!.toLowerCase()
    if (parameters.some(([seen]) => seen === name)) return undefined
    const value = match[2] ?? match[3]!.replace(/\\(.)/g, '$1')
    parameters.push([name, name === 'charset' ? value.toLowerCase() : value])
  }
  const essence = `${type}/${subtype}`.toLowerCase()
  const [lowerType, lowerSubtype] = essence.split('/') as [string, string]
  return { essence, type: lowerType, subtype: lowerSubtype, parameters }
}

// The grammar above as regular-expression source, for documents (OpenAPI's `pattern`). A pattern
// cannot say that parameter names differ (ignoring case), so it allows one parameter: every text
// it matches parses, and a type with several distinct parameters parses though it does not match.
const TOKEN_SOURCE = "[!#$%&'+\\-.^_`|~0-9A-Za-z]+"
// Quoted-string characters as PARAMETER has them, less ";", on which the parser splits first.
const QUOTED_SOURCE =
  '"(?:[\\x20\\x21\\x23-\\x2b\\x2d-\\x3a\\x3c-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x2b\\x2d-\\x3a\\x3c-\\x7e])*"'
const EMPTY_PARAMETERS = '(?:;[ \\t]*)*'

/**
 * A pattern for media types whose essence `essence` (regular-expression source) matches, with at
 * most one parameter, in the form `parseMediaType` takes.
 *
 * @example
 * new RegExp(mediaTypePattern()).test('text/plain; charset=utf-8') // true
 */
export function mediaTypePattern(essence = `${TOKEN_SOURCE}/${TOKEN_SOURCE}`): string {
  const parameter = `;[ \\t]*${TOKEN_SOURCE}=(?:${TOKEN_SOURCE}|${QUOTED_SOURCE})[ \\t]*`
  return `^(?:${essence})[ \\t]*${EMPTY_PARAMETERS}(?:${parameter}${EMPTY_PARAMETERS})?$`
}

/**
 * The canonical text of a media type: `type/subtype; name=value` with a quoted string only where a
 * value is not a token.
 *
 * `IMAGE/PNG ;x="a b"` is `image/png; x="a b"`.
 */
function formatMediaType(media: MediaType): string {
  let text = media.essence
  for (const [name, value] of media.parameters) {
    text += `; ${name}=${TOKEN.test(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`}`
  }
  return text
}

/** The canonical form of `text`, or undefined when it is not one well-formed media type. */
export function canonicalMediaType(text: string): string | undefined {
  const media = parseMediaType(text)
  return media === undefined ? undefined : formatMediaType(media)
}

/**
 * The essence of a media type already in canonical form (what `canonicalMediaType` returns): its
 * text up to the first ";". Only canonical text may be read this way.
 */
export function essenceOf(canonical: string): string {
  const semicolon = canonical.indexOf(';')
  return semicolon < 0 ? canonical : canonical.slice(0, semicolon)
}

/**
 * The passive types a family pattern such as `image/*` admits: types a browser shows or plays but
 * never runs as a page or a script on the origin that serves them. The one list. Everything else
 * (SVG, HTML, XML, JavaScript, CSS, and types nobody listed) must be named exactly by a grant.
 */
export const PASSIVE_TYPES = {
  image: ['apng', 'avif', 'bmp', 'gif', 'heic', 'heif', 'jpeg', 'jxl', 'png', 'tiff', 'webp'],
  audio: ['aac', 'flac', 'mp4', 'mpeg', 'ogg', 'opus', 'wav', 'webm'],
  video: ['mp4', 'mpeg', 'ogg', 'quicktime', 'webm', 'x-matroska'],
  text: ['csv', 'markdown', 'plain', 'tab-separated-values', 'vtt'],
  font: ['otf', 'ttf', 'woff', 'woff2'],
  application: ['gzip', 'json', 'octet-stream', 'pdf', 'x-tar', 'zip'],
} as const satisfies Record<string, readonly string[]>

/** The families a grant may name as `<family>/*`. */
export const MEDIA_FAMILIES = Object.keys(PASSIVE_TYPES) as readonly (keyof typeof PASSIVE_TYPES)[]

const PASSIVE: ReadonlySet<string> = new Set(
  Object.entries(PASSIVE_TYPES).flatMap(([family, subtypes]) =>
    subtypes.map((subtype) => `${family}/${subtype}`),
  ),
)

/** `mediaTypePattern` for the passive types, in lower case (as canonical types are). */
export function passiveTypePattern(): string {
  const families = Object.entries(PASSIVE_TYPES).map(
    ([family, subtypes]) => `${family}/(?:${subtypes.join('|').replaceAll('.', '\\.')})`,
  )
  return mediaTypePattern(families.join('|'))
}

/**
 * A pattern for what a grant names in `contentTypes` and `responseContentTypes`: one exact type in
 * lower case without parameters, or a family whose passive types are known (`image/*`).
 */
export function grantTypePattern(): string {
  const lower = TOKEN_SOURCE.replace('A-Za-z', 'a-z')
  return `^(?:(?:${MEDIA_FAMILIES.join('|')})/\\*|${lower}/${lower})$`
}

/** True for a type on the passive list: what a family pattern, or no list at all, admits. */
export function isPassive(essence: string): boolean {
  return PASSIVE.has(essence)
}

/**
 * Every type a grant's pattern admits: the type itself, or a family's passive types. What
 * `patternAdmits` says yes to, listed (for a caller to know before it picks a file).
 *
 * @example
 * typesAdmittedBy('text/*') // ['text/csv', 'text/markdown', 'text/plain', …]
 * typesAdmittedBy('image/svg+xml') // ['image/svg+xml']
 */
export function typesAdmittedBy(pattern: string): readonly string[] {
  if (!pattern.endsWith('/*')) return [pattern]
  const family = pattern.slice(0, -2)
  const subtypes: readonly string[] = Object.hasOwn(PASSIVE_TYPES, family)
    ? PASSIVE_TYPES[family as keyof typeof PASSIVE_TYPES]
    : []
  return subtypes.map((subtype) => `${family}/${subtype}`)
}

/**
 * True when a grant's pattern (`image/png` exactly, or a family `image/*`) admits `essence`: an
 * exact pattern admits that type, a family only the passive types of that family.
 *
 * @example
 * patternAdmits('image/*', 'image/png') // true
 * patternAdmits('image/*', 'image/svg+xml') // false: name it exactly
 */
export function patternAdmits(pattern: string, essence: string): boolean {
  if (!pattern.endsWith('/*')) return pattern === essence
  return isPassive(essence) && essence.startsWith(pattern.slice(0, -1))
}
