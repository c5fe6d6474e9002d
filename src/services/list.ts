// A signed listing: ListObjectsV2 over one or more prefixes (concurrently, bounded), merged in S3's
// order up to a limit, each object with a URL where the caller may read, and a sealed cursor.

import * as v from 'valibot'
import type { Principal } from '../principal'
import type { Config } from '../config'
import { DEFAULT_LIST_LIMIT, MAX_KEY_BYTES, S3_CONCURRENCY, STREAM_CHUNK_ITEMS } from '../limits'
import { isWellFormedKey, utf8Length } from '../core/sigv4/encoding'
import { sealed } from '../schemas/sealed'
import { WaybillError } from '../errors'
import type { ListQuery } from '../schemas/list'
import type { Listing as Pages, ListedObject } from '../origins/types'
import { mintingFor, permitFor } from './permits'
import { batchSigner } from './signers'

const NOT_A_CURSOR = 'is not a cursor from a previous page of this listing'
/** Sorts after every character of a key: resuming after a common prefix skips all it rolls up. */
const AFTER_ALL = '\u{10FFFF}'

/** Where a listing resumes: the index of a requested prefix, and the last entry already returned. */
interface Cursor {
  i: number
  a: string
}

/** What a cursor belongs to: the listing's origin, prefixes and delimiter. */
type CursorBinding = [origin: string, prefixes: readonly string[], delimiter: string | null]

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

/** A cursor: sealed for this very listing (its origin, prefixes and delimiter). */
const cursors = sealed(
  'list-cursor',
  v.object({
    i: v.pipe(v.number(), v.integer(), v.minValue(0)),
    // A key, or a common prefix followed by AFTER_ALL.
    a: v.pipe(
      v.string(),
      v.check((after) => isWellFormedKey(after) && utf8Length(after) <= MAX_KEY_BYTES + 4),
    ),
  }),
  (binding: CursorBinding) => JSON.stringify(binding),
)

function encodeCursor(config: Config, binding: CursorBinding, cursor: Cursor): string {
  return cursors.seal(config.tokenSecrets, cursor, binding)
}

/** The cursor, when waybill sealed it for this very listing and every field is what it wrote. */
function decodeCursor(config: Config, binding: CursorBinding, text: string): Cursor | undefined {
  const opened = cursors.open(config.tokenSecrets, text, binding)
  return 'value' in opened && opened.value.i < binding[1].length ? opened.value : undefined
}

/** Up to `budget` entries under `prefix`, in S3's order, following continuation tokens. */
async function listPrefix(
  pages: Pages,
  prefix: string,
  delimiter: string | undefined,
  budget: number,
  startAfter: string | undefined,
): Promise<{ entries: Entry[]; done: boolean }> {
  const entries: Entry[] = []
  let token: string | undefined
  for (;;) {
    const page = await pages.page({
      prefix,
      delimiter,
      maxKeys: Math.min(pages.pageMax, budget - entries.length),
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

/** One page of a signed listing: its entries, then JSON or NDJSON as the client asks. */
export interface Listing {
  /** When the listed URLs expire; none when the page lists no URL. */
  readonly expiresAt: Date | undefined
  /**
   * The URLs the page carries, one per object the caller may read: known before the answer is
   * made, so a streamed answer is counted as it starts (a stream cut short counts them all).
   */
  readonly urls: number
  /** The whole answer. */
  answer(): Promise<{
    origin: string
    items: ListedItemAnswer[]
    prefixes: string[]
    cursor: string | null
    expiresAt: string | null
  }>
  /** NDJSON: chunks of item lines, then a last line with the prefixes and the cursor. */
  lines(): () => Promise<string | undefined>
}

type ListedItemAnswer = ListedObject & { url: string | undefined }

/**
 * Authorizes a listing: a `list` grant must contain the whole of each prefix. What GET
 * /v1/list/{origin} judges before it lists; explain (src/bridge/) asks the same.
 */
export function listPermit(config: Config, principal: Principal, origin: string, query: ListQuery) {
  const { prefix: prefixes } = query
  return permitFor(config, principal, {
    kind: 'listing',
    origin,
    // A list grant must contain the whole of each: `users/al` lists nothing of `users/alice/`.
    prefixes: prefixes.map((prefix, i) => ({
      prefix,
      // The whole bucket (no prefix given) is named as `prefix`.
      path: prefixes.length === 1 && prefix === '' ? 'prefix' : `prefix.${i}`,
    })),
    limit: query.limit === undefined ? undefined : { n: query.limit, path: 'limit' },
    fits: (origin) =>
      origin.listing === undefined
        ? [
            {
              path: 'origin',
              message:
                'cannot be listed: it names no bucket to list (a CloudFront origin needs "listFrom")',
            },
          ]
        : [],
  })
}

/**
 * Authorizes (`listPermit`) and runs one page of a listing: objects the caller may not read come
 * without a URL.
 */
export async function listPage(
  config: Config,
  principal: Principal,
  origin: string,
  query: ListQuery,
  now: Date,
  base: string,
): Promise<Listing> {
  const { prefix: prefixes } = query
  const binding: CursorBinding = [origin, prefixes, query.delimiter ?? null]
  const permit = listPermit(config, principal, origin, query)
  const pages = permit.origin.listing!
  const limit = query.limit ?? Math.min(DEFAULT_LIST_LIMIT, permit.maxCount)
  const after = query.cursor === undefined ? undefined : decodeCursor(config, binding, query.cursor)
  if (query.cursor !== undefined && after === undefined) {
    // Sealed for another listing or caller, or never issued: as an upload handle or a receipt
    // that does not verify, a 403 (its shape is the document's, checked before: a 400).
    throw new WaybillError('forbidden', 'This cursor was not issued for this listing.', {
      errors: [{ path: 'cursor', message: NOT_A_CURSOR }],
    })
  }

  // Up to S3_CONCURRENCY prefix listings at a time, a new one starting as soon as one ends, each
  // asking for what is still missing; none starts once the limit is reached. Prefixes start in
  // order, so every prefix before the cursor computed below has been listed.
  const first = after?.i ?? 0
  const results: Array<{ i: number; entries: Entry[]; done: boolean }> = []
  let count = 0
  let next = first
  const worker = async (): Promise<void> => {
    while (next < prefixes.length && count < limit) {
      const i = next++
      const listed = await listPrefix(
        pages,
        prefixes[i]!,
        query.delimiter,
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
      if (result.i + 1 < prefixes.length) cursor = { i: result.i + 1, a: '' }
      break
    }
  }

  const objects = taken.flatMap((entry) => ('object' in entry ? [entry.object] : []))
  const commonPrefixes = taken.flatMap((entry) => ('prefix' in entry ? [entry.prefix] : []))
  // Objects the caller may not read are listed without a URL.
  const reads = permitFor(config, principal, {
    kind: 'listed',
    origin,
    items: objects.map((object) => ({ key: object.key })),
    expiresIn: query.expiresIn,
    signingWindow: query.signingWindow,
  })
  const readable = new Set(reads.items.map((item) => item.key))
  const signer =
    readable.size > 0
      ? batchSigner(reads, { method: 'GET', now, minting: mintingFor(config, principal, base) })
      : undefined
  const expiresAt = signer?.expiresAt
  const nextCursor = cursor === undefined ? null : encodeCursor(config, binding, cursor)

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

  return {
    expiresAt,
    urls: reads.items.length,
    async answer() {
      return {
        origin,
        items: await signItems(0, objects.length),
        prefixes: commonPrefixes,
        cursor: nextCursor,
        expiresAt: expiresAt?.toISOString() ?? null,
      }
    },
    lines() {
      let next = 0
      let ended = false
      return async () => {
        if (next < objects.length) {
          const to = Math.min(next + STREAM_CHUNK_ITEMS, objects.length)
          let text = ''
          for (const item of await signItems(next, to)) text += JSON.stringify(item) + '\n'
          next = to
          return text
        }
        if (ended) return undefined
        ended = true
        return JSON.stringify({ prefixes: commonPrefixes, cursor: nextCursor }) + '\n'
      }
    },
  }
}
