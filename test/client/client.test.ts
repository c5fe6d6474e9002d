// Signing, listing, redirect URLs and links through the client, against the fake waybill.

import { describe, expect, it } from 'vitest'
import { createClient, WaybillError } from '../../client/src/index.ts'
import { redirectUrl } from '../../client/src/redirect.ts'
import { listStream, signStream } from '../../client/src/stream.ts'
import { fakeWaybill, seal, WAYBILL } from '../helpers/fake-waybill.ts'

const listing = Array.from({ length: 7 }, (_, i) => ({ key: `gallery/${i}.png`, size: i }))

describe('sign', () => {
  it('answers the JSON of POST /v1/sign', async () => {
    const fake = fakeWaybill()
    const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch })
    const answer = await client.sign({
      origin: 'photos',
      keys: ['a b.jpg', 'c.png'],
      expiresIn: 60,
    })
    expect(answer.urls.map((u) => u.key)).toEqual(['a b.jpg', 'c.png'])
    expect(fake.log[0]!.body).toEqual({
      origin: 'photos',
      keys: ['a b.jpg', 'c.png'],
      expiresIn: 60,
    })
  })

  it('streams NDJSON lines, put back together across chunks', async () => {
    const fake = fakeWaybill()
    const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch })
    const keys = Array.from({ length: 25 }, (_, i) => `k/${i} ü.txt`)
    const got: string[] = []
    for await (const { key, url } of signStream(client, { origin: 'photos', keys })) {
      expect(url).toContain(encodeURIComponent(key))
      got.push(key)
    }
    expect(got).toEqual(keys)
    expect(fake.log[0]!.headers.get('accept')).toBe('application/x-ndjson')
  })
})

describe('list', () => {
  it('iterates objects across pages, following the cursor', async () => {
    const fake = fakeWaybill({ listing })
    const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch })
    const keys: string[] = []
    for await (const object of client.list('photos', { prefix: 'gallery/', limit: 3 })) {
      keys.push(object.key)
    }
    expect(keys).toEqual(listing.map((o) => o.key))
    const pages = fake.log.map((r) => r.url.search)
    expect(pages).toEqual([
      '?prefix=gallery%2F&limit=3',
      `?prefix=gallery%2F&limit=3&cursor=${seal(3)}`,
      `?prefix=gallery%2F&limit=3&cursor=${seal(6)}`,
    ])
  })

  it('gives pages, and stops asking when the loop is left', async () => {
    const fake = fakeWaybill({ listing })
    const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch })
    for await (const page of client.listPages('photos', { limit: 5, prefix: ['a/', 'b/'] })) {
      expect(page.items).toHaveLength(5)
      expect(page.cursor).toBe(seal(5))
      break
    }
    expect(fake.log).toHaveLength(1)
    expect(fake.log[0]!.url.search).toBe('?prefix=a%2F&prefix=b%2F&limit=5')
  })

  it('streams NDJSON pages, reading the cursor from each last line', async () => {
    const fake = fakeWaybill({ listing })
    const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch })
    const keys: string[] = []
    for await (const object of listStream(client, 'photos', { limit: 4 })) keys.push(object.key)
    expect(keys).toEqual(listing.map((o) => o.key))
    expect(fake.log.map((r) => r.headers.get('accept'))).toEqual([
      'application/x-ndjson',
      'application/x-ndjson',
    ])
  })
})

describe('redirectUrl', () => {
  const client = createClient({ baseUrl: WAYBILL })

  it('encodes each key segment exactly once', () => {
    expect(redirectUrl(client, 'photos', 'a/cat picture (1).png')).toBe(
      `${WAYBILL}/v1/redirect/photos/a/cat%20picture%20(1).png`,
    )
    expect(redirectUrl(client, 'photos', 'r/100% + more?#.txt')).toBe(
      `${WAYBILL}/v1/redirect/photos/r/100%25%20%2B%20more%3F%23.txt`,
    )
    expect(redirectUrl(client, 'photos', 'docs/résumé/🎉.txt')).toBe(
      `${WAYBILL}/v1/redirect/photos/docs/r%C3%A9sum%C3%A9/%F0%9F%8E%89.txt`,
    )
    // A key's own "%2e" is no dot segment once encoded.
    expect(redirectUrl(client, 'photos', 'a/%2e%2E/b')).toBe(
      `${WAYBILL}/v1/redirect/photos/a/%252e%252E/b`,
    )
    // Leading, trailing and double slashes are part of the key.
    expect(redirectUrl(client, 'photos', '/a//b/')).toBe(`${WAYBILL}/v1/redirect/photos//a//b/`)
    // Decoded once, the path is the key again.
    const key = 'x/%2F y+z'
    const path = new URL(redirectUrl(client, 'photos', key)).pathname
    expect(decodeURIComponent(path.slice('/v1/redirect/photos/'.length))).toBe(key)
  })

  it('adds the options as query parameters, spaces as %20', () => {
    expect(
      redirectUrl(client, 'photos', 'r.pdf', { download: 'Report 2026.pdf', expiresIn: 60 }),
    ).toBe(`${WAYBILL}/v1/redirect/photos/r.pdf?download=Report%202026.pdf&expiresIn=60`)
    expect(redirectUrl(client, 'photos', 'a.png', { inline: true, contentType: 'image/png' })).toBe(
      `${WAYBILL}/v1/redirect/photos/a.png?inline&contentType=image%2Fpng`,
    )
  })

  it('refuses keys a URL path cannot carry', () => {
    for (const key of ['a/../b', './a', 'a/..', '', 'bad\ud800']) {
      expect(() => redirectUrl(client, 'photos', key), key).toThrow(WaybillError)
    }
  })
})

describe('links', () => {
  it('answers the JSON of POST /v1/links', async () => {
    const fake = fakeWaybill()
    const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch })
    const { links } = await client.links({ origin: 'photos', keys: ['r.pdf'], expiresIn: 3600 })
    expect(links).toEqual([{ key: 'r.pdf', url: `${WAYBILL}/l/r.pdf`, id: 'link0' }])
  })

  it('asks for one-time links, and answers how many uses each allows', async () => {
    const fake = fakeWaybill()
    const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch })
    const answer = await client.links({ origin: 'photos', keys: ['r.pdf'], maxUses: 1 })
    expect(fake.log[0]!.body).toEqual({ origin: 'photos', keys: ['r.pdf'], maxUses: 1 })
    expect(answer.maxUses).toBe(1)
  })
})
