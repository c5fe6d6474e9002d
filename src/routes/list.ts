import { Hono } from 'hono'
import { authorize } from '../auth/policy'
import { seal, unseal } from '../auth/seal'
import type { Clock } from '../http/clock'
import type { Config, Origin, S3Origin } from '../config'
import { ORIGIN_NAME } from '../config/names'
import {
  DEFAULT_LIST_LIMIT,
  MAX_KEY_BYTES,
  MAX_LIST_LIMIT,
  MAX_LIST_PREFIXES,
  S3_CONCURRENCY,
  S3_LIST_PAGE_MAX,
  STREAM_CHUNK_ITEMS,
} from '../config/limits'
import { checkExpiresIn } from '../core/s3/presign'
import { isWellFormedKey, utf8Length } from '../core/sigv4/encoding'
import { invalid, type FieldError } from '../errors'
import { cacheControlUntil, etagMatches, etagOf } from '../http/cache'
import type { AppEnv } from '../http/types'
import { listObjectsPage, type ListedObject } from '../store/client'
import { batchSigner } from '../services/signers'
import { parseSigningWindowField } from './sign-request'

const NDJSON = 'application/x-ndjson'
const NOT_A_CURSOR = 'is not a cursor from a previous page of this listing'
/** Sorts after every character of a key: resuming after a common prefix skips all it rolls up. */
const AFTER_ALL = '\u{10FFFF}'

interface ListRequest {
  origin: string
  prefixes: string[]
  delimiter: string | undefined
  limit: number | undefined
  cursor: string | undefined
  expiresIn: number | undefined
  signingWindow: number | undefined
}

/** Where a listing resumes: the index of a requested prefix, and the last entry already returned. */
interface Cursor {
  i: number
  a: string
}

type Entry = { object: ListedObject } | { prefix: string }

const entryName = (entry: Entry): string => ('object' in entry ? entry.object.key : entry.prefix)

/** Code point order, which is the UTF-8 byte order S3 lists in (UTF-16 order differs for astral). */
function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!
    const y = b.codePointAt(i)!
    if (x !== y) return x - y
    if (x > 0xffff) i++
  }
  return a.length - b.length
}

const CURSOR_PURPOSE = 'list-cursor'
// A sealed cursor (src/auth/seal.ts): base64url payload, a dot, a 22-character tag.
const CURSOR_SHAPE = /^[A-Za-z0-9_-]{1,4096}\.[A-Za-z0-9_-]{22}$/

/** What a cursor belongs to: the listing's origin, prefixes and delimiter. */
const cursorBinding = (request: ListRequest) =>
  JSON.stringify([request.origin, request.prefixes, request.delimiter ?? null])

function encodeCursor(bucket: S3Origin, request: ListRequest, cursor: Cursor): Promise<string> {
  return seal(bucket, CURSOR_PURPOSE, JSON.stringify(cursor), cursorBinding(request))
}

/** The cursor, when waybill sealed it for this very listing and every field is what it wrote. */
async function decodeCursor(
  bucket: S3Origin,
  request: ListRequest,
  text: string,
): Promise<Cursor | undefined> {
  const payload = await unseal(bucket, CURSOR_PURPOSE, text, cursorBinding(request))
  if (payload === undefined) return undefined
  try {
    const { i, a } = JSON.parse(payload) as Record<string, unknown>
    if (
      Number.isInteger(i) &&
      (i as number) >= 0 &&
      (i as number) < request.prefixes.length &&
      typeof a === 'string' &&
      isWellFormedKey(a) &&
      utf8Length(a) <= MAX_KEY_BYTES + 4
    ) {
      return { i: i as number, a }
    }
  } catch {
    // Falls through to "not a cursor".
  }
  return undefined
}

function parseListRequest(url: URL, origin: string): ListRequest {
  const errors: FieldError[] = []
  const query = url.searchParams
  const known = new Set(['prefix', 'delimiter', 'limit', 'cursor', 'expiresIn', 'signingWindow'])
  for (const name of new Set(query.keys())) {
    if (!known.has(name)) {
      errors.push({
        path: name,
        message: `is not a known parameter (known: ${[...known].join(', ')})`,
      })
    }
  }
  if (!ORIGIN_NAME.test(origin)) {
    errors.push({ path: 'origin', message: 'must be an origin name (a-z, 0-9, "-", "_")' })
  }
  const prefixes = query.getAll('prefix')
  if (prefixes.length === 0) prefixes.push('')
  if (prefixes.length > MAX_LIST_PREFIXES) {
    errors.push({ path: 'prefix', message: `may be given at most ${MAX_LIST_PREFIXES} times` })
  }
  prefixes.forEach((prefix, i) => {
    if (!isWellFormedKey(prefix) || utf8Length(prefix) > MAX_KEY_BYTES) {
      errors.push({
        path: `prefix.${i}`,
        message: `must be valid Unicode of at most ${MAX_KEY_BYTES} bytes`,
      })
    } else if (prefixes.indexOf(prefix) !== i) {
      errors.push({ path: `prefix.${i}`, message: 'repeats an earlier prefix' })
    }
  })
  const delimiter = query.get('delimiter') ?? undefined
  if (delimiter !== undefined && (delimiter.length === 0 || delimiter.length > 16)) {
    errors.push({ path: 'delimiter', message: 'must be 1 to 16 characters, such as "/"' })
  }
  const wholeNumber = (name: string, min: number, max: number): number | undefined => {
    const raw = query.get(name)
    if (raw === null) return undefined
    const value = /^\d{1,7}$/.test(raw) ? Number(raw) : NaN
    if (!(value >= min && value <= max)) {
      errors.push({ path: name, message: `must be a whole number from ${min} to ${max}` })
      return undefined
    }
    return value
  }
  const limit = wholeNumber('limit', 1, MAX_LIST_LIMIT)
  let expiresIn: number | undefined
  const rawExpires = query.get('expiresIn')
  if (rawExpires !== null) {
    const value = /^\d{1,7}$/.test(rawExpires) ? Number(rawExpires) : NaN
    const problem = checkExpiresIn(value)
    if (problem !== undefined) errors.push({ path: 'expiresIn', message: problem })
    else expiresIn = value
  }
  const rawWindow = query.get('signingWindow')
  const signingWindow =
    rawWindow === null
      ? undefined
      : parseSigningWindowField(/^\d{1,7}$/.test(rawWindow) ? Number(rawWindow) : rawWindow, errors)
  const cursor = query.get('cursor') ?? undefined
  if (cursor !== undefined && !CURSOR_SHAPE.test(cursor)) {
    errors.push({ path: 'cursor', message: NOT_A_CURSOR })
  }
  if (errors.length > 0) throw invalid(errors)
  return { origin, prefixes, delimiter, limit, cursor, expiresIn, signingWindow }
}

/** The S3 origin a listing reads: the origin itself, or the bucket behind a CloudFront origin. */
function bucketOf(config: Config, origin: Origin): S3Origin | undefined {
  if (origin.type === 's3') return origin
  const source = origin.listFrom === undefined ? undefined : config.origins.get(origin.listFrom)
  return source?.type === 's3' ? source : undefined
}

/** Up to `budget` entries under `prefix`, in S3's order, following continuation tokens. */
async function listPrefix(
  bucket: S3Origin,
  prefix: string,
  delimiter: string | undefined,
  budget: number,
  startAfter: string | undefined,
): Promise<{ entries: Entry[]; done: boolean }> {
  const entries: Entry[] = []
  let token: string | undefined
  for (;;) {
    const page = await listObjectsPage(bucket, {
      prefix,
      delimiter,
      maxKeys: Math.min(S3_LIST_PAGE_MAX, budget - entries.length),
      continuationToken: token,
      startAfter: token === undefined ? startAfter : undefined,
    })
    const merged: Entry[] = [
      ...page.objects.map((object) => ({ object })),
      ...page.prefixes.map((p) => ({ prefix: p })),
    ]
    merged.sort((x, y) => compareKeys(entryName(x), entryName(y)))
    entries.push(...merged)
    token = page.next
    if (token === undefined) return { entries, done: true }
    if (entries.length >= budget) return { entries, done: false }
  }
}

/**
 * `GET /v1/list/{origin}`: a signed listing. Prefixes are listed concurrently (bounded), each page
 * by page; the entries come back in prefix order, then S3's order, and `cursor` resumes after the
 * last one returned.
 */
export function listRoutes(clock: Clock) {
  return new Hono<AppEnv>().get('/:origin', async (c) => {
    const config = c.get('config')
    const principal = c.get('principal')
    const url = new URL(c.req.url)
    const request = parseListRequest(url, c.req.param('origin'))
    const permit = authorize(config, principal, {
      origin: request.origin,
      action: 'list',
      // A list grant must contain the whole of each: `users/al` lists nothing of `users/alice/`.
      under: request.prefixes.map((prefix, i) => ({ prefix, path: `prefix.${i}` })),
      count: request.limit === undefined ? undefined : { n: request.limit, path: 'limit' },
      fits: (origin) =>
        bucketOf(config, origin) === undefined
          ? [
              {
                path: 'origin',
                message: 'is a CloudFront origin without "listFrom"; it cannot be listed',
              },
            ]
          : [],
    })
    const { origin } = permit
    const bucket = bucketOf(config, origin)!
    const limit = request.limit ?? Math.min(DEFAULT_LIST_LIMIT, permit.maxCount)
    const after =
      request.cursor === undefined ? undefined : await decodeCursor(bucket, request, request.cursor)
    if (request.cursor !== undefined && after === undefined) {
      throw invalid([{ path: 'cursor', message: NOT_A_CURSOR }])
    }
    Object.assign(c.get('log'), { origin: origin.name, action: 'list' })

    // Up to S3_CONCURRENCY prefix listings at a time, a new one starting as soon as one ends, each
    // asking for what is still missing; none starts once the limit is reached. Prefixes start in
    // order, so every prefix before the cursor computed below has been listed.
    const first = after?.i ?? 0
    const results: Array<{ i: number; entries: Entry[]; done: boolean }> = []
    let count = 0
    let next = first
    const worker = async (): Promise<void> => {
      while (next < request.prefixes.length && count < limit) {
        const i = next++
        const listed = await listPrefix(
          bucket,
          request.prefixes[i]!,
          request.delimiter,
          limit - count,
          i === first ? after?.a : undefined,
        )
        results.push({ i, ...listed })
        count += listed.entries.length
      }
    }
    await Promise.all(Array.from({ length: S3_CONCURRENCY }, worker))
    results.sort((x, y) => x.i - y.i)

    // Take entries in order up to the limit; the cursor points just after the last one taken.
    const taken: Entry[] = []
    let cursor: Cursor | undefined
    for (const result of results) {
      const part = result.entries.slice(0, limit - taken.length)
      taken.push(...part)
      const last = part[part.length - 1]
      if (last !== undefined && (part.length < result.entries.length || !result.done)) {
        const resumeAfter = 'object' in last ? last.object.key : last.prefix + AFTER_ALL
        cursor = { i: result.i, a: resumeAfter }
        break
      }
      if (taken.length === limit) {
        if (result.i + 1 < request.prefixes.length) cursor = { i: result.i + 1, a: '' }
        break
      }
    }

    const objects = taken.flatMap((entry) => ('object' in entry ? [entry.object] : []))
    const commonPrefixes = taken.flatMap((entry) => ('prefix' in entry ? [entry.prefix] : []))
    const now = clock()
    // Objects the caller may not read are listed without a URL.
    const reads = authorize(config, principal, {
      origin: origin.name,
      action: 'read',
      items: objects.map((object) => ({ key: object.key })),
      partial: true,
      expiresIn: request.expiresIn,
      signingWindow: request.signingWindow,
    })
    const readable = new Set(reads.items.map((item) => item.key))
    const signer = readable.size > 0 ? batchSigner(reads, { method: 'GET', now }) : undefined
    const expiresAt = signer?.expiresAt
    const nextCursor = cursor === undefined ? null : await encodeCursor(bucket, request, cursor)
    const headers: Record<string, string> = {
      'cache-control': expiresAt === undefined ? 'no-store' : cacheControlUntil(expiresAt, now),
      // The answer differs per caller.
      vary: 'Authorization, Cookie',
    }
    if (expiresAt !== undefined) headers['waybill-expires-at'] = expiresAt.toISOString()

    // Objects `from` to `to` with their URLs where the caller may read; the permit's items are the
    // readable objects in the same order, so a running count finds each one's URL.
    let signed = 0
    const signItems = async (from: number, to: number) => {
      const slice = objects.slice(from, to)
      const count = slice.filter((object) => readable.has(object.key)).length
      const urls = signer === undefined ? [] : await signer.sign(signed, signed + count)
      signed += count
      let next = 0
      return slice.map((object) => ({
        ...object,
        url: readable.has(object.key) ? urls[next++] : undefined,
      }))
    }

    if ((c.req.header('accept') ?? '').toLowerCase().includes(NDJSON)) {
      // As /v1/sign streams: signed one chunk per pull, then a last line with prefixes and cursor.
      const encoder = new TextEncoder()
      let next = 0
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          let text = ''
          if (next < objects.length) {
            const to = Math.min(next + STREAM_CHUNK_ITEMS, objects.length)
            for (const item of await signItems(next, to)) text += JSON.stringify(item) + '\n'
            next = to
          } else {
            text = JSON.stringify({ prefixes: commonPrefixes, cursor: nextCursor }) + '\n'
            controller.enqueue(encoder.encode(text))
            controller.close()
            return
          }
          controller.enqueue(encoder.encode(text))
        },
      })
      return new Response(stream, {
        headers: { ...headers, 'content-type': `${NDJSON}; charset=utf-8` },
      })
    }
    const items = await signItems(0, objects.length)
    const body = JSON.stringify({
      origin: origin.name,
      items,
      prefixes: commonPrefixes,
      cursor: nextCursor,
      expiresAt: expiresAt?.toISOString() ?? null,
    })
    const etag = await etagOf(body)
    headers.etag = etag
    if (etagMatches(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers)
    return c.body(body, 200, { ...headers, 'content-type': 'application/json' })
  })
}
