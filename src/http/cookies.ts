// Cookies read and written by hand (not hono/cookie, to keep the bundle small): the credential
// cookies a request may carry (Cloudflare Access's, a configured JWT cookie) and the CloudFront
// signed cookies `POST /v1/cookies` sets. Both follow RFC 6265 as browsers send and take them.

/** A cookie name (an RFC 9110 token) as a request may carry it. */
const NAME = /^[!#-'*+.0-9A-Z^-z|~-]+$/
/** A cookie value's characters once its quotes are gone (RFC 6265 §4.1.1, and spaces). */
const VALUE = /^[ !#-:<-[\]-~]*$/

/**
 * The value of the first cookie named `name` in a `Cookie` header, percent-decoded where that is
 * well-formed; undefined when there is none with a valid value.
 *
 * @example
 * readCookie('a=1; CF_Authorization=eyJ...', 'CF_Authorization') // 'eyJ...'
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined || !header.includes(name)) return undefined
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=')
    if (equals === -1 || pair.slice(0, equals).trim() !== name) continue
    let value = pair.slice(equals + 1).trim()
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"'))
      value = value.slice(1, -1)
    if (!VALUE.test(value)) continue
    try {
      return decodeURIComponent(value)
    } catch {
      return value
    }
  }
  return undefined
}

export interface CookieOptions {
  /** Seconds. */
  maxAge: number
  domain?: string | undefined
  path?: string | undefined
  secure: boolean
  httpOnly: boolean
  sameSite: 'Strict' | 'Lax' | 'None'
}

/**
 * A `Set-Cookie` header's value: the value percent-encoded, then its attributes. The domain and
 * path come from a configuration that admits neither `;` nor a line break (the CloudFront
 * origin's settings); they are checked again here, as a header must never be split.
 *
 * @example
 * setCookieText('CloudFront-Policy', 'eyJ...', { maxAge: 300, path: '/', secure: true, httpOnly: true, sameSite: 'Lax' })
 * // 'CloudFront-Policy=eyJ...; Max-Age=300; Path=/; HttpOnly; Secure; SameSite=Lax'
 */
export function setCookieText(name: string, value: string, options: CookieOptions): string {
  if (!NAME.test(name)) throw new Error(`not a cookie name: ${name}`)
  for (const attribute of [options.domain, options.path]) {
    if (attribute !== undefined && /[;\r\n]/.test(attribute))
      throw new Error('bad cookie attribute')
  }
  let text = `${name}=${encodeURIComponent(value)}; Max-Age=${Math.trunc(options.maxAge)}`
  if (options.domain) text += `; Domain=${options.domain}`
  if (options.path) text += `; Path=${options.path}`
  if (options.httpOnly) text += '; HttpOnly'
  if (options.secure) text += '; Secure'
  return `${text}; SameSite=${options.sameSite}`
}
