// Content-Disposition for a download: a file name any browser shows, and the exact Unicode name for
// the ones that read RFC 8187. https://www.rfc-editor.org/rfc/rfc6266#section-4.3
//
// Pure: the same header for the same name, so a signing window keeps the URL byte-identical.

const ENCODER = new TextEncoder()
// RFC 8187 attr-char: the bytes that stand for themselves in an ext-value.
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/

/** `value` as an RFC 8187 ext-value (after `UTF-8''`): UTF-8 bytes, percent-encoded but attr-chars. */
function extValue(value: string): string {
  let out = ''
  for (const byte of ENCODER.encode(value)) {
    const ch = String.fromCharCode(byte)
    out +=
      byte < 0x80 && ATTR_CHAR.test(ch)
        ? ch
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/**
 * The `filename="…"` fallback for clients that do not read `filename*`: printable ASCII, with
 * anything else, and the quote and backslash a quoted-string would have to escape, as `_`.
 */
function asciiFallback(filename: string): string {
  let out = ''
  for (const ch of filename) out += /^[\x20-\x7e]$/.test(ch) && ch !== '"' && ch !== '\\' ? ch : '_'
  return out
}

export type DispositionType = 'attachment' | 'inline'

/**
 * The Content-Disposition header for `filename` (RFC 6266 with RFC 8187 `filename*`).
 *
 * @example
 * contentDisposition('attachment', 'résumé "final".pdf')
 * // 'attachment; filename="r_sum_ _final_.pdf"; filename*=UTF-8\'\'r%C3%A9sum%C3%A9%20%22final%22.pdf'
 */
export function contentDisposition(type: DispositionType, filename: string): string {
  return `${type}; filename="${asciiFallback(filename)}"; filename*=UTF-8''${extValue(filename)}`
}

/** The last segment of a key: the name a download of it gets by default ('' for a folder key). */
export function lastSegment(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1)
}
