// Keys that can mean another key once a client, proxy or CDN normalizes the URL: `a/../b` becomes
// `b`, `a//b` may become `a/b`, `a\b` may become `a/b`, `%2e%2e` may be decoded into `..`. A grant on
// a prefix would not contain them, so origins with the `safe` key policy (the default) refuse them.

const CONTROL = /[\x00-\x1f\x7f-\x9f]/
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i

// One pass for the common case: none of the problems below can be present if this does not match.
const ANY_PROBLEM = /[\x00-\x1f\x7f-\x9f\\]|^\/|\/\/|(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i

/** Why `key` is unsafe to sign under a prefix grant, or undefined when it is safe. */
export function unsafeKeyReason(key: string): string | undefined {
  if (!ANY_PROBLEM.test(key)) {
    return key.isWellFormed() ? undefined : 'must be valid Unicode (it contains a lone surrogate)'
  }
  if (CONTROL.test(key)) return 'must not contain control characters'
  if (key.includes('\\')) return 'must not contain a backslash (some clients turn it into "/")'
  if (!key.isWellFormed()) return 'must be valid Unicode (it contains a lone surrogate)'
  if (key.startsWith('/')) return 'must not start with "/"'
  const segments = key.split('/')
  // A single trailing slash (a "folder" marker object) is fine; an empty segment elsewhere is not.
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    if (segment === '' && i < segments.length - 1) return 'must not contain "//"'
    if (DOT_SEGMENT.test(segment))
      return 'must not contain "." or ".." segments (even percent-encoded)'
  }
  return undefined
}

// What a file name may not bring into a key: path separators, control and invisible format
// characters (a right-to-left override can make "gpj.exe" read as "exe.jpg"), and the characters
// file systems, shells and hand-built URLs trip on.
const FILENAME_UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}/\\"<>|*?:#%{}[\]^`]/gu
const UTF8 = new TextEncoder()

/**
 * A browser's file name made fit for the last segment of a key: the part after any path, Unicode
 * NFC, unsafe characters as `_`, runs of spaces as one, no leading dots (so never `.` or `..`),
 * at most `maxBytes` bytes of UTF-8 with the extension kept; `file` when nothing is left.
 *
 * @example
 * sanitizeFilename('C:\\Users\\me\\My "Report" #1.pdf') // 'My _Report_ _1.pdf'
 */
export function sanitizeFilename(name: string, maxBytes: number): string {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1)
  let clean = base
    .normalize('NFC')
    .replace(FILENAME_UNSAFE, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, (dots) => '_'.repeat(dots.length))
  if (UTF8.encode(clean).length > maxBytes) {
    const dot = clean.lastIndexOf('.')
    const ext = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : ''
    // Whole code points of the stem while they fit, so no lone surrogate is left behind.
    let room = maxBytes - UTF8.encode(ext).length
    let stem = ''
    for (const ch of clean.slice(0, clean.length - ext.length)) {
      room -= UTF8.encode(ch).length
      if (room < 0) break
      stem += ch
    }
    clean = stem.trimEnd() + ext
  }
  return clean === '' ? 'file' : clean
}
