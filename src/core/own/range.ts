// HTTP range requests (RFC 9110 §14) for the objects waybill serves itself: one byte range per
// request, as R2 serves them. A header in another unit, with several ranges, or malformed is
// ignored (the whole object, 200), as §14.2 allows; a well-formed range that starts past the end
// is unsatisfiable (416). Pure.

/** What a Range header asks for: from `offset` (to `last`, inclusive), or the last `suffix` bytes. */
export type ByteRange =
  { readonly offset: number; readonly last?: number | undefined } | { readonly suffix: number }

const SINGLE = /^bytes=(?:(\d{1,16})-(\d{0,16})|-(\d{1,16}))$/

/**
 * The one byte range a Range header asks for, or undefined when it asks for none this server
 * honours (absent, another unit, several ranges, malformed).
 *
 * @example
 * parseRange('bytes=0-9') // { offset: 0, last: 9 }
 * parseRange('bytes=-5') // { suffix: 5 }
 */
export function parseRange(header: string | null): ByteRange | undefined {
  if (header === null) return undefined
  const match = SINGLE.exec(header.trim())
  if (match === null) return undefined
  const [, first, last, suffix] = match
  if (suffix !== undefined) return { suffix: Number(suffix) }
  const offset = Number(first)
  if (last === '' || last === undefined) return { offset }
  const end = Number(last)
  // A last position before the first makes the header invalid: ignored (§14.1.1).
  return end < offset ? undefined : { offset, last: end }
}

/** The bytes a range selects of an object of `size` bytes, or undefined when it selects none. */
export function resolveRange(
  range: ByteRange,
  size: number,
): { offset: number; length: number } | undefined {
  if ('suffix' in range) {
    if (range.suffix === 0 || size === 0) return undefined
    const length = Math.min(range.suffix, size)
    return { offset: size - length, length }
  }
  if (range.offset >= size) return undefined
  const last = Math.min(range.last ?? size - 1, size - 1)
  return { offset: range.offset, length: last - range.offset + 1 }
}

/** The Content-Range of a 206 answer, or (`selected` undefined) of a 416. */
export function contentRange(
  selected: { offset: number; length: number } | undefined,
  size: number,
) {
  return selected === undefined
    ? `bytes */${size}`
    : `bytes ${selected.offset}-${selected.offset + selected.length - 1}/${size}`
}
