import { Hono } from 'hono'
import { authorizeList, authorizeReads, signingWindowFor } from '../auth/policy'
import type { Clock } from '../clock'
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
} from '../constants'
import { checkExpiresIn } from '../core/s3/presign'
import { isWellFormedKey, utf8Length } from '../core/sigv4/encoding'
import { invalid, type FieldError } from '../errors'
import { cacheControlUntil, etagMatches, etagOf } from '../http/cache'
import type { AppEnv } from '../http/types'
import { listObjectsPage, type ListedObject } from '../s3/client'
import { batchSigner } from '../signing'
import { parseSigningWindowField } from './sign-request'

const NDJSON = 'application/x-ndjson'
/** Sorts after every character of a key: resuming after a common prefix skips all it rolls up. */
const AFTER_ALL = '\u{10FFFF}'

interface ListRequest {
  origin: string
  prefixes: string[]
  delimiter: string | undefined
  limit: number
  cursor: Cursor | undefined
  expiresIn: number | undefined
  signingWindow: number | undefined
}

/** Where a listing resumes: the index of a requested prefix, and the last entry already returned. */
interface Cursor {
  i: number
  a: string
  /** Fingerprint of the prefixes and delimiter the cursor belongs to. */
  f: string
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

async function fingerprint(prefixes: readonly string[], delimiter: string | undefined) {
  const data = new TextEncoder().encode(JSON.stringify([prefixes, delimiter ?? null]))
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data))
  return [...digest.slice(0, 6)].map((b) => b.toString(16).padStart(2, '0')).join('')
}

function encodeCursor(cursor: Cursor): string {
  const bytes = new TextEncoder().encode(JSON.stringify(cursor))
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}

function decodeCursor(text: string): Cursor | undefined {
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'))
    const value: unknown = JSON.parse(
      new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(
        Uint8Array.from(binary, (c) => c.charCodeAt(0)),
      ),
    )
    const { i, a, f } = value as Record<string, unknown>
    if (Number.isInteger(i) && typeof a === 'string' && typeof f === 'string') {
      return { i: i as number, a, f }
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
  const limit = wholeNumber('limit', 1, MAX_LIST_LIMIT) ?? DEFAULT_LIST_LIMIT
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
  let cursor: Cursor | undefined
  const rawCursor = query.get('cursor')
  if (rawCursor !== null) {
    cursor = decodeCursor(rawCursor)
    if (cursor === undefined || cursor.i < 0 || cursor.i >= prefixes.length) {
      errors.push({
        path: 'cursor',
        message: 'is not a cursor from a previous page of this listing',
      })
    }
  }
  if (errors.length > 0) throw invalid(errors)
  return { origin, prefixes, delimiter, limit, cursor, expiresIn, signingWindow }
}

/** The S3 origin a listing reads: the origin itself, or the bucket behind a CloudFront origin. */
function bucketOf(config: Config, origin: Origin): S3Origin {
  if (origin.type === 's3') return origin
  const source = origin.listFrom === undefined ? undefined : config.origins.get(origin.listFrom)
  if (source?.type !== 's3') {
    throw invalid([
      {
        path: 'origin',
        message: 'is a CloudFront origin without "listFrom"; it cannot be listed',
      },
    ])
  }
  return source
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
    const { origin, maxBatch } = authorizeList(config, principal, request.origin, request.prefixes)
    if (request.limit > maxBatch) {
      throw invalid([{ path: 'limit', message: `must be at most ${maxBatch} for this caller` }])
    }
    const bucket = bucketOf(config, origin)
    const print = await fingerprint(request.prefixes, request.delimiter)
    if (request.cursor !== undefined && request.cursor.f !== print) {
      throw invalid([
        { path: 'cursor', message: 'belongs to a listing with other prefixes or delimiter' },
      ])
    }
    Object.assign(c.get('log'), { origin: origin.name, action: 'list' })

    // Up to S3_CONCURRENCY prefix listings at a time, a new one starting as soon as one ends, each
    // asking for what is still missing; none starts once the limit is reached. Prefixes start in
    // order, so every prefix before the cursor computed below has been listed.
    const first = request.cursor?.i ?? 0
    const results: Array<{ i: number; entries: Entry[]; done: boolean }> = []
    let count = 0
    let next = first
    const worker = async (): Promise<void> => {
      while (next < request.prefixes.length && count < request.limit) {
        const i = next++
        const listed = await listPrefix(
          bucket,
          request.prefixes[i]!,
          request.delimiter,
          request.limit - count,
          i === first ? request.cursor?.a : undefined,
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
      const part = result.entries.slice(0, request.limit - taken.length)
      taken.push(...part)
      const last = part[part.length - 1]
      if (last !== undefined && (part.length < result.entries.length || !result.done)) {
        const after = 'object' in last ? last.object.key : last.prefix + AFTER_ALL
        cursor = { i: result.i, a: after, f: print }
        break
      }
      if (taken.length === request.limit) {
        if (result.i + 1 < request.prefixes.length) cursor = { i: result.i + 1, a: '', f: print }
        break
      }
    }

    const objects = taken.flatMap((entry) => ('object' in entry ? [entry.object] : []))
    const commonPrefixes = taken.flatMap((entry) => ('prefix' in entry ? [entry.prefix] : []))
    const now = clock()
    const reads = authorizeReads(
      config,
      principal,
      origin,
      objects.map((object) => object.key),
      request.expiresIn,
    )
    const signer = reads.readable.includes(true)
      ? batchSigner(origin, {
          method: 'GET',
          expiresIn: reads.expiresIn,
          now,
          ...signingWindowFor(
            { origin, expiresIn: reads.expiresIn, maxExpiresIn: reads.maxExpiresIn },
            request.signingWindow,
          ),
        })
      : undefined
    const expiresAt = signer?.expiresAt
    const nextCursor = cursor === undefined ? null : encodeCursor(cursor)
    const headers: Record<string, string> = {
      'cache-control': expiresAt === undefined ? 'no-store' : cacheControlUntil(expiresAt, now),
    }
    if (expiresAt !== undefined) headers['waybill-expires-at'] = expiresAt.toISOString()

    // Objects with their URLs (where the caller may read), signed `from` to `to`.
    const signItems = async (from: number, to: number) => {
      const slice = objects.slice(from, to)
      const readable = slice.filter((_, i) => reads.readable[from + i])
      const urls =
        signer === undefined ? [] : await signer.signAll(readable.map((o) => ({ key: o.key })))
      const urlOf = new Map(readable.map((object, i) => [object, urls[i]!]))
      return slice.map((object) => ({ ...object, url: urlOf.get(object) }))
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
    headers.vary = 'Authorization, Cookie'
    if (etagMatches(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers)
    return c.body(body, 200, { ...headers, 'content-type': 'application/json' })
  })
}
