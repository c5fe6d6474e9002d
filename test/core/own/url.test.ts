// Waybill's own URLs: the signature is the documented HMAC (checked against Web Crypto, for a
// batch that fills the hasher's four lanes and one that does not), every URL verifies back to
// what was signed, and every way of changing one is refused with its reason.

import { describe, expect, it } from 'vitest'
import {
  ownPath,
  parseOwnPath,
  prepareOwnSigner,
  termsQuery,
  verifyOwnHref,
  verifyOwnUrl,
  type OwnBatch,
  type OwnTerms,
} from '../../../src/core/own/url'

const SECRETS = [
  { id: 'k2', secret: 'own-url-test-secret-0123456789abcdef' },
  { id: 'k1', secret: 'older-own-url-test-secret-abcdef0123' },
]
const BATCH: OwnBatch = {
  secrets: SECRETS,
  base: 'https://files.example.com',
  origin: 'media',
  method: 'GET',
  expires: 1_900_000_000,
  issuer: 'web',
}
const NOW_S = 1_899_999_000
const encoder = new TextEncoder()

async function webCryptoSignature(secret: string, prefix: string, message: string) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(message)))
  const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(prefix + hex(digest)))
  return hex(new Uint8Array(mac, 0, 16))
}

describe('prepareOwnSigner', () => {
  it.each([1, 4, 6])(
    'signs %i URLs with HMAC-SHA256 of the prefix and the hash of path and terms',
    async (count) => {
      const items = Array.from({ length: count }, (_, n) => ({
        key: n % 2 === 0 ? `gallery/ü ${n}.jpg` : `a/../b${n}`,
        terms: n === 1 ? { response: { contentDisposition: 'attachment' } } : undefined,
      }))
      const signer = prepareOwnSigner(BATCH)
      const urls = signer.signAll(items)
      expect(urls).toHaveLength(count)
      for (const [n, url] of urls.entries()) {
        const { prefix, message } = signer.explain(items[n]!)
        expect(prefix).toMatch(/^waybill-o-v1\nGET\nmedia\n1900000000\nk2\n[A-Za-z0-9_-]+\n$/)
        const s = new URL(url).searchParams.get('s')
        expect(s).toBe(await webCryptoSignature(SECRETS[0]!.secret, prefix, message))
      }
    },
  )

  it('writes the URL on the base, with the key as a path and the issuer concealed', () => {
    const [url] = prepareOwnSigner(BATCH).signAll([{ key: 'cats/tom & jerry.jpg' }])
    expect(url).toMatch(
      /^https:\/\/files\.example\.com\/o\/media\/cats\/tom%20%26%20jerry\.jpg\?x=1900000000&k=k2&i=[A-Za-z0-9_-]{12,}&s=[0-9a-f]{32}$/,
    )
    expect(url).not.toContain('web')
  })

  it('gives the same URL within one batch shape, and another for another issuer', () => {
    const first = prepareOwnSigner(BATCH).signAll([{ key: 'a.jpg' }])
    expect(prepareOwnSigner(BATCH).signAll([{ key: 'a.jpg' }])).toEqual(first)
    expect(prepareOwnSigner({ ...BATCH, issuer: 'app' }).signAll([{ key: 'a.jpg' }])).not.toEqual(
      first,
    )
  })
})

describe('verifyOwnUrl', () => {
  const TERMS: OwnTerms = {
    contentType: 'image/png',
    length: 1234,
    checksumSha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    metadata: { 'waybill-upload': 'u1', alpha: 'ä' },
    overwrite: true,
  }

  it('answers what a URL allows: origin, key, method, expiry, issuer and terms', () => {
    for (const issuer of ['web', null]) {
      const [url] = prepareOwnSigner({ ...BATCH, method: 'PUT', issuer }).signAll([
        { key: 'up/ü.png', terms: TERMS },
      ])
      const grant = verifyOwnUrl(SECRETS, new URL(url!), 'PUT', NOW_S)
      expect(grant).toEqual({
        origin: 'media',
        key: 'up/ü.png',
        method: 'PUT',
        expires: 1_900_000_000,
        issuer,
        terms: { ...TERMS, response: undefined, uploadId: undefined, partNumber: undefined },
      })
    }
  })

  it('verifies a URL signed by an older secret still listed', () => {
    const [url] = prepareOwnSigner({ ...BATCH, secrets: [SECRETS[1]!] }).signAll([{ key: 'a' }])
    expect(verifyOwnUrl(SECRETS, new URL(url!), 'GET', NOW_S)).toMatchObject({ key: 'a' })
    expect(verifyOwnUrl([SECRETS[0]!], new URL(url!), 'GET', NOW_S)).toEqual({
      fault: 'unknown_secret',
    })
  })

  const [signed] = prepareOwnSigner(BATCH).signAll([
    { key: 'a/b.jpg', terms: { response: { contentType: 'image/jpeg' } } },
  ])
  const changed = (edit: (url: URL) => void) => {
    const url = new URL(signed!)
    edit(url)
    return url
  }

  it.each([
    ['another key', (u: URL) => (u.pathname = '/o/media/a/c.jpg'), 'tampered'],
    ['another origin', (u: URL) => (u.pathname = '/o/other/a/b.jpg'), 'tampered'],
    ['a later expiry', (u: URL) => u.searchParams.set('x', '1900000001'), 'tampered'],
    [
      'another override',
      (u: URL) => u.searchParams.set('response-content-type', 'text/html'),
      'tampered',
    ],
    ['a dropped override', (u: URL) => u.searchParams.delete('response-content-type'), 'tampered'],
    ['another signature', (u: URL) => u.searchParams.set('s', '0'.repeat(32)), 'tampered'],
    ['an added term', (u: URL) => (u.search += '&w=1'), 'tampered'],
    ['an unknown parameter', (u: URL) => (u.search += '&z=1'), 'malformed'],
    ['a repeated parameter', (u: URL) => (u.search += '&x=1900000000'), 'malformed'],
    [
      'an expiry spelled otherwise',
      (u: URL) => u.searchParams.set('x', '01900000000'),
      'malformed',
    ],
    ['a short signature', (u: URL) => u.searchParams.set('s', 'abc'), 'malformed'],
    ['no signature', (u: URL) => u.searchParams.delete('s'), 'malformed'],
    ['a path outside /o/', (u: URL) => (u.pathname = '/v1/a/b.jpg'), 'malformed'],
  ])('refuses %s', (_, edit, fault) => {
    expect(verifyOwnUrl(SECRETS, changed(edit), 'GET', NOW_S)).toEqual({ fault })
  })

  it('refuses another method, and an expired URL only once its signature holds', () => {
    expect(verifyOwnUrl(SECRETS, new URL(signed!), 'PUT', NOW_S)).toEqual({ fault: 'tampered' })
    expect(verifyOwnUrl(SECRETS, new URL(signed!), 'GET', 1_900_000_000)).toEqual({
      fault: 'expired',
    })
    const forged = changed((u) => u.searchParams.set('x', '1'))
    expect(verifyOwnUrl(SECRETS, forged, 'GET', NOW_S)).toEqual({ fault: 'tampered' })
  })

  it('verifyOwnHref: a read URL verified again from what it kept, its expiry judged each time', () => {
    const [url] = prepareOwnSigner(BATCH).signAll([{ key: 'kept/a.jpg' }])
    const first = verifyOwnHref(SECRETS, url!, 'GET', NOW_S)
    expect(first).toEqual(verifyOwnUrl(SECRETS, new URL(url!), 'GET', NOW_S))
    expect(verifyOwnHref(SECRETS, url!, 'GET', NOW_S)).toEqual(first)
    expect(verifyOwnHref(SECRETS, url!, 'GET', 1_900_000_000)).toEqual({ fault: 'expired' })
    // Kept per secret list: one without the URL's secret, or with another under its id, refuses.
    expect(verifyOwnHref([SECRETS[1]!], url!, 'GET', NOW_S)).toEqual({ fault: 'unknown_secret' })
    const sameId = [{ id: 'k2', secret: 'a-new-secret-under-the-old-id-0123456' }]
    expect(verifyOwnHref(sameId, url!, 'GET', NOW_S)).toEqual({ fault: 'tampered' })
    // Any other text is verified afresh: another method, one changed character.
    expect(verifyOwnHref(SECRETS, url!, 'PUT', NOW_S)).toEqual({ fault: 'tampered' })
    const last = url!.at(-1) === '0' ? '1' : '0'
    expect(verifyOwnHref(SECRETS, `${url!.slice(0, -1)}${last}`, 'GET', NOW_S)).toEqual({
      fault: 'tampered',
    })
    expect(verifyOwnHref(SECRETS, url!, 'GET', NOW_S)).toEqual(first)
  })

  it('judges each URL of a batch by its own bytes when the batch prefix is kept from the first', () => {
    const signer = prepareOwnSigner(BATCH)
    const urls = signer.signAll([{ key: 'g/1.jpg' }, { key: 'g/2.jpg' }, { key: 'g/3.jpg' }])
    for (const url of urls) {
      expect(verifyOwnUrl(SECRETS, new URL(url), 'GET', NOW_S)).toMatchObject({ issuer: 'web' })
    }
    // The same prefix and `i`, kept from above: another key's signature still does not pass.
    const swapped = new URL(urls[0]!)
    swapped.searchParams.set('s', new URL(urls[1]!).searchParams.get('s')!)
    expect(verifyOwnUrl(SECRETS, swapped, 'GET', NOW_S)).toEqual({ fault: 'tampered' })
  })

  it('keeps nothing across secrets that share an id: another secret under "k2" refuses the URL', () => {
    const [url] = prepareOwnSigner(BATCH).signAll([{ key: 'a' }])
    expect(verifyOwnUrl(SECRETS, new URL(url!), 'GET', NOW_S)).toMatchObject({ key: 'a' })
    const impostor = [{ id: 'k2', secret: 'another-secret-under-the-same-id-0000' }]
    expect(verifyOwnUrl(impostor, new URL(url!), 'GET', NOW_S)).toEqual({ fault: 'tampered' })
  })
})

describe('ownPath and parseOwnPath', () => {
  it.each([
    ['cats/tom.jpg', '/o/media/cats/tom.jpg'],
    ['a b/ü+c', '/o/media/a%20b/%C3%BC%2Bc'],
    ['a/../b', '/o/media/a%2F..%2Fb'],
    ['./x', '/o/media/.%2Fx'],
  ])('writes %j as %s, which parses back', (key, path) => {
    expect(ownPath('media', key)).toBe(path)
    expect(parseOwnPath(path)).toEqual({ origin: 'media', key })
    // What a URL parser makes of the path keeps it.
    expect(new URL(`https://w.example${path}`).pathname).toBe(path)
  })

  it('refuses keys that cannot be a path', () => {
    expect(() => ownPath('media', '..')).toThrow(/only dots/)
    expect(() => ownPath('media', '')).toThrow()
    expect(parseOwnPath('/o/media/..')).toBeUndefined()
    expect(parseOwnPath('/o/Media/a')).toBeUndefined()
    expect(parseOwnPath('/o/media/%E0%A4%A')).toBeUndefined()
    expect(parseOwnPath('/o/media')).toBeUndefined()
  })
})

describe('termsQuery', () => {
  it('writes each term once, in code point order, metadata with sorted names', () => {
    expect(
      termsQuery({
        overwrite: true,
        uploadId: 'u 1',
        contentType: 'text/plain',
        response: { contentDisposition: 'inline' },
        partNumber: 2,
        metadata: { b: '1', a: '2' },
        length: 5,
        checksumSha256: 'a+b=',
      }),
    ).toBe(
      '&c=a%2Bb%3D&l=5&m=%7B%22a%22%3A%222%22%2C%22b%22%3A%221%22%7D&n=2' +
        '&response-content-disposition=inline&t=text%2Fplain&u=u%201&w=1',
    )
    expect(termsQuery({ overwrite: false })).toBe('')
  })
})
