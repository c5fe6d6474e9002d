// Reading an R2 origin's objects through the Worker: ranges and conditional requests answered as
// R2's own API answers them, URLs refused when tampered with, expired or issued by a key that no
// longer stands, an edge-cached copy never served for a URL that fails, and content a browser
// would run served as a download unless a grant names its type.

import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { createAdminApp } from '../../../src/admin/app'
import { createApp } from '../../../src/app'
import type { Env } from '../../../src/env'
import { CONTROL_MAX_AGE_MS } from '../../../src/limits'
import { admin, withControl } from '../../helpers/control-plane'
import { apiCall, browserRequest, r2Bucket, r2Env, signedUrls } from '../../helpers/r2'

const KEY = `wb_test_r2_delivery_${crypto.randomUUID()}`
const FOLDER = `r2-delivery-${crypto.randomUUID().slice(0, 8)}/`
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz'
const app = createApp()
const adminApp = createAdminApp()
let env: Env

beforeAll(async () => {
  env = await r2Env(KEY)
  await r2Bucket().put(`${FOLDER}alphabet.txt`, ALPHABET, {
    httpMetadata: { contentType: 'text/plain' },
  })
})

const get = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
  browserRequest(app, env, url, { method, headers })

describe('ranges, as R2 answers them', () => {
  it('serves each single range R2 serves, with its Content-Range', async () => {
    const key = `${FOLDER}alphabet.txt`
    const [url] = await signedUrls(app, env, KEY, { keys: [key] })
    for (const range of [
      'bytes=0-9',
      'bytes=5-',
      'bytes=-5',
      'bytes=20-100',
      'bytes=-100',
      'bytes=25-25',
    ]) {
      const ours = await get(url!, { range })
      const theirs = (await r2Bucket().get(key, { range: new Headers({ range }) })) as R2ObjectBody
      const { offset, length } = theirs.range as { offset: number; length: number }
      expect(ours.status, range).toBe(206)
      expect(await ours.text(), range).toBe(await theirs.text())
      expect(ours.headers.get('content-range'), range).toBe(
        `bytes ${offset}-${offset + length - 1}/26`,
      )
      expect(ours.headers.get('content-length'), range).toBe(String(length))
    }
  })

  it('answers 416 where R2 refuses a range as unsatisfiable', async () => {
    const key = `${FOLDER}alphabet.txt`
    const [url] = await signedUrls(app, env, KEY, { keys: [key] })
    for (const [range, asked] of [
      ['bytes=26-', { offset: 26 }],
      ['bytes=100-200', { offset: 100, length: 101 }],
    ] as const) {
      await expect(r2Bucket().get(key, { range: asked })).rejects.toThrow(/not satisfiable/)
      const ours = await get(url!, { range })
      expect(ours.status, range).toBe(416)
      expect(ours.headers.get('content-range')).toBe('bytes */26')
      expect(ours.headers.get('content-type')).toBe('application/problem+json')
    }
  })

  it('serves the whole object for a Range it does not honour (several ranges, another unit)', async () => {
    const [url] = await signedUrls(app, env, KEY, { keys: [`${FOLDER}alphabet.txt`] })
    for (const range of ['bytes=0-1,3-4', 'items=0-1', 'bytes=9-3', 'bytes=x-']) {
      const ours = await get(url!, { range })
      expect(ours.status, range).toBe(200)
      expect(await ours.text()).toBe(ALPHABET)
    }
  })
})

describe('conditional requests, as R2 answers them', () => {
  it('answers 304 and 412 exactly where R2 withholds the body', async () => {
    const key = `${FOLDER}alphabet.txt`
    const head = (await r2Bucket().head(key))!
    const past = new Date(head.uploaded.getTime() - 3_600_000).toUTCString()
    const future = new Date(head.uploaded.getTime() + 3_600_000).toUTCString()
    const cases: [Record<string, string>, number][] = [
      [{ 'if-none-match': head.httpEtag }, 304],
      [{ 'if-none-match': '"another"' }, 200],
      [{ 'if-none-match': '*' }, 304],
      [{ 'if-match': head.httpEtag }, 200],
      [{ 'if-match': '"another"' }, 412],
      [{ 'if-modified-since': future }, 304],
      [{ 'if-modified-since': past }, 200],
      [{ 'if-unmodified-since': past }, 412],
      [{ 'if-unmodified-since': future }, 200],
    ]
    const [url] = await signedUrls(app, env, KEY, { keys: [key] })
    for (const [headers, status] of cases) {
      const theirs = await r2Bucket().get(key, { onlyIf: new Headers(headers) })
      const served = theirs !== null && 'body' in theirs
      if (served) await theirs.body.cancel()
      const ours = await get(url!, headers)
      expect(ours.status, JSON.stringify(headers)).toBe(status)
      expect(served, JSON.stringify(headers)).toBe(status === 200)
      if (status === 304) expect(ours.headers.get('etag')).toBe(head.httpEtag)
      await ours.body?.cancel()
    }
  })

  it('answers HEAD with the headers, and 304 to a matching If-None-Match', async () => {
    const key = `${FOLDER}alphabet.txt`
    const [url] = await signedUrls(app, env, KEY, { method: 'HEAD', keys: [key] })
    const headed = await get(url!, {}, 'HEAD')
    expect(headed.status).toBe(200)
    expect(headed.headers.get('content-length')).toBe('26')
    expect(headed.headers.get('accept-ranges')).toBe('bytes')
    const etag = headed.headers.get('etag')!
    expect((await get(url!, { 'if-none-match': etag }, 'HEAD')).status).toBe(304)
  })
})

describe('a URL answers to its issuer, its signature and its expiry', () => {
  it('refuses a URL once the key that issued it is no longer configured', async () => {
    const [url] = await signedUrls(app, env, KEY, { keys: [`${FOLDER}alphabet.txt`] })
    expect((await get(url!)).status).toBe(200)
    const without = { ...env, WAYBILL_API_KEYS: '[]' }
    const refused = await browserRequest(app, without, url!)
    expect(refused.status).toBe(403)
    expect((await refused.json<{ detail: string }>()).detail).toBe(
      'The API key that issued this URL is no longer configured.',
    )
  })

  // The admin plane is another Worker: the data plane learns of the revocation within the control
  // plane's bound (CONTROL_MAX_AGE_MS), its clock moved here, not at the URL's expiry an hour on.
  it("stops a revoked key's URLs within the control plane's bound, long before they expire", async () => {
    const controlled = await withControl(env)
    let nowMs = Date.now()
    const clocked = createApp({ clock: () => new Date(nowMs) })
    const created = await admin(adminApp, controlled, 'POST', '/keys', {
      grants: [{ origin: 'media', actions: ['read'] }],
    })
    expect(created.status, await created.clone().text()).toBe(201)
    const made = await created.json<{ id: string; key: string }>()
    const [url] = await signedUrls(clocked, controlled, made.key, {
      keys: [`${FOLDER}alphabet.txt`],
      expiresIn: 3600,
    })
    expect((await browserRequest(clocked, controlled, url!)).status).toBe(200)
    const revoked = await admin(adminApp, controlled, 'POST', '/revocations', {
      kind: 'key',
      key: made.id,
    })
    expect(revoked.status).toBe(201)
    nowMs += CONTROL_MAX_AGE_MS
    const refused = await browserRequest(clocked, controlled, url!)
    expect(refused.status).toBe(403)
    expect((await refused.json<{ detail: string }>()).detail).toBe(
      'The API key that issued this URL was revoked.',
    )
  })

  it('refuses a URL changed anywhere: key, expiry, an override added, a parameter repeated', async () => {
    const [url] = await signedUrls(app, env, KEY, { keys: [`${FOLDER}alphabet.txt`] })
    const expires = /[?&]x=(\d+)/.exec(url!)![1]!
    const changed = [
      url!.replace('alphabet.txt', 'alphabet.tx'),
      url!.replace(`x=${expires}`, `x=${Number(expires) + 3600}`),
      `${url!}&response-content-type=text%2Fhtml`,
      `${url!}&x=${expires}`,
      url!.replace(/&s=[0-9a-f]+/, ''),
    ]
    for (const tampered of changed) {
      const answer = await get(tampered)
      expect(answer.status, tampered).toBe(403)
    }
  })

  it('refuses an expired URL', async () => {
    const earlier = createApp({ clock: () => new Date(Date.now() - 3_600_000) })
    const [url] = await signedUrls(earlier, env, KEY, {
      keys: [`${FOLDER}alphabet.txt`],
      expiresIn: 60,
    })
    const refused = await get(url!)
    expect(refused.status).toBe(403)
    expect((await refused.json<{ detail: string }>()).detail).toBe('This URL has expired.')
  })
})

describe('the edge cache', () => {
  it('serves its copy only to URLs that verify, and keys it by object, not URL', async () => {
    const cached = await r2Env(KEY, { edgeCacheTtl: 300 })
    const key = `${FOLDER}cached.txt`
    await r2Bucket().put(key, 'first bytes', {
      httpMetadata: {
        contentType: 'text/plain; charset=utf-8',
        contentLanguage: 'en',
        cacheControl: 'max-age=60',
        contentDisposition: 'inline; filename="first.txt"',
      },
    })
    const [url] = await signedUrls(app, cached, KEY, { keys: [key] })
    const ctx = createExecutionContext()
    const first = await browserRequest(app, cached, url!, {}, ctx)
    expect(await first.text()).toBe('first bytes')
    expect(first.headers.get('x-waybill-cache')).toBeNull()
    await waitOnExecutionContext(ctx)
    // Replaced behind the Worker's back: what answers now is the cache's copy.
    await r2Bucket().put(key, 'other bytes')
    const [another] = await signedUrls(app, cached, KEY, { keys: [key], expiresIn: 600 })
    expect(another).not.toBe(url)
    const hit = await browserRequest(app, cached, another!)
    expect(hit.headers.get('x-waybill-cache')).toBe('hit')
    expect(await hit.text()).toBe('first bytes')
    // The copy answers with the headers the object had when it was cached.
    for (const name of [
      'content-type',
      'content-language',
      'content-disposition',
      'content-length',
      'cache-control',
      'etag',
      'last-modified',
    ]) {
      expect(hit.headers.get(name), name).toBe(first.headers.get(name))
    }
    expect(hit.headers.get('x-waybill-stored')).toBeNull()
    // A range of the copy, and a conditional request against it.
    const ranged = await browserRequest(app, cached, another!, { headers: { range: 'bytes=0-4' } })
    expect(ranged.status).toBe(206)
    expect(await ranged.text()).toBe('first')
    const etag = hit.headers.get('etag')!
    expect(
      (await browserRequest(app, cached, another!, { headers: { 'if-none-match': etag } })).status,
    ).toBe(304)
    // A URL that fails never reaches the copy.
    const tampered = url!.replace(/s=([0-9a-f])/, (_, c: string) => `s=${c === 'a' ? 'b' : 'a'}`)
    const refused = await browserRequest(app, cached, tampered)
    expect(refused.status).toBe(403)
    expect(await refused.text()).not.toContain('first bytes')
    const earlier = createApp({ clock: () => new Date(Date.now() - 3_600_000) })
    const [expired] = await signedUrls(earlier, cached, KEY, { keys: [key], expiresIn: 60 })
    expect((await browserRequest(app, cached, expired!)).status).toBe(403)
  })

  it('takes a copy it cannot read (an earlier version’s) for none', async () => {
    const cached = await r2Env(KEY, { edgeCacheTtl: 300 })
    const key = `${FOLDER}older-copy.txt`
    await r2Bucket().put(key, 'the bucket’s bytes')
    const cache = await caches.open('waybill-r2')
    await cache.put(
      `https://r2.waybill.invalid/o/media/${key}`,
      new Response('an unreadable copy', {
        headers: { 'content-length': '18', 'cache-control': 'max-age=300', etag: '"old"' },
      }),
    )
    const [url] = await signedUrls(app, cached, KEY, { keys: [key] })
    const answer = await browserRequest(app, cached, url!)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('x-waybill-cache')).toBeNull()
    expect(await answer.text()).toBe('the bucket’s bytes')
  })

  it('forgets its copy when an upload through the Worker replaces the object', async () => {
    const cached = await r2Env(KEY, { edgeCacheTtl: 300 }, { overwrite: true })
    const key = `${FOLDER}replaced.txt`
    await r2Bucket().put(key, 'old')
    const [url] = await signedUrls(app, cached, KEY, { keys: [key] })
    const ctx = createExecutionContext()
    await (await browserRequest(app, cached, url!, {}, ctx)).text()
    await waitOnExecutionContext(ctx)
    const issued = await apiCall(app, cached, KEY, '/v1/uploads', {
      origin: 'media',
      key,
      contentType: 'text/plain',
      contentLength: 3,
      overwrite: true,
    })
    expect(issued.status, await issued.clone().text()).toBe(200)
    const put = await issued.json<{ url: string; headers: Record<string, string> }>()
    const putCtx = createExecutionContext()
    const stored = await browserRequest(
      app,
      cached,
      put.url,
      { method: 'PUT', headers: put.headers, body: 'new' },
      putCtx,
    )
    expect(stored.status).toBe(200)
    await waitOnExecutionContext(putCtx)
    const [again] = await signedUrls(app, cached, KEY, { keys: [key], expiresIn: 600 })
    const fresh = await browserRequest(app, cached, again!)
    expect(fresh.headers.get('x-waybill-cache')).toBeNull()
    expect(await fresh.text()).toBe('new')
  })
})

describe('content a browser would run', () => {
  it('is a sandboxed download unless the URL names its type, which only a grant naming it allows', async () => {
    const key = `${FOLDER}page.html`
    await r2Bucket().put(key, '<script>alert(1)</script>', {
      httpMetadata: { contentType: 'text/html' },
    })
    const [plain] = await signedUrls(app, env, KEY, { keys: [key] })
    const served = await get(plain!)
    expect(served.status).toBe(200)
    expect(served.headers.get('content-disposition')).toMatch(/^attachment; filename="page\.html"/)
    expect(served.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'")
    expect(served.headers.get('x-content-type-options')).toBe('nosniff')
    // A grant that names text/html exactly lets a URL say so: then it is a page.
    const named = await r2Env(KEY, {}, { responseContentTypes: ['text/html'] })
    const [page] = await signedUrls(app, named, KEY, {
      items: [{ key, response: { contentType: 'text/html' } }],
    })
    const shown = await browserRequest(app, named, page!)
    expect(shown.headers.get('content-type')).toBe('text/html')
    expect(shown.headers.get('content-disposition')).toBeNull()
    expect(shown.headers.get('content-security-policy')).toBeNull()
    // Without that grant, no URL may say it.
    const refused = await apiCall(app, env, KEY, '/v1/sign', {
      origin: 'media',
      items: [{ key, response: { contentType: 'text/html' } }],
    })
    expect(refused.status).toBe(400)
    expect((await refused.json<{ errors: { path: string }[] }>()).errors[0]!.path).toBe(
      'items.0.response.contentType',
    )
  })
})

describe('an object fetched again through the same URL', () => {
  /** Every header but the request's id, which is each request's own. */
  const headersOf = (response: Response) =>
    [...response.headers].filter(([name]) => name !== 'waybill-request-id')

  it("answers as the first time, a page's CORS headers never carried to another's answer", async () => {
    const key = `${FOLDER}again.txt`
    await r2Bucket().put(key, 'the first version', { httpMetadata: { contentType: 'text/plain' } })
    const shared = await r2Env(KEY, { cors: { origins: ['https://app.example.com'] } })
    const [url] = await signedUrls(app, shared, KEY, { keys: [key] })
    const first = await browserRequest(app, shared, url!)
    const fromPage = await browserRequest(app, shared, url!, {
      headers: { origin: 'https://app.example.com' },
    })
    const again = await browserRequest(app, shared, url!)
    expect(first.status).toBe(200)
    expect(await first.text()).toBe('the first version')
    expect(await again.text()).toBe('the first version')
    expect(headersOf(again)).toEqual(headersOf(first))
    expect(first.headers.get('content-length')).toBe('17')
    expect(fromPage.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(again.headers.get('access-control-allow-origin')).toBeNull()
    expect(again.headers.get('waybill-request-id')).not.toBe(
      first.headers.get('waybill-request-id'),
    )
  })

  it("answers with the new version's headers once the object is replaced", async () => {
    const key = `${FOLDER}replaced.txt`
    await r2Bucket().put(key, 'old', { httpMetadata: { contentType: 'text/plain' } })
    const [url] = await signedUrls(app, env, KEY, { keys: [key] })
    const before = await get(url!)
    expect(await before.text()).toBe('old')
    await r2Bucket().put(key, '{"new":true}', {
      httpMetadata: { contentType: 'application/json', contentLanguage: 'en' },
    })
    const after = await get(url!)
    expect(await after.text()).toBe('{"new":true}')
    expect(after.headers.get('content-type')).toBe('application/json')
    expect(after.headers.get('content-language')).toBe('en')
    expect(after.headers.get('content-length')).toBe('12')
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'))
  })
})
