// File names from browsers and requests, made fit for a key's last segment or a download's name:
// one sanitizer for both, so a name that reads one way never means another.
//
// Pure.

// What a file name may not bring into a key or a download: path separators, control and invisible format
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
