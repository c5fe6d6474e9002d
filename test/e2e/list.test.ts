// GET /v1/list against versitygw: the Worker lists with ListObjectsV2 (aws4fetch) and signs a URL
// per object; every URL is fetched back from versitygw.

import { beforeAll, describe, expect, inject, it } from 'vitest'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { ndjsonLines } from '../helpers/requests'
import { apiKeysBinding } from '../helpers/api-keys'
import { e2eOrigin, objectUrl, store, workerEnv } from '../helpers/worker-env'
import { mapConcurrent } from '../helpers/concurrency'

const s3 = inject('s3')
const keys = inject('testKeys')
const NOW = new Date()
const app = createApp({ clock: () => NOW })
const ROOT = `list-${crypto.randomUUID().slice(0, 8)}`
const BIG = 2500
const bigKey = (i: number) => `${ROOT}/big/${String(i).padStart(4, '0')}.txt`
const TREE = [
  'a.txt',
  'b/c.txt',
  'b/d/e.txt',
  'e/f.txt',
  'z.txt',
  'é/x.txt',
  '😀/y.txt',
  'ｚ/w.txt',
]

const KEYS = { all: 'wb_test_list_all_0123456789', lister: 'wb_test_list_only_0123456789' }

let listEnv: Env

beforeAll(async () => {
  listEnv = {
    ...workerEnv,
    WAYBILL_ORIGINS: JSON.stringify({
      // The lister's prefix grants need the safe key policy.
      e2e: { ...e2eOrigin(), keys: 'safe' },
      cdn: {
        type: 'cloudfront',
        baseUrl: 'https://cdn.example.com',
        keyPairId: 'K2JCJMDEHXQW5F',
        privateKey: 'CDN_PRIVATE_KEY',
        listFrom: 'e2e',
        keys: 'any',
      },
      bare: {
        type: 'cloudfront',
        baseUrl: 'https://bare.example.com',
        keyPairId: 'K2JCJMDEHXQW5F',
        privateKey: 'CDN_PRIVATE_KEY',
      },
    }),
    CDN_PRIVATE_KEY: keys.ecPkcs8,
    WAYBILL_API_KEYS: await apiKeysBinding([
      { id: 'all', key: KEYS.all },
      { id: 'lister', key: KEYS.lister },
    ]),
    WAYBILL_GRANTS: JSON.stringify([
      { to: 'apiKey:all', origin: 'e2e', actions: ['read', 'write', 'list'] },
      { to: 'apiKey:all', origin: 'cdn', actions: ['read', 'list'] },
      { to: 'apiKey:all', origin: 'bare', actions: ['read', 'list'] },
      { to: 'apiKey:lister', origin: 'e2e', prefix: `${ROOT}/`, actions: ['list'] },
      { to: 'apiKey:lister', origin: 'e2e', prefix: `${ROOT}/tree/b/`, actions: ['read'] },
    ]),
  }
  // Seeding goes straight to the store, not through the code under test.
  const all = [
    ...Array.from({ length: BIG }, (_, i) => bigKey(i)),
    ...TREE.map((k) => `${ROOT}/tree/${k}`),
  ]
  await mapConcurrent(all, 16, async (key) => {
    const response = await store.fetch(objectUrl(key), { method: 'PUT', body: `body of ${key}` })
    if (!response.ok) throw new Error(`seeding ${key}: ${response.status}`)
  })
}, 120_000)

interface Listing {
  origin: string
  items: { key: string; size: number; etag: string; lastModified: string; url?: string }[]
  prefixes: string[]
  cursor: string | null
  expiresAt: string | null
}

async function list(
  query: Record<string, string | string[]>,
  options: { key?: string; origin?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, v)
  }
  return app.request(
    `/v1/list/${options.origin ?? 'e2e'}?${params.toString()}`,
    { headers: { authorization: `Bearer ${options.key ?? KEYS.all}`, ...options.headers } },
    listEnv,
  )
}

async function listing(
  query: Record<string, string | string[]>,
  options: { key?: string; origin?: string } = {},
): Promise<Listing> {
  const response = await list(query, options)
  expect(response.status, await response.clone().text()).toBe(200)
  return await response.json<Listing>()
}

/** Every page of a listing, following cursors. */
async function allPages(query: Record<string, string | string[]>): Promise<Listing[]> {
  const pages: Listing[] = []
  let cursor: string | null = null
  do {
    const page = await listing(cursor === null ? query : { ...query, cursor })
    pages.push(page)
    cursor = page.cursor
  } while (cursor !== null && pages.length < 100)
  return pages
}

/** versitygw's own ListObjectsV2 answer, all pages: the reference for S3 semantics. */
async function storeListing(prefix: string, delimiter?: string): Promise<string[]> {
  const names: string[] = []
  let token: string | undefined
  do {
    const params = new URLSearchParams({ 'list-type': '2', prefix })
    if (delimiter !== undefined) params.set('delimiter', delimiter)
    if (token !== undefined) params.set('continuation-token', token)
    const xml = await (
      await store.fetch(`${s3.endpoint}/${s3.bucket}/?${params.toString()}`)
    ).text()
    for (const [, name] of xml.matchAll(/<(?:Key|Prefix)>([^<]*)<\/(?:Key|Prefix)>/g)) {
      if (name !== prefix) names.push(name!.replace(/&amp;/g, '&'))
    }
    token = /<NextContinuationToken>([^<]+)</.exec(xml)?.[1]
  } while (token !== undefined)
  return names.sort()
}

describe('GET /v1/list against versitygw', () => {
  it(`pages through ${BIG} objects: every key exactly once, each URL fetching its object`, async () => {
    const pages = await allPages({ prefix: `${ROOT}/big/`, limit: '1000' })
    expect(pages.map((p) => p.items.length)).toEqual([1000, 1000, 500])
    const items = pages.flatMap((p) => p.items)
    expect(items.map((i) => i.key)).toEqual(Array.from({ length: BIG }, (_, i) => bigKey(i)))
    await mapConcurrent(items, 16, async (item) => {
      const response = await fetch(item.url!)
      expect(response.status, item.key).toBe(200)
      expect(await response.text()).toBe(`body of ${item.key}`)
      expect(item.size).toBe(`body of ${item.key}`.length)
    })
    expect(items[0]!.etag).toMatch(/^"?[0-9a-f]{32}"?$/)
    expect(Number.isNaN(Date.parse(items[0]!.lastModified))).toBe(false)
  }, 120_000)

  it('returns up to 10,000 entries in one call, across S3 pages', async () => {
    const page = await listing({ prefix: `${ROOT}/big/`, limit: '10000' })
    expect(page.items).toHaveLength(BIG)
    expect(new Set(page.items.map((i) => i.key)).size).toBe(BIG)
    expect(page.cursor).toBeNull()
  })

  it('groups by delimiter like S3 does, in UTF-8 order', async () => {
    const prefix = `${ROOT}/tree/`
    const page = await listing({ prefix, delimiter: '/' })
    expect(page.items.map((i) => i.key)).toEqual([`${prefix}a.txt`, `${prefix}z.txt`])
    expect(page.prefixes).toEqual(['b/', 'e/', 'é/', 'ｚ/', '😀/'].map((p) => prefix + p))
    const ours = [...page.items.map((i) => i.key), ...page.prefixes].sort()
    expect(ours).toEqual(await storeListing(prefix, '/'))
    expect(await listing({ prefix: `${prefix}b/` }).then((p) => p.items.map((i) => i.key))).toEqual(
      await storeListing(`${prefix}b/`),
    )
  })

  it('resumes after common prefixes without repeating them (limit 1 and 2)', async () => {
    const prefix = `${ROOT}/tree/`
    const whole = await listing({ prefix, delimiter: '/' })
    const expected = [...whole.items.map((i) => i.key), ...whole.prefixes].sort()
    for (const limit of ['1', '2']) {
      const pages = await allPages({ prefix, delimiter: '/', limit })
      const names = pages.flatMap((p) => [...p.items.map((i) => i.key), ...p.prefixes])
      expect(names.sort()).toEqual(expected)
    }
  })

  it('lists several prefixes in order and pages across them', async () => {
    const prefixes = [`${ROOT}/tree/b/`, `${ROOT}/tree/e/`, `${ROOT}/missing/`, `${ROOT}/tree/😀/`]
    const whole = await listing({ prefix: prefixes })
    expect(whole.items.map((i) => i.key)).toEqual(
      ['b/c.txt', 'b/d/e.txt', 'e/f.txt', '😀/y.txt'].map((k) => `${ROOT}/tree/${k}`),
    )
    const pages = await allPages({ prefix: prefixes, limit: '1' })
    expect(pages.flatMap((p) => p.items.map((i) => i.key))).toEqual(whole.items.map((i) => i.key))
  })

  it('a list grant without read gets keys but no URLs; read where granted', async () => {
    const page = await listing({ prefix: `${ROOT}/tree/` }, { key: KEYS.lister })
    expect(page.items).toHaveLength(TREE.length)
    for (const item of page.items) {
      if (item.key.startsWith(`${ROOT}/tree/b/`)) {
        expect(item.url).toBeDefined()
        expect((await fetch(item.url!)).status).toBe(200)
      } else expect(item.url).toBeUndefined()
    }
    const none = await list({ prefix: `${ROOT}/big/` }, { key: KEYS.lister })
    expect(none.status).toBe(200)
    const body = await none.json<Listing>()
    expect(body.items.every((i) => i.url === undefined)).toBe(true)
    expect(none.headers.get('cache-control')).toBe('no-store')
  })

  it('refuses prefixes a list grant does not wholly contain', async () => {
    const response = await list({ prefix: [`${ROOT}/tree/`, 'other/'] }, { key: KEYS.lister })
    expect(response.status).toBe(403)
    const problem = await response.json<{ detail: string; errors: { path: string }[] }>()
    expect(problem.errors.map((e) => e.path)).toEqual(['prefix.1'])
    // A listing's wording, not a batch's ("1 entry is not covered…; nothing was signed").
    expect(problem.detail).toBe(
      "This listing is not covered by this caller's grants to list; nothing was listed.",
    )
    // "list-x" would also reach "list-xyz/…".
    expect((await list({ prefix: ROOT }, { key: KEYS.lister })).status).toBe(403)
  })

  it('names `prefix` when a refused listing sent none (the whole origin)', async () => {
    const response = await list({}, { key: KEYS.lister })
    expect(response.status).toBe(403)
    const problem = await response.json<{ detail: string; errors: unknown[] }>()
    expect(problem.detail).toBe(
      "This listing is not covered by this caller's grants to list; nothing was listed.",
    )
    expect(problem.errors).toEqual([
      {
        path: 'prefix',
        message: 'is absent or empty, which lists the whole origin: no grant to list covers it',
      },
    ])
  })

  it('a CloudFront origin lists its S3 origin and signs CloudFront URLs', async () => {
    const page = await listing({ prefix: `${ROOT}/tree/b/` }, { origin: 'cdn' })
    expect(page.items.map((i) => i.key)).toEqual([`${ROOT}/tree/b/c.txt`, `${ROOT}/tree/b/d/e.txt`])
    for (const item of page.items) {
      const url = new URL(item.url!)
      expect(url.origin).toBe('https://cdn.example.com')
      expect(decodeURIComponent(url.pathname)).toBe(`/${item.key}`)
      expect(url.searchParams.get('Key-Pair-Id')).toBe('K2JCJMDEHXQW5F')
      expect(url.searchParams.get('Signature')).toBeTruthy()
    }
    // An origin that cannot be listed answers as one without a grant to list (403).
    const bare = await list({ prefix: `${ROOT}/` }, { origin: 'bare' })
    expect(bare.status).toBe(403)
    expect(await bare.text()).toMatch(/listFrom/)
  })

  it('caches no longer than the URLs live, with an ETag that answers 304', async () => {
    const first = await list({ prefix: `${ROOT}/tree/`, expiresIn: '600' })
    // 600 s of life less the minute of margin (less the sub-second part of the fixed clock).
    expect(first.headers.get('cache-control')).toMatch(/^private, max-age=(539|540)$/)
    const etag = first.headers.get('etag')!
    const body = await first.json<Listing>()
    expect(Date.parse(body.expiresAt!) - NOW.getTime()).toBeGreaterThanOrEqual(599_000)
    const again = await list(
      { prefix: `${ROOT}/tree/`, expiresIn: '600' },
      { headers: { 'if-none-match': etag } },
    )
    expect(again.status).toBe(304)
  })

  it('streams NDJSON: one line per item, then the prefixes and cursor', async () => {
    const response = await list(
      { prefix: `${ROOT}/tree/`, delimiter: '/' },
      { headers: { accept: 'application/x-ndjson' } },
    )
    const lines = await ndjsonLines(response)
    expect(lines).toHaveLength(3)
    expect(lines[2]).toEqual({ prefixes: expect.any(Array) as unknown, cursor: null })
  })

  it(`streams ${BIG} items as NDJSON in signed chunks, the same as the JSON answer`, async () => {
    const query = { prefix: `${ROOT}/big/`, limit: '10000' }
    const response = await list(query, { headers: { accept: 'application/x-ndjson' } })
    expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
    const lines = await ndjsonLines(response)
    expect(lines).toHaveLength(BIG + 1)
    expect(lines.at(-1)).toEqual({ prefixes: [], cursor: null })
    const json = await listing(query)
    expect(lines.slice(0, -1)).toEqual(json.items)
  })

  it('answers bad queries with problems naming the parameter', async () => {
    const cases: Array<[Record<string, string | string[]>, string]> = [
      [{ limit: '0' }, 'limit'],
      [{ limit: '10001' }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ cursor: 'not-a-cursor' }, 'cursor'],
      [{ delimiter: '' }, 'delimiter'],
      [{ prefix: ['a/', 'a/'] }, 'prefix.1'],
      [{ expiresIn: '0' }, 'expiresIn'],
      [{ colour: 'blue' }, 'colour'],
    ]
    for (const [query, path] of cases) {
      const response = await list(query)
      expect(response.status, JSON.stringify(query)).toBe(400)
      expect(response.headers.get('content-type')).toBe('application/problem+json')
      const problem = await response.json<{ errors: { path: string }[] }>()
      expect(problem.errors[0]!.path).toBe(path)
    }
    const page = await listing({ prefix: `${ROOT}/tree/`, limit: '1' })
    // Well formed, sealed for another listing: refused as a handle or receipt would be (403).
    const other = await list({ prefix: `${ROOT}/big/`, cursor: page.cursor! })
    expect(other.status).toBe(403)
    expect((await other.json<{ errors: { path: string }[] }>()).errors[0]!.path).toBe('cursor')
  })
})
