// Waybill's own signed URLs: for an origin whose bytes the Worker serves itself (R2 through its
// binding), a URL on the Worker's own host that waybill signs now and verifies when it is used:
//
//   <base>/o/<origin>/<key>?x=<expires>&k=<secret id>&i=<issuer>[&<term>=<value>…]&s=<signature>
//
// - x: when it expires, epoch seconds; k: the token secret that signed it (rotation by id, as
//   every sealed token: ../token.ts); i: who issued it, concealed (below); the terms: what the
//   URL pins (response overrides, an upload's type, length, checksum, metadata, overwrite, part).
// - s: 32 hex characters, the first 16 bytes of HMAC-SHA256 under the secret over
//   `waybill-o-v1\n<method>\n<origin>\n<x>\n<k>\n<i>\n` then the hex SHA-256 of
//   `<key path>\n<terms query>`: the SigV4 hasher's hash-then-MAC (../sigv4/sha256.ts), whose
//   per-batch prefix is compressed once and whose URLs are hashed four at a time, so a URL costs
//   less than an S3 one (a shorter message, no key derivation).
// - The issuer (an API key's id) travels concealed, so a URL shows neither who made it nor which
//   key: `i` is a 12-character synthetic IV (an HMAC of issuer, origin and expiry, so a batch's URLs
//   within one signing window stay the same) followed by the issuer XORed with a keystream under
//   that IV. The signature covers `i` as sent; the verifier reveals the issuer only after it.
//
// Verification parses the URL strictly into one canonical form (each known parameter once, no
// other) and signs that again. Pure: no I/O, the clock an input.

import { base64UrlEncode, constantTimeEqualText } from '../bytes'
import { BoundedCache } from '../cache'
import { CoreError } from '../errors'
import { checkObjectKey } from '../keys'
import type { ResponseOverrides } from '../s3/presign'
import { encodeKeyPath, encodeRfc3986 } from '../sigv4/encoding'
import { HmacSha256, messageAscii, messageNext, messageStart, SIGN_LANES } from '../sigv4/sha256'
import { conceal, reveal, type TokenSecret, type TokenFault } from '../token'

/** The path every own URL starts with, before its origin's name. */
const OWN_PATH = '/o/'

/** What a URL lets its holder do: read (GET also answers HEAD), write, delete. */
export type OwnMethod = 'GET' | 'PUT' | 'DELETE'

/** What a URL pins besides its object: each term is signed, and the server enforces it. */
export interface OwnTerms {
  readonly response?: ResponseOverrides | undefined
  /** An upload's exact content type. */
  readonly contentType?: string | undefined
  /** An upload's (or a part's) exact length in bytes. */
  readonly length?: number | undefined
  /** An upload's (or a part's) SHA-256, base64. */
  readonly checksumSha256?: string | undefined
  /** An upload's metadata (its tag among it), stored with it exactly. */
  readonly metadata?: Readonly<Record<string, string>> | undefined
  /** Whether an upload may replace an object at its key. */
  readonly overwrite?: boolean | undefined
  /** A multipart upload's id and the part's number. */
  readonly uploadId?: string | undefined
  readonly partNumber?: number | undefined
}

/** The terms' query names, in the code point order they are signed and written in. */
const TERM_PARAMS = [
  ['c', 'checksumSha256'],
  ['l', 'length'],
  ['m', 'metadata'],
  ['n', 'partNumber'],
  ['t', 'contentType'],
  ['u', 'uploadId'],
  ['w', 'overwrite'],
] as const

/** The response overrides' query names (S3's), in code point order. */
const OVERRIDE_PARAMS = [
  ['response-cache-control', 'cacheControl'],
  ['response-content-disposition', 'contentDisposition'],
  ['response-content-encoding', 'contentEncoding'],
  ['response-content-language', 'contentLanguage'],
  ['response-content-type', 'contentType'],
  ['response-expires', 'expires'],
] as const satisfies readonly (readonly [string, keyof ResponseOverrides])[]

/** The terms as they are signed and sent: `&name=value` for each, in code point order. */
export function termsQuery(terms: OwnTerms): string {
  let query = ''
  const { checksumSha256, metadata, length, partNumber, contentType, uploadId, overwrite } = terms
  if (checksumSha256 !== undefined) query += `&c=${encodeRfc3986(checksumSha256)}`
  if (length !== undefined) query += `&l=${length}`
  if (metadata !== undefined) query += `&m=${encodeRfc3986(metadataText(metadata))}`
  if (partNumber !== undefined) query += `&n=${partNumber}`
  const { response } = terms
  if (response !== undefined) {
    for (const [param, field] of OVERRIDE_PARAMS) {
      const value = response[field]
      if (value !== undefined) query += `&${param}=${encodeRfc3986(value)}`
    }
  }
  if (contentType !== undefined) query += `&t=${encodeRfc3986(contentType)}`
  if (uploadId !== undefined) query += `&u=${encodeRfc3986(uploadId)}`
  if (overwrite === true) query += '&w=1'
  return query
}

/** Metadata as one text: JSON with its names in code point order, so each record has one. */
function metadataText(metadata: Readonly<Record<string, string>>): string {
  const names = Object.keys(metadata).sort()
  return JSON.stringify(Object.fromEntries(names.map((name) => [name, metadata[name]])))
}

/** The metadata record a text holds (string values only), or undefined. */
function parseMetadata(text: string): Record<string, string> | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const entries = Object.entries(value)
  return entries.every(([, item]) => typeof item === 'string')
    ? Object.fromEntries(entries)
    : undefined
}

/**
 * The path of `key` under `origin`: its key encoded as S3 encodes one, `/` kept, except in a key
 * with a `.` or `..` segment, which URL parsers would fold away: there every `/` is `%2F` too.
 * A key that is only dots cannot be a path segment at all.
 */
export function ownPath(origin: string, key: string): string {
  return `${OWN_PATH}${origin}/${ownKeyPath(key)}`
}

/** `key` as it follows its origin in an own URL's path (`ownPath`). */
function ownKeyPath(key: string): string {
  const problem = checkObjectKey(key)
  if (problem !== undefined) throw new CoreError('invalid_key', `key ${problem}`)
  // A key that is only dots is itself a dot segment: one test for both, the rarer case after.
  if (!DOT_SEGMENT.test(key)) return encodeKeyPath(key)
  if (ONLY_DOTS.test(key)) throw new CoreError('invalid_key', 'key cannot be only dots')
  return encodeRfc3986(key)
}
const DOT_SEGMENT = /(?:^|\/)\.{1,2}(?:\/|$)/
const ONLY_DOTS = /^\.{1,2}$/

/** The origin and key a pathname under OWN_PATH names, or undefined when it names none. */
export function parseOwnPath(pathname: string): { origin: string; key: string } | undefined {
  if (!pathname.startsWith(OWN_PATH)) return undefined
  const slash = pathname.indexOf('/', OWN_PATH.length)
  if (slash < 0) return undefined
  const origin = pathname.slice(OWN_PATH.length, slash)
  let key: string
  try {
    key = decodeURIComponent(pathname.slice(slash + 1))
  } catch {
    return undefined
  }
  if (!/^[a-z0-9_-]+$/.test(origin) || /^\.{1,2}$/.test(key) || checkObjectKey(key) !== undefined) {
    return undefined
  }
  return { origin, key }
}

/** Who issued a URL: an API key's id, or null for a token's caller. */
type OwnIssuer = string | null

const ISSUER_IV_CHARS = 12
const issuerText = (issuer: OwnIssuer) => (issuer === null ? 't' : `k:${issuer}`)

/** The secrets' MACs, each pad block compressed once per isolate. */
const macs = new WeakMap<TokenSecret, HmacSha256>()
const encoder = new TextEncoder()
function macOf(secret: TokenSecret): HmacSha256 {
  let mac = macs.get(secret)
  if (mac === undefined) macs.set(secret, (mac = new HmacSha256(encoder.encode(secret.secret))))
  return mac
}

/** `i`: the issuer under a synthetic IV unique to (issuer, origin, expiry). */
function concealIssuer(
  secrets: readonly TokenSecret[],
  secret: TokenSecret,
  origin: string,
  expires: number,
  issuer: OwnIssuer,
): string {
  const text = issuerText(issuer)
  const iv = base64UrlEncode(
    macOf(secret).signAscii(`waybill-o-issuer-v1\n${encodeRfc3986(text)}\n${origin}\n${expires}`),
  ).slice(0, ISSUER_IV_CHARS)
  return iv + conceal(secrets, secret.id, `o-issuer.${iv}`, text)!
}

function revealIssuer(
  secrets: readonly TokenSecret[],
  secretId: string,
  concealed: string,
): OwnIssuer | undefined {
  const iv = concealed.slice(0, ISSUER_IV_CHARS)
  const text = reveal(secrets, secretId, `o-issuer.${iv}`, concealed.slice(ISSUER_IV_CHARS))
  if (text === 't') return null
  return text?.startsWith('k:') === true ? text.slice(2) : undefined
}

/**
 * What verifying the URLs of one batch repeats, kept per secret: the MAC with the batch's prefix
 * absorbed, and the issuer `i` conceals. Both are functions of what they are keyed by (the secret,
 * then the signed prefix, or `i`), so a kept one is the one that would be computed; a page that
 * loads a gallery's URLs pays for each prefix once. Bounded: an entry unused since the last sweep
 * goes first (../cache.ts).
 */
interface Verifying {
  readonly macs: BoundedCache<string, HmacSha256>
  readonly issuers: BoundedCache<string, OwnIssuer>
}
const VERIFYING_ENTRIES = 256
const verifying = new WeakMap<TokenSecret, Verifying>()
function verifyingOf(secret: TokenSecret): Verifying {
  let kept = verifying.get(secret)
  if (kept === undefined) {
    kept = {
      macs: new BoundedCache(VERIFYING_ENTRIES),
      issuers: new BoundedCache(VERIFYING_ENTRIES),
    }
    verifying.set(secret, kept)
  }
  return kept
}

const SIGNATURE_CHARS = 32
/** The signature's 32-bit words: 16 bytes, 32 hex characters. */
const SIGNATURE_WORDS = SIGNATURE_CHARS / 8

/** One batch of own URLs: one method, origin, expiry and issuer, under the first secret. */
export interface OwnBatch {
  readonly secrets: readonly TokenSecret[]
  /** The Worker's origin the URLs point at: `https://files.example.com`. */
  readonly base: string
  readonly origin: string
  readonly method: OwnMethod
  /** Epoch seconds. */
  readonly expires: number
  readonly issuer: OwnIssuer
}

interface OwnItem {
  readonly key: string
  readonly terms?: OwnTerms | undefined
}

export interface OwnSigner {
  /** The signed URLs of `items`, in order. */
  signAll(items: readonly OwnItem[]): string[]
  /** The text its signature covers for one item, for a caller chasing a mismatch. */
  explain(item: OwnItem): { prefix: string; message: string }
}

const signedPrefix = (method: string, origin: string, expires: number, k: string, i: string) =>
  `waybill-o-v1\n${method}\n${origin}\n${expires}\n${k}\n${i}\n`

/**
 * A signer for one batch of own URLs: its constant parts (the query head, the MAC's prefix) made
 * once, every URL then one hash and one HMAC, four at a time.
 *
 * @example
 * const signer = prepareOwnSigner({ secrets, base: 'https://files.example.com', origin: 'media',
 *   method: 'GET', expires: 1795856400, issuer: 'web' })
 * const [url] = signer.signAll([{ key: 'cats/tom.jpg' }])
 */
export function prepareOwnSigner(batch: OwnBatch): OwnSigner {
  const secret = batch.secrets[0]
  if (secret === undefined) throw new Error('signing needs a secret')
  const { base, origin, method, expires } = batch
  const i = concealIssuer(batch.secrets, secret, origin, expires, batch.issuer)
  const prefix = signedPrefix(method, origin, expires, secret.id, i)
  const mac = macOf(secret).withPrefix(prefix)
  const head = `?x=${expires}&k=${secret.id}&i=${i}`
  // The path up to the key, signed and written the same for every URL of the batch.
  const pathHead = `${OWN_PATH}${origin}/`
  const urlHead = `${base}${pathHead}`
  const keyPaths: string[] = []
  const queries: string[] = []
  return {
    signAll(items) {
      const urls: string[] = []
      for (let from = 0; from < items.length; from += SIGN_LANES) {
        const count = Math.min(SIGN_LANES, items.length - from)
        messageStart()
        for (let n = 0; n < count; n++) {
          const item = items[from + n]!
          const keyPath = (keyPaths[n] = ownKeyPath(item.key))
          const query = (queries[n] = item.terms === undefined ? '' : termsQuery(item.terms))
          if (n > 0) messageNext()
          messageAscii(pathHead)
          messageAscii(keyPath)
          messageAscii(query === '' ? '\n' : `\n${query}`)
        }
        const signatures = mac.signMessagesDigestHex(SIGNATURE_WORDS)
        for (let n = 0; n < count; n++) {
          urls.push(`${urlHead}${keyPaths[n]!}${head}${queries[n]!}&s=${signatures[n]!}`)
        }
      }
      return urls
    },
    explain(item) {
      const query = item.terms === undefined ? '' : termsQuery(item.terms)
      return { prefix, message: `${ownPath(origin, item.key)}\n${query}` }
    },
  }
}

/** Why a URL is not one to honour. */
export type OwnFault = TokenFault | 'expired'

/** What a verified URL allows. */
export interface OwnGrant {
  readonly origin: string
  readonly key: string
  readonly method: OwnMethod
  /** Epoch seconds. */
  readonly expires: number
  readonly issuer: OwnIssuer
  readonly terms: OwnTerms
}

const TERM_NAMES: ReadonlySet<string> = new Set([
  'x',
  'k',
  'i',
  's',
  ...TERM_PARAMS.map(([name]) => name),
  ...OVERRIDE_PARAMS.map(([name]) => name),
])
const WHOLE = /^(?:0|[1-9][0-9]{0,15})$/

/** The query's parameters, each known and present once, decoded; undefined otherwise. */
function parseQuery(search: string): Map<string, string> | undefined {
  const params = new Map<string, string>()
  if (search.length <= 1) return params
  for (const pair of search.slice(1).split('&')) {
    const eq = pair.indexOf('=')
    if (eq < 0) return undefined
    const name = pair.slice(0, eq)
    if (!TERM_NAMES.has(name) || params.has(name)) return undefined
    try {
      params.set(name, decodeURIComponent(pair.slice(eq + 1)))
    } catch {
      return undefined
    }
  }
  return params
}

/** The terms the query names, each in its one spelling; undefined for any other. */
function parseTerms(params: ReadonlyMap<string, string>): OwnTerms | undefined {
  const number = (name: string) => {
    const text = params.get(name)
    if (text === undefined) return undefined
    return WHOLE.test(text) ? Number(text) : NaN
  }
  const length = number('l')
  const partNumber = number('n')
  if (Number.isNaN(length) || Number.isNaN(partNumber)) return undefined
  const w = params.get('w')
  if (w !== undefined && w !== '1') return undefined
  const m = params.get('m')
  const metadata = m === undefined ? undefined : parseMetadata(m)
  if (m !== undefined && metadata === undefined) return undefined
  let response: Record<string, string> | undefined
  for (const [param, field] of OVERRIDE_PARAMS) {
    const value = params.get(param)
    if (value !== undefined) (response ??= {})[field] = value
  }
  return {
    response,
    contentType: params.get('t'),
    length,
    checksumSha256: params.get('c'),
    metadata,
    overwrite: w === '1' ? true : undefined,
    uploadId: params.get('u'),
    partNumber,
  }
}

/**
 * What the own URL `url` allows for `method` (HEAD counts as GET), when one of `secrets` signed it
 * and it has not expired at `nowS`; otherwise why not: `malformed` (not an own URL, an unknown or
 * repeated parameter, a value in another spelling), `unknown_secret`, `tampered`, `expired`.
 *
 * @example
 * const verified = verifyOwnUrl(config.tokenSecrets, new URL(request.url), 'GET', nowS)
 */
export function verifyOwnUrl(
  secrets: readonly TokenSecret[],
  url: URL,
  method: OwnMethod,
  nowS: number,
): OwnGrant | { fault: OwnFault } {
  const where = parseOwnPath(url.pathname)
  const params = parseQuery(url.search)
  const terms = params && parseTerms(params)
  const expiresText = params?.get('x')
  const k = params?.get('k')
  const i = params?.get('i')
  const s = params?.get('s')
  if (
    where === undefined ||
    terms === undefined ||
    expiresText === undefined ||
    !WHOLE.test(expiresText) ||
    k === undefined ||
    i === undefined ||
    s === undefined ||
    !/^[0-9a-f]{32}$/.test(s)
  ) {
    return { fault: 'malformed' }
  }
  const secret = secrets.find((candidate) => candidate.id === k)
  if (secret === undefined) return { fault: 'unknown_secret' }
  const expires = Number(expiresText)
  // The path is signed as the signer writes it, whatever spelling reached here.
  const message = `${ownPath(where.origin, where.key)}\n${termsQuery(terms)}`
  const kept = verifyingOf(secret)
  const prefix = signedPrefix(method, where.origin, expires, k, i)
  const known = kept.macs.get(prefix)
  const mac = known ?? macOf(secret).withPrefix(prefix)
  messageStart()
  messageAscii(message)
  const expected = mac.signMessagesDigestHex(SIGNATURE_WORDS)[0]!
  if (!constantTimeEqualText(expected, s)) return { fault: 'tampered' }
  // Kept only once a URL under it verified: forged prefixes cannot push the real ones out.
  if (known === undefined) kept.macs.set(prefix, mac)
  if (nowS >= expires) return { fault: 'expired' }
  // Revealed only once the signature holds: an `i` in the cache is one this secret signed.
  let issuer = kept.issuers.get(i)
  if (issuer === undefined) {
    issuer = revealIssuer(secrets, k, i)
    if (issuer === undefined) return { fault: 'malformed' }
    kept.issuers.set(i, issuer)
  }
  return { origin: where.origin, key: where.key, method, expires, issuer, terms }
}

/**
 * Read URLs already verified, per secret list (one per configuration), by their whole text: an
 * object fetched again through the same URL (a gallery's image, a page's asset: a batch's URLs
 * stay the same within a signing window) is verified once. Filled only once a URL's signature has
 * verified, so a kept grant is exactly what verifying the same text again would give; its expiry
 * is judged on every request all the same. Bounded (../cache.ts).
 */
const verifiedReads = new WeakMap<readonly TokenSecret[], BoundedCache<string, OwnGrant>>()
const VERIFIED_READS = 1024

/**
 * `verifyOwnUrl` for the URL a request came to, as its text (`request.url`): a read URL verified
 * before (under the same secrets) is not parsed or signed again.
 *
 * @example
 * const verified = verifyOwnHref(secrets, request.url, 'GET', nowS)
 */
export function verifyOwnHref(
  secrets: readonly TokenSecret[],
  href: string,
  method: OwnMethod,
  nowS: number,
): OwnGrant | { fault: OwnFault } {
  if (method !== 'GET') return verifyOwnUrl(secrets, new URL(href), method, nowS)
  let kept = verifiedReads.get(secrets)
  if (kept === undefined) verifiedReads.set(secrets, (kept = new BoundedCache(VERIFIED_READS)))
  const known = kept.get(href)
  if (known !== undefined) return nowS >= known.expires ? { fault: 'expired' } : known
  const verified = verifyOwnUrl(secrets, new URL(href), method, nowS)
  if (!('fault' in verified)) kept.set(href, Object.freeze(verified))
  return verified
}
