// Conditional requests (RFC 9110 §13) for the objects waybill serves itself: what If-Match,
// If-Unmodified-Since, If-None-Match, If-Modified-Since and If-Range ask of an object with this
// ETag and modification time, evaluated in the order §13.2.2 sets. Pure.

/** What the object is, as its validators say. */
export interface Validators {
  /** The strong entity tag, quoted: `"5d41402abc4b2a76b9719d911017c592"`. */
  readonly etag: string
  /** When it was stored, epoch milliseconds (compared at HTTP dates' one-second precision). */
  readonly modifiedMs: number
}

/** Serve it, answer 304 Not Modified, or 412 Precondition Failed. */
export type Verdict = 'proceed' | 'not-modified' | 'failed'

/** The preconditions a request carries, as header values (null when absent). */
export interface Preconditions {
  readonly ifMatch: string | null
  readonly ifNoneMatch: string | null
  readonly ifModifiedSince: string | null
  readonly ifUnmodifiedSince: string | null
}

/** The entity tags of an If-Match or If-None-Match list, or `*`; undefined when malformed. */
function tagsOf(header: string): { any: true } | { tags: string[] } | undefined {
  const text = header.trim()
  if (text === '*') return { any: true }
  const tags: string[] = []
  for (const part of text.split(',')) {
    const tag = part.trim()
    if (tag === '') continue
    if (!/^(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/.test(tag)) return undefined
    tags.push(tag)
  }
  return tags.length === 0 ? undefined : { tags }
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag)
const modifiedS = (validators: Validators) => Math.floor(validators.modifiedMs / 1000)

/** An HTTP date in seconds, or undefined when it is not one. */
function httpDateS(text: string): number | undefined {
  // IMF-fixdate and the obsolete forms Date.parse reads; anything else is ignored (§13.1.3).
  if (!/^[A-Za-z]{3},? /.test(text.trim())) return undefined
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000)
}

/**
 * What the preconditions make of a GET or HEAD (`safe`) or a write (not `safe`) of an object with
 * `validators`. If-Match compares strongly, If-None-Match weakly; an If-None-Match that matches
 * is 304 for a read and 412 for a write; the date conditions count only without their tag
 * counterpart, and only when they parse.
 *
 * @example
 * evaluate({ ifNoneMatch: '"abc"', ifMatch: null, ifModifiedSince: null, ifUnmodifiedSince: null },
 *   { etag: '"abc"', modifiedMs: 0 }, true) // 'not-modified'
 */
export function evaluate(
  conditions: Preconditions,
  validators: Validators | undefined,
  safe: boolean,
): Verdict {
  const { ifMatch, ifNoneMatch, ifModifiedSince, ifUnmodifiedSince } = conditions
  if (ifMatch !== null) {
    const list = tagsOf(ifMatch)
    const matches =
      validators !== undefined &&
      list !== undefined &&
      ('any' in list || list.tags.some((tag) => !tag.startsWith('W/') && tag === validators.etag))
    if (!matches) return 'failed'
  } else if (ifUnmodifiedSince !== null && validators !== undefined) {
    const since = httpDateS(ifUnmodifiedSince)
    if (since !== undefined && modifiedS(validators) > since) return 'failed'
  }
  if (ifNoneMatch !== null) {
    const list = tagsOf(ifNoneMatch)
    const matches =
      validators !== undefined &&
      list !== undefined &&
      ('any' in list || list.tags.some((tag) => opaque(tag) === opaque(validators.etag)))
    if (matches) return safe ? 'not-modified' : 'failed'
  } else if (ifModifiedSince !== null && safe && validators !== undefined) {
    const since = httpDateS(ifModifiedSince)
    if (since !== undefined && modifiedS(validators) <= since) return 'not-modified'
  }
  return 'proceed'
}

/**
 * Whether a Range applies under If-Range: always without one; with one, only while it names the
 * object's strong ETag, or a date equal to its modification time (§13.1.5).
 */
export function rangeApplies(ifRange: string | null, validators: Validators): boolean {
  if (ifRange === null) return true
  const text = ifRange.trim()
  if (text.startsWith('"')) return text === validators.etag
  if (text.startsWith('W/')) return false
  const date = httpDateS(text)
  return date !== undefined && date === modifiedS(validators)
}

/** The preconditions of a request's headers. */
export function preconditionsOf(headers: Headers): Preconditions {
  return {
    ifMatch: headers.get('if-match'),
    ifNoneMatch: headers.get('if-none-match'),
    ifModifiedSince: headers.get('if-modified-since'),
    ifUnmodifiedSince: headers.get('if-unmodified-since'),
  }
}

/** True when the request carries any precondition. */
export function hasPreconditions(conditions: Preconditions): boolean {
  return (
    conditions.ifMatch !== null ||
    conditions.ifNoneMatch !== null ||
    conditions.ifModifiedSince !== null ||
    conditions.ifUnmodifiedSince !== null
  )
}
