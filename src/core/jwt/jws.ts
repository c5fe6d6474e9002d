// Compact JWS verification (RFC 7515 §5.2), for JWTs: the steps and their order are jose's
// (lib/jws_verify.js), so a token is refused for the same reason. Every segment is canonical
// base64url without padding (../bytes.ts), where jose also takes padding, whitespace and
// non-zero trailing bits.
//
// Pure apart from Web Crypto: keys come from the caller's resolver.

import { base64UrlDecode, isAscii } from '../bytes'
import { checkKey, JWS_ALGORITHMS } from './algorithms'
import { JwtError } from './errors'
import type { JwsHeader, KeyResolver } from './types'

const encoder = new TextEncoder()
// Fatal, so bytes that are not UTF-8 are refused, not replaced; a leading BOM is dropped, as jose's.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

const malformed = (message: string) => new JwtError('malformed', message)

function decodeSegment(segment: string, name: string): Uint8Array {
  const bytes = base64UrlDecode(segment)
  if (bytes === undefined) throw malformed(`the ${name} is not base64url`)
  return bytes
}

/** A JSON object from UTF-8 `bytes`, or undefined. */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  let value: unknown
  try {
    value = JSON.parse(decoder.decode(bytes))
  } catch {
    return undefined
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** The JWS Protected Header a compact JWS's first segment encodes. */
export function parseProtectedHeader(segment: string): Readonly<Record<string, unknown>> {
  const header = parseJsonObject(decodeSegment(segment, 'protected header'))
  if (header === undefined) throw malformed('the protected header is not a JSON object')
  return header
}

/**
 * Whether the payload is base64url-encoded: true unless `crit` lists `b64` (RFC 7797 §3) and
 * `b64` is false. `b64` is the only extension understood; any other in `crit` is refused
 * (RFC 7515 §4.1.11), and `b64` outside `crit` is a parameter like any unknown one, ignored.
 */
export function payloadIsEncoded(header: Readonly<Record<string, unknown>>): boolean {
  const { crit } = header
  if (crit === undefined) return true
  if (
    !Array.isArray(crit) ||
    crit.length === 0 ||
    crit.some((name) => typeof name !== 'string' || name === '')
  ) {
    throw malformed('"crit" must be a list of parameter names')
  }
  for (const name of crit as string[]) {
    if (name !== 'b64') throw new JwtError('unsupported', 'an extension in "crit" is not supported')
    if (!Object.hasOwn(header, name)) throw malformed('an extension in "crit" is missing')
  }
  if (typeof header.b64 !== 'boolean') throw malformed('"b64" must be true or false')
  return header.b64
}

/** What a verified compact JWS says. */
export interface VerifiedJws {
  readonly header: JwsHeader
  readonly payload: Uint8Array
}

/**
 * Verifies a compact JWS whose payload is a JWT: its header, its `alg` (one of `algorithms`), its
 * key (from `resolveKey`, checked against `alg`) and its signature. Throws a `JwtError`, or what
 * `resolveKey` throws.
 *
 * @example
 * const { header, payload } = await verifyCompactJws(token, ['ES256'], createLocalJwkSet(jwks))
 */
export async function verifyCompactJws(
  token: string,
  algorithms: readonly string[],
  resolveKey: KeyResolver,
): Promise<VerifiedJws> {
  const segments = token.split('.')
  if (segments.length !== 3) throw malformed('a compact JWS has three segments')
  const [encodedHeader, encodedPayload, encodedSignature] = segments as [string, string, string]
  const header = parseProtectedHeader(encodedHeader)
  const encoded = payloadIsEncoded(header)
  const { alg } = header
  if (typeof alg !== 'string' || alg === '') throw malformed('"alg" is missing')
  const algorithm = algorithms.includes(alg) ? JWS_ALGORITHMS.get(alg) : undefined
  if (algorithm === undefined) throw new JwtError('alg_not_allowed', '"alg" is not accepted')
  // The signing input is the segments as sent, in ASCII (RFC 7515 §5.1).
  const ascii = isAscii(encodedPayload)
  if (!encoded && !ascii) throw malformed('the payload is not ASCII')
  const jwsHeader = header as JwsHeader
  const key = await resolveKey(jwsHeader)
  if (!ascii) throw malformed('the payload is not ASCII')
  const signature = decodeSegment(encodedSignature, 'signature')
  checkKey(algorithm, key)
  let verified = false
  try {
    verified = await crypto.subtle.verify(
      algorithm.verify,
      key,
      signature,
      encoder.encode(`${encodedHeader}.${encodedPayload}`),
    )
  } catch {
    // Web Crypto throws for some signatures of the wrong shape: they do not verify either.
  }
  if (!verified) throw new JwtError('signature_invalid', 'the signature does not verify')
  // A JWT's payload is base64url, whatever `b64` says (RFC 7519 §7.2).
  if (!encoded) throw malformed('a JWT must not use an unencoded payload')
  return { header: jwsHeader, payload: decodeSegment(encodedPayload, 'payload') }
}
