// Just enough XML for S3's responses (ListObjectsV2, InitiateMultipartUpload, CompleteMultipartUpload,
// Error). Workers have no DOMParser; S3's documents are flat, machine-written and never nest an
// element inside one of the same name, so locating tags is exact for them.

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
}

/** Decodes the five predefined entities and numeric character references. */
export function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (match, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16))
    if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10))
    return ENTITIES[entity] ?? match
  })
}

/** Escapes text for an element's content. */
export function escapeXmlText(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => `&${Object.keys(ENTITIES).find((k) => ENTITIES[k] === c)};`,
  )
}

/** The raw inner XML of every `<tag>` element, in document order. */
export function elements(xml: string, tag: string): string[] {
  const out: string[] = []
  const open = new RegExp(`<${tag}(?:\\s[^>]*)?>`, 'g')
  const close = `</${tag}>`
  let match: RegExpExecArray | null
  while ((match = open.exec(xml)) !== null) {
    const start = match.index + match[0].length
    const end = xml.indexOf(close, start)
    if (end < 0) break
    out.push(xml.slice(start, end))
    open.lastIndex = end + close.length
  }
  return out
}

/** The decoded text of the first `<tag>` element, or undefined. */
export function text(xml: string, tag: string): string | undefined {
  const [inner] = elements(xml, tag)
  return inner === undefined ? undefined : decodeXmlText(inner)
}
