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
