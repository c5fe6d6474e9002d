// How every route answers, in one place: JSON typed by its route's schema (`Answer`, with a fast
// path for bodies built from parts), JSON or NDJSON streamed as the client reads, a 302, and the
// response policy.
//
// The response policy: every answer is `no-store` (answers carry signed URLs, tokens and
// receipts) unless its route earns a cache rule here. Two do, both GETs whose answer is a pure
// function of the caller and the URL within a signing window:
// - `GET /v1/list` and `GET /v1/redirect`: `privateUntil` (never past the earliest URL's expiry
//   less a margin), `Vary` on the credentials, and for the listing an ETag that answers 304;
// - `GET /l/{token}`: `privateUntil`, without `Vary` (the token in the path is the authority).
// A POST answer (`/v1/sign`, uploads, links, cookies) is never reused by a browser or a shared
// cache, so it carries neither a lifetime nor an ETag.

import type { Context, TypedResponse } from 'hono'
import type { JSONParsed } from 'hono/utils/types'
import type * as v from 'valibot'
import { CACHE_MARGIN_S } from '../limits'
import { jsonContent, jsonOrNdjsonContent } from './openapi'

const NDJSON = 'application/x-ndjson'

/** Answers that carry signed URLs differ per caller. */
export const VARY = 'Authorization, Cookie'

/** A media range of an `Accept` header, lower-cased, with its weight. */
interface MediaRange {
  type: string
  q: number
  /** 3 for a type, 2 for `type/*`, 1 for `*\/*`. */
  specificity: number
}

const WEIGHT = /^q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/

/** The ranges of an `Accept` header (RFC 9110 §12.5.1); a range whose weight is malformed is 1. */
function mediaRanges(header: string): MediaRange[] {
  const ranges: MediaRange[] = []
  for (const part of header.split(',')) {
    const [type = '', ...params] = part.split(';').map((text) => text.trim().toLowerCase())
    if (!type.includes('/') && type !== '*') continue
    let q = 1
    for (const param of params) {
      const weight = WEIGHT.exec(param)
      if (weight !== null) q = Number(weight[1])
    }
    const specificity = type === '*/*' || type === '*' ? 1 : type.endsWith('/*') ? 2 : 3
    ranges.push({ type, q, specificity })
  }
  return ranges
}

/**
 * Which of `supported` the client prefers, or `fallback`: ranges by weight, then the more specific,
 * then the header's order; `type/*` names a supported type the header does not name itself, and
 * `*\/*` names none (so it gets the fallback).
 *
 * @example
 * preferred('application/x-ndjson, application/json;q=0.5', ['application/json', NDJSON], 'application/json')
 * // 'application/x-ndjson'
 */
export function preferred<T extends string>(
  header: string | undefined,
  supported: readonly T[],
  fallback: T,
): T {
  if (!header) return fallback
  const ranges = mediaRanges(header)
  const named = new Set(ranges.filter((range) => range.specificity === 3).map(({ type }) => type))
  const ordered = ranges
    .filter((range) => range.q > 0)
    .sort((a, b) => b.q - a.q || b.specificity - a.specificity)
  for (const { type, specificity } of ordered) {
    const match =
      specificity === 3
        ? supported.find((candidate) => candidate === type)
        : specificity === 2
          ? supported.find(
              (candidate) => candidate.startsWith(type.slice(0, -1)) && !named.has(candidate),
            )
          : undefined
    if (match !== undefined) return match
  }
  return fallback
}

/** True when the client asks for NDJSON ahead of JSON (`Accept: *\/*` and none get JSON). */
export function wantsNdjson(c: Context): boolean {
  return (
    preferred(c.req.header('accept'), ['application/json', NDJSON], 'application/json') === NDJSON
  )
}

/**
 * An answer whose body is made as the client reads: `next()` gives the next chunk (for NDJSON,
 * lines each ending in a newline), or undefined at the end. So a 100,000-URL answer never sits in
 * memory at once, and the first chunk leaves while later ones are still being signed. The first
 * chunk is made before the answer is: a failure to start signing is still a problem answer, not a
 * 200 cut short.
 */
export async function streamed(
  next: () => Promise<string | undefined>,
  type: 'json' | 'ndjson',
  headers: Record<string, string>,
): Promise<Response> {
  const encoder = new TextEncoder()
  let first: string | undefined = await next()
  let started = false
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = started ? await next() : first
      started = true
      first = undefined
      if (chunk === undefined) controller.close()
      else controller.enqueue(encoder.encode(chunk))
    },
  })
  const contentType = type === 'json' ? 'application/json' : `${NDJSON}; charset=utf-8`
  return new Response(stream, { headers: { ...headers, 'content-type': contentType } })
}

/**
 * A JSON body already serialized, for answers assembled from parts: `JSON.stringify` of 10,000
 * small objects costs more than signing them. `T` is what the text holds, as its maker declares
 * (the contract test checks the text itself against the route's schema).
 */
export class RawJson<T> {
  declare readonly holds?: T
  constructor(readonly text: string) {}

  /** `value` serialized once, keeping its type: for an answer that needs its text first (an ETag). */
  static of<T>(value: T): RawJson<T> {
    return new RawJson<T>(JSON.stringify(value))
  }
}

/**
 * An answer typed by the JSON it carries, as Hono's `c.json` types its own (so the app's type,
 * `WaybillApi`, knows each route's answer).
 */
export type JsonAnswer<T, S extends 200 | 201 = 200> = Response &
  TypedResponse<JSONParsed<T>, S, 'json'>

/**
 * A route's success answer, in one place: its schema describes it in the document (`response`)
 * and types what the handler may answer with (`json`), so an answer that drifts from its schema
 * does not compile (and the contract test, test/contract/, checks the bytes at run time).
 *
 * @example
 * const KEY = new Answer(KeyAnswer, 'The key')
 * // describeRoute({ responses: { 200: KEY.response, ... } }), then in the handler:
 * return KEY.json(c, await getKey(config, id))
 */
export class Answer<TSchema extends v.GenericSchema, TStatus extends 200 | 201 = 200> {
  /** The operation's response for `status` in the OpenAPI document. */
  readonly response: ReturnType<typeof jsonContent>

  /** `ndjson` describes the lines of the same answer as NDJSON, for routes that stream it. */
  constructor(
    schema: TSchema,
    description: string,
    readonly status: TStatus = 200 as TStatus,
    ndjson?: string,
  ) {
    // Read by the document's generator only: the Workers' bundles (DOCS: src/docs.d.ts) keep none of it.
    this.response = !DOCS
      ? ({} as ReturnType<typeof jsonContent>)
      : ndjson === undefined
        ? jsonContent(schema, description)
        : jsonOrNdjsonContent(schema, description, ndjson)
  }

  /** `body`, of the schema's type, as this answer: serialized here, or `RawJson` as it is. */
  json(
    c: Context,
    body: v.InferInput<TSchema> | RawJson<v.InferInput<TSchema>>,
    headers: Record<string, string> = {},
  ): JsonAnswer<v.InferInput<TSchema>, TStatus> {
    const text = body instanceof RawJson ? body.text : JSON.stringify(body)
    const answer = c.body(text, this.status, { ...headers, 'content-type': 'application/json' })
    // Hono types a body it did not serialize as text; this one is the JSON of the schema's type.
    return answer as unknown as JsonAnswer<v.InferInput<TSchema>, TStatus>
  }
}

/**
 * `private, max-age=N` where N leaves the earliest-expiring URL `CACHE_MARGIN_S` of life when the
 * cached copy is last used; `no-store` when there is nothing left to cache. For the routes that
 * earn a cache rule (see the top of this file).
 *
 * @example
 * privateUntil(new Date('2026-11-23T11:15:00Z'), new Date('2026-11-23T10:17:00Z'))
 * // 'private, max-age=3420'
 */
export function privateUntil(expiresAt: Date, now: Date): string {
  const remaining = Math.floor((expiresAt.getTime() - now.getTime()) / 1000)
  const maxAge = remaining - CACHE_MARGIN_S
  return maxAge > 0 ? `private, max-age=${maxAge}` : 'no-store'
}

/**
 * A 302 to `location` with `headers`, built in one step: the redirect and the followed link answer
 * this on every request, and each header set through the context is a call into the runtime.
 */
export function found(location: string, headers: Readonly<Record<string, string>>): Response {
  return new Response(null, { status: 302, headers: { ...headers, location } })
}

// Not Hono's etag middleware: it hashes whatever body passes, streams included (it would hold a
// 100,000-line NDJSON answer in memory), and answers 304 to POSTs.
/** A strong ETag: the SHA-256 of the body, so equal bodies (same signing window) match. */
export async function etagOf(body: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body)),
  )
  let hex = ''
  for (let i = 0; i < 16; i++) hex += digest[i]!.toString(16).padStart(2, '0')
  return `"${hex}"`
}

/** True when an `If-None-Match` header lists `etag` (or `*`). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag)
}
