// Reading an R2 origin's object through a verified URL (GET and HEAD): streamed from the binding,
// with ranges, conditional requests, the URL's response overrides, and, where the origin keeps
// them, copies in the edge cache (the Cache API) keyed by the object alone, never by a URL, so
// that only a request whose URL has already been verified can ever be answered from it.

import { BoundedCache, keepLast } from '../../core/cache'
import { contentDisposition, lastSegment } from '../../core/disposition'
import { sanitizeFilename } from '../../core/filename'
import { canonicalMediaType, essenceOf, isPassive } from '../../core/media-type'
import {
  evaluate,
  hasPreconditions,
  preconditionsOf,
  rangeApplies,
  type Validators,
} from '../../core/own/conditions'
import { contentRange, parseRange, resolveRange, type ByteRange } from '../../core/own/range'
import { ownPath, type OwnGrant } from '../../core/own/url'
import { WaybillError } from '../../errors'
import { MAX_FILENAME_BYTES } from '../../limits'
import type { ResponseOverrides, ServeContext } from '../types'
import type { R2Settings } from './settings'

/** What an answer says of the object: its stored headers, and its validators. */
interface Stored {
  readonly size: number
  readonly validators: Validators
  readonly contentType: string | undefined
  readonly contentDisposition: string | undefined
  readonly contentEncoding: string | undefined
  readonly contentLanguage: string | undefined
  readonly cacheControl: string | undefined
  readonly expires: string | undefined
}

function storedOf(object: R2Object): Stored {
  const http = object.httpMetadata ?? {}
  return {
    size: object.size,
    validators: { etag: object.httpEtag, modifiedMs: object.uploaded.getTime() },
    contentType: http.contentType,
    contentDisposition: http.contentDisposition,
    contentEncoding: http.contentEncoding,
    contentLanguage: http.contentLanguage,
    cacheControl: http.cacheControl,
    expires: http.cacheExpiry?.toUTCString(),
  }
}

// A cached copy carries what `storedOf` reads (but its size, its length) as JSON in one header.
const STORED = 'x-waybill-stored'

function storedOfCached(response: Response, size: number): Stored | undefined {
  try {
    // No header parses as null, whose validators throw: a copy of an earlier version's is none.
    const stored = JSON.parse(response.headers.get(STORED)!) as Stored
    const { etag, modifiedMs } = stored.validators
    if (typeof etag === 'string' && Number.isFinite(modifiedMs)) return { ...stored, size }
  } catch {
    // Not what this version caches: a miss.
  }
  return undefined
}

function cachedHeaders(stored: Stored, ttl: number): Headers {
  return new Headers({
    'content-length': String(stored.size),
    'cache-control': `max-age=${ttl}`,
    [STORED]: JSON.stringify(stored),
  })
}

/**
 * The edge cache's key for an object: its origin and key, in a cache of waybill's own, whatever
 * host or URL asked (no query, no signature: one copy per object).
 */
function edgeCacheKey(origin: string, key: string): string {
  return `https://r2.waybill.invalid${ownPath(origin, key)}`
}

/** The edge cache, where the origin keeps copies and the runtime has one. */
function edgeCache(settings: R2Settings): Promise<Cache> | undefined {
  if (settings.edgeCacheTtl === 0 || typeof caches === 'undefined') return undefined
  return caches.open(EDGE_CACHE)
}
const EDGE_CACHE = 'waybill-r2'

/** Removes the edge cache's copy of an object (in this data center), after a write. */
export async function forgetCached(origin: string, key: string, settings: R2Settings) {
  const cache = await edgeCache(settings)
  return cache?.delete(edgeCacheKey(origin, key)) ?? false
}

// Content that runs where it is shown: served as a page only where a grant named its type exactly
// (a URL that overrides the type to it), otherwise as a download, sandboxed and never sniffed.
const SANDBOX = "sandbox; default-src 'none'"

/** An answer's headers as they are built: one record, handed to the Response once. */
type AnswerHeaders = Record<string, string>

/**
 * A content type's verdict: whether a browser would run it (so it must not be served inline), and
 * its canonical form. Types repeat across an origin's objects: each parsed once (bounded).
 */
interface TypeVerdict {
  readonly canonical: string | undefined
  readonly active: boolean
}
const verdicts = new BoundedCache<string, TypeVerdict>(256)
function verdictOf(type: string): TypeVerdict {
  let verdict = verdicts.get(type)
  if (verdict === undefined) {
    const canonical = canonicalMediaType(type)
    const essence = canonical === undefined ? undefined : essenceOf(canonical)
    verdict = { canonical, active: essence === undefined || !isPassive(essence) }
    verdicts.set(type, verdict)
  }
  return verdict
}

/**
 * An HTTP date for epoch ms: objects are served again and again, each with its own upload time, so
 * the last one written is kept (a date costs about a microsecond to write in workerd).
 */
const httpDate = keepLast((ms: number) => new Date(ms).toUTCString())

/** The answer's headers: the object's, the URL's overrides over them, and the origin's defaults. */
function answerHeaders(
  stored: Stored,
  response: ResponseOverrides | undefined,
  key: string,
  settings: R2Settings,
): AnswerHeaders {
  const type = response?.contentType ?? stored.contentType ?? 'application/octet-stream'
  const { canonical, active } = verdictOf(type)
  // Served inline only when the URL names the type (as the grant allowed it), and it parses.
  const named = response?.contentType !== undefined && canonical !== undefined
  const headers: AnswerHeaders = {
    'content-type': type,
    etag: stored.validators.etag,
    'last-modified': httpDate(stored.validators.modifiedMs),
    'accept-ranges': 'bytes',
    'cache-control': response?.cacheControl ?? stored.cacheControl ?? settings.cacheControl,
    'x-content-type-options': 'nosniff',
  }
  const disposition = response?.contentDisposition ?? stored.contentDisposition
  if (active && !named) {
    headers['content-security-policy'] = SANDBOX
    const attachment =
      disposition?.replace(/^\s*inline\b/i, 'attachment') ??
      contentDisposition(
        'attachment',
        sanitizeFilename(lastSegment(key) || 'download', MAX_FILENAME_BYTES),
      )
    headers['content-disposition'] = /^\s*attachment\b/i.test(attachment)
      ? attachment
      : `attachment; ${attachment}`
  } else if (disposition !== undefined) {
    headers['content-disposition'] = disposition
  }
  const encoding = response?.contentEncoding ?? stored.contentEncoding
  if (encoding !== undefined) headers['content-encoding'] = encoding
  const language = response?.contentLanguage ?? stored.contentLanguage
  if (language !== undefined) headers['content-language'] = language
  const expires = response?.expires ?? stored.expires
  if (expires !== undefined) headers.expires = expires
  return headers
}

const notFound = () =>
  new WaybillError('not_found', 'No object at this key.', {
    errors: [{ path: 'key', message: 'has no object' }],
  })

/** 304 or 412 for a verdict that is not `proceed`. */
function unmet(verdict: 'not-modified' | 'failed', headers: AnswerHeaders): Response {
  if (verdict === 'failed') {
    throw new WaybillError(
      'precondition_failed',
      'The object does not meet the request’s preconditions.',
      {
        errors: [{ path: 'headers', message: 'If-Match or If-Unmodified-Since does not hold' }],
      },
    )
  }
  const kept: AnswerHeaders = {}
  for (const name of ['etag', 'last-modified', 'cache-control', 'expires']) {
    const value = headers[name]
    if (value !== undefined) kept[name] = value
  }
  return new Response(null, { status: 304, headers: kept })
}

/**
 * A whole object's answer headers, kept per verified URL (its grant, which `verifyOwnHref` keeps
 * per URL text) for the object's version and the settings they were made from: an object fetched
 * again through the same URL answers with them copied into its response, which costs the runtime
 * a third of reading a record of them (test/origins/r2/delivery.test.ts holds both to the same
 * answer). A new version, or new settings, makes them again.
 */
interface WholeHeaders {
  readonly stored: Stored
  readonly settings: R2Settings
  readonly headers: Headers
  /** A stored encoding, sent as stored. */
  readonly encoded: boolean
}
const wholeHeaders = new WeakMap<OwnGrant, WholeHeaders>()

function sameStored(a: Stored, b: Stored): boolean {
  return (
    a.size === b.size &&
    a.validators.etag === b.validators.etag &&
    a.validators.modifiedMs === b.validators.modifiedMs &&
    a.contentType === b.contentType &&
    a.contentDisposition === b.contentDisposition &&
    a.contentEncoding === b.contentEncoding &&
    a.contentLanguage === b.contentLanguage &&
    a.cacheControl === b.cacheControl &&
    a.expires === b.expires
  )
}

/** `bodyAnswer` for the whole object, its headers kept for the URL's next request. */
function wholeAnswer(
  body: ReadableStream,
  grant: OwnGrant,
  stored: Stored,
  settings: R2Settings,
): Response {
  let kept = wholeHeaders.get(grant)
  if (kept === undefined || kept.settings !== settings || !sameStored(kept.stored, stored)) {
    const headers = answerHeaders(stored, grant.terms.response, grant.key, settings)
    headers['content-length'] = String(stored.size)
    kept = {
      stored,
      settings,
      headers: new Headers(headers),
      encoded: headers['content-encoding'] !== undefined,
    }
    wholeHeaders.set(grant, kept)
  }
  return streamed(body, 200, kept.headers, kept.encoded)
}

/** The response, a stored encoding sent as stored: the runtime encodes nothing of its own accord. */
function streamed(
  body: ReadableStream | null,
  status: number,
  headers: HeadersInit,
  encoded: boolean,
): Response {
  return encoded
    ? new Response(body, { status, headers, encodeBody: 'manual' })
    : new Response(body, { status, headers })
}

/** The body's answer: 200, or 206 for the range selected (416 when it selects nothing). */
function bodyAnswer(
  body: ReadableStream | null,
  stored: Stored,
  headers: AnswerHeaders,
  selected: { offset: number; length: number } | undefined,
): Response {
  let status = 200
  if (selected === undefined) headers['content-length'] = String(stored.size)
  else {
    status = 206
    headers['content-length'] = String(selected.length)
    headers['content-range'] = contentRange(selected, stored.size)
  }
  return streamed(body, status, headers, headers['content-encoding'] !== undefined)
}

function unsatisfiable(size: number): never {
  throw new WaybillError(
    'range_not_satisfiable',
    `The range starts past the object's end (${size} bytes).`,
    {
      errors: [{ path: 'range', message: `selects none of the object's ${size} bytes` }],
      headers: { 'content-range': contentRange(undefined, size) },
    },
  )
}

/** R2's own error for a range past the end (code 10039). */
const isUnsatisfiable = (error: unknown) =>
  error instanceof Error && /\(10039\)|range is not satisfiable/i.test(error.message)

/**
 * The answer to a GET or HEAD of the object `grant` names, which the caller has verified.
 *
 * @example
 * return deliver(request, grant, settings, context)
 */
export async function deliver(
  request: Request,
  grant: OwnGrant,
  settings: R2Settings,
  context: ServeContext,
): Promise<Response> {
  const { bucket } = settings
  const asked = request.headers
  const conditions = preconditionsOf(asked)
  const head = request.method === 'HEAD'
  const range = head ? undefined : parseRange(asked.get('range'))
  const overrides = grant.terms.response
  // Most origins keep no copies: no await for them.
  const opening = head ? undefined : edgeCache(settings)
  const cache = opening === undefined ? undefined : await opening
  const cacheKey = cache === undefined ? '' : edgeCacheKey(grant.origin, grant.key)
  if (cache !== undefined) {
    const hit = await fromCache(cache, cacheKey, conditions, range, request, grant, settings)
    if (hit !== undefined) return hit
  }

  if (head) {
    const object = await bucket.head(grant.key)
    if (object === null) throw notFound()
    const stored = storedOf(object)
    const headers = answerHeaders(stored, overrides, grant.key, settings)
    const verdict = evaluate(conditions, stored.validators, true)
    if (verdict !== 'proceed') return unmet(verdict, headers)
    headers['content-length'] = String(stored.size)
    return new Response(null, { status: 200, headers })
  }

  // If-Range decides on the object's validators, known only once it is read: looked up first.
  const ifRange = asked.get('if-range')
  let useRange = range
  if (range !== undefined && ifRange !== null) {
    const object = await bucket.head(grant.key)
    if (object === null) throw notFound()
    if (!rangeApplies(ifRange, storedOf(object).validators)) useRange = undefined
  }

  let object: R2ObjectBody | R2Object | null
  try {
    object = await bucket.get(grant.key, {
      ...(hasPreconditions(conditions) ? { onlyIf: asked } : {}),
      ...(useRange === undefined ? {} : { range: r2Range(useRange) }),
    })
  } catch (error) {
    if (!isUnsatisfiable(error)) throw error
    const object = await bucket.head(grant.key)
    if (object === null) throw notFound()
    return unsatisfiable(object.size)
  }
  if (object === null) throw notFound()
  const stored = storedOf(object)
  // R2 held back the body when a precondition failed: which one says 304 or 412.
  const verdict = evaluate(conditions, stored.validators, true)
  if (verdict !== 'proceed' || !('body' in object)) {
    if ('body' in object) await object.body.cancel()
    const headers = answerHeaders(stored, overrides, grant.key, settings)
    return unmet(verdict === 'proceed' ? 'failed' : verdict, headers)
  }
  const selected =
    useRange === undefined
      ? undefined
      : (resolveRange(useRange, stored.size) ?? unsatisfiable(stored.size))
  if (cache === undefined && selected === undefined) {
    return wholeAnswer(object.body, grant, stored, settings)
  }
  const headers = answerHeaders(stored, overrides, grant.key, settings)
  if (cache === undefined || selected !== undefined) {
    return bodyAnswer(object.body, stored, headers, selected)
  }
  // A whole object goes to the edge cache as it goes to the caller.
  const [toCaller, toCache] = object.body.tee()
  context.waitUntil(
    cache.put(
      cacheKey,
      new Response(toCache, { headers: cachedHeaders(stored, settings.edgeCacheTtl) }),
    ),
  )
  return bodyAnswer(toCaller, stored, headers, undefined)
}

/** R2's form of a byte range. */
function r2Range(range: ByteRange): R2Range {
  if ('suffix' in range) return { suffix: range.suffix }
  return range.last === undefined
    ? { offset: range.offset }
    : { offset: range.offset, length: range.last - range.offset + 1 }
}

/** The answer from the edge cache's copy, or undefined when it holds none. */
async function fromCache(
  cache: Cache,
  cacheKey: string,
  conditions: ReturnType<typeof preconditionsOf>,
  range: ByteRange | undefined,
  request: Request,
  grant: OwnGrant,
  settings: R2Settings,
): Promise<Response | undefined> {
  const cached = await cache.match(cacheKey)
  if (cached === undefined) return undefined
  const size = Number(cached.headers.get('content-length'))
  const stored = Number.isSafeInteger(size) ? storedOfCached(cached, size) : undefined
  if (stored === undefined) {
    await cached.body?.cancel()
    return undefined
  }
  const headers = answerHeaders(stored, grant.terms.response, grant.key, settings)
  headers['x-waybill-cache'] = 'hit'
  const verdict = evaluate(conditions, stored.validators, true)
  if (verdict !== 'proceed') {
    await cached.body?.cancel()
    return unmet(verdict, headers)
  }
  const applies =
    range !== undefined && rangeApplies(request.headers.get('if-range'), stored.validators)
  if (!applies) return bodyAnswer(cached.body, stored, headers, undefined)
  await cached.body?.cancel()
  const selected = resolveRange(range, stored.size) ?? unsatisfiable(stored.size)
  // The cache answers a range of its copy itself.
  const part = await cache.match(
    new Request(cacheKey, {
      headers: { range: `bytes=${selected.offset}-${selected.offset + selected.length - 1}` },
    }),
  )
  if (part === undefined || part.status !== 206) {
    await part?.body?.cancel()
    return undefined
  }
  return bodyAnswer(part.body, stored, headers, selected)
}
