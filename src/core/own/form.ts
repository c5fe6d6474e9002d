// Browser upload forms (multipart/form-data, RFC 7578) as waybill reads them when it stores the
// file itself: the fields first, then one part named `file`, last, then the closing delimiter,
// exactly as browsers, undici and Uppy send a FormData. The fields are read whole (they are small);
// the file is not read here at all: its first byte's offset and the body's length give its size
// before a byte of it is stored, so a form outside its size range is refused up front. Anything
// else (a preamble, a part after the file, a field twice, a body that ends otherwise) is refused.
// Pure: bytes in, a parse out.

/** The boundary of a `multipart/form-data` Content-Type, or undefined. */
export function boundaryOf(contentType: string | null): string | undefined {
  if (contentType === null) return undefined
  const match =
    /^multipart\/form-data\s*;\s*boundary=(?:"([^"]{1,70})"|([!#$%&'*+\-.^_`|~0-9A-Za-z]{1,70}))\s*$/i.exec(
      contentType.trim(),
    )
  return match === null ? undefined : (match[1] ?? match[2])
}

/** What follows the file's last byte: CRLF, the closing delimiter, CRLF. */
export function formTrailer(boundary: string): Uint8Array {
  return encoder.encode(`\r\n--${boundary}--\r\n`)
}

export interface FormHead {
  /** Each field by name (UTF-8 text), in the order sent. */
  readonly fields: ReadonlyMap<string, string>
  /** The file part's `filename`, when it names one. */
  readonly filename: string | undefined
  /** The offset of the file's first byte in the body. */
  readonly fileStart: number
}

/** Not enough bytes yet, the head, or why the form is refused. */
export type FormHeadParse = { more: true } | { head: FormHead } | { fault: string }

const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })
const CRLF2 = encoder.encode('\r\n\r\n')

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!
  outer: for (let i = haystack.indexOf(first, from); i >= 0; i = haystack.indexOf(first, i + 1)) {
    if (i + needle.length > haystack.length) return -1
    for (let j = 1; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer
    return i
  }
  return -1
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array, at: number): boolean {
  if (at + prefix.length > bytes.length) return false
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false
  return true
}

/** A part's name and filename from its headers, or why not. */
function dispositionOf(headers: string): { name: string; filename?: string } | string {
  let disposition: string | undefined
  for (const line of headers.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon < 0) return 'has a header line without a colon'
    if (line.slice(0, colon).trim().toLowerCase() === 'content-disposition') {
      if (disposition !== undefined) return 'has two Content-Disposition headers'
      disposition = line.slice(colon + 1).trim()
    }
  }
  if (disposition === undefined) return 'has no Content-Disposition'
  const match = /^form-data\s*;\s*name="([^"\r\n]*)"(?:\s*;\s*filename="([^"\r\n]*)")?$/i.exec(
    disposition,
  )
  if (match === null) return 'has a Content-Disposition other than form-data; name="…"'
  return match[2] === undefined ? { name: match[1]! } : { name: match[1]!, filename: match[2] }
}

/**
 * The fields and the file's offset of a form body that starts with `bytes` (the whole head, or
 * `more` until it has arrived), for a form whose file part is named `file`.
 *
 * @example
 * parseFormHead(firstChunk, boundary) // { head: { fields: Map { 'key' => 'a.png', … }, fileStart: 312 } }
 */
export function parseFormHead(bytes: Uint8Array, boundary: string): FormHeadParse {
  const delimiter = encoder.encode(`--${boundary}`)
  const nextPart = encoder.encode(`\r\n--${boundary}`)
  if (bytes.length < delimiter.length + 2) return { more: true }
  if (!startsWith(bytes, delimiter, 0) || bytes[delimiter.length] !== 13) {
    return { fault: 'must start with its boundary (no preamble)' }
  }
  const fields = new Map<string, string>()
  let at = delimiter.length
  for (;;) {
    // At the end of a delimiter: CRLF starts a part, `--` closes the form.
    if (at + 2 > bytes.length) return { more: true }
    if (bytes[at] === 45 && bytes[at + 1] === 45) return { fault: 'has no part named "file"' }
    if (bytes[at] !== 13 || bytes[at + 1] !== 10) return { fault: 'has a malformed boundary line' }
    const headersStart = at + 2
    const headersEnd = indexOf(bytes, CRLF2, headersStart)
    if (headersEnd < 0) return { more: true }
    let headers: string
    try {
      headers = decoder.decode(bytes.subarray(headersStart, headersEnd))
    } catch {
      return { fault: 'has part headers that are not UTF-8' }
    }
    const part = dispositionOf(headers)
    if (typeof part === 'string') return { fault: `has a part that ${part}` }
    const valueStart = headersEnd + 4
    if (part.name === 'file') {
      return { head: { fields, filename: part.filename, fileStart: valueStart } }
    }
    if (part.filename !== undefined) {
      return { fault: `has a file in the field "${part.name}": the file's part is named "file"` }
    }
    const valueEnd = indexOf(bytes, nextPart, valueStart)
    if (valueEnd < 0) return { more: true }
    if (fields.has(part.name)) return { fault: `has the field "${part.name}" twice` }
    try {
      fields.set(part.name, decoder.decode(bytes.subarray(valueStart, valueEnd)))
    } catch {
      return { fault: `has a field "${part.name}" that is not UTF-8` }
    }
    at = valueEnd + nextPart.length
  }
}
