// Downloads through own URLs (`GET /o/{origin}/{key}`) are answered without the router
// (src/routes/served.ts): each answer must be the one the route gives, for every kind of
// request, good or bad, and every other request must still be routed.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createApp } from '../../../src/app'
import type { Env } from '../../../src/env'
import { browserRequest, r2Bucket, r2Env, signedUrls } from '../../helpers/r2'

const KEY = `wb_test_downloads_${crypto.randomUUID()}`
const FOLDER = `downloads-${crypto.randomUUID().slice(0, 8)}/`
const BODY = new TextEncoder().encode('0123456789abcdefghij')

const direct = createApp()
const routed = createApp({ routeDownloads: true })

/** What an answer says, its request id aside (each request has its own). */
async function answerOf(response: Response) {
  const headers = Object.fromEntries(
    [...response.headers].filter(([name]) => name !== 'waybill-request-id'),
  )
  return {
    status: response.status,
    headers,
    body: new Uint8Array(await response.arrayBuffer()),
    hasId: response.headers.get('waybill-request-id') !== null,
  }
}

describe('downloads answered without the router', () => {
  let env: Env
  let url: string
  let html: string
  beforeAll(async () => {
    env = await r2Env(KEY)
    await r2Bucket().put(`${FOLDER}a b/ü.jpg`, BODY, {
      httpMetadata: { contentType: 'image/jpeg' },
    })
    await r2Bucket().put(`${FOLDER}page.html`, BODY, { httpMetadata: { contentType: 'text/html' } })
    ;[url, html] = (await signedUrls(direct, env, KEY, {
      keys: [`${FOLDER}a b/ü.jpg`, `${FOLDER}page.html`],
    })) as [string, string]
  })
  afterAll(async () => {
    await r2Bucket().delete([`${FOLDER}a b/ü.jpg`, `${FOLDER}page.html`])
  })

  const tampered = (text: string) =>
    text.replace(/s=([0-9a-f])/, (_, c) => `s=${c === '0' ? '1' : '0'}`)
  const cases: [string, () => [string, RequestInit]][] = [
    ['a download', () => [url, {}]],
    ['an HTML page, as a download', () => [html, {}]],
    ['a range', () => [url, { headers: { range: 'bytes=0-9' } }]],
    ['a range past the end', () => [url, { headers: { range: 'bytes=100-' } }]],
    ['If-None-Match', () => [url, { headers: { 'if-none-match': '*' } }]],
    ['If-Match that fails', () => [url, { headers: { 'if-match': '"nope"' } }]],
    ['a tampered signature', () => [tampered(url), {}]],
    ['no query at all', () => [url.slice(0, url.indexOf('?')), {}]],
    ['an origin this Worker does not serve', () => [url.replace('/o/media/', '/o/photos/'), {}]],
    ['an unknown origin', () => [url.replace('/o/media/', '/o/nope/'), {}]],
    ['a missing object', () => [url.replace('page.html', 'gone.html'), {}]],
    ['a page’s Origin header', () => [url, { headers: { origin: 'https://app.example.com' } }]],
  ]

  it.each(cases)('%s: the same answer as the route', async (_, request) => {
    const [target, init] = request()
    const [ours, theirs] = await Promise.all([
      browserRequest(direct, env, target, init).then(answerOf),
      browserRequest(routed, env, target, init).then(answerOf),
    ])
    expect(ours).toEqual(theirs)
    expect(ours.hasId).toBe(true)
  })

  it('an invalid configuration: the same 503', async () => {
    const broken = { ...env, WAYBILL_ORIGINS: '{' }
    const [ours, theirs] = await Promise.all([
      browserRequest(direct, broken, url).then(answerOf),
      browserRequest(routed, broken, url).then(answerOf),
    ])
    expect(ours.status).toBe(503)
    expect(ours).toEqual(theirs)
  })

  it('the same log line, with the route pattern and never the path or the URL', async () => {
    const lines: string[] = []
    const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line))
    try {
      const all = { ...env, WAYBILL_REQUEST_LOG: 'all' }
      await browserRequest(direct, all, url)
      await browserRequest(routed, all, url)
    } finally {
      spy.mockRestore()
    }
    const [ours, theirs] = lines.map((line) => {
      const { requestId, durationMs, ...rest } = JSON.parse(line) as Record<string, unknown>
      expect(typeof requestId).toBe('string')
      expect(typeof durationMs).toBe('number')
      return rest
    })
    expect(ours).toEqual(theirs)
    expect(ours).toMatchObject({
      route: '/o/:origin/:key{[\\s\\S]+}',
      origin: 'media',
      status: 200,
    })
    expect(lines.join('\n')).not.toContain(FOLDER)
  })

  it('routes every other request: HEAD, a write, a form, a path with no key', async () => {
    for (const [target, method] of [
      [url, 'HEAD'],
      [url, 'DELETE'],
      [`${new URL(url).origin}/o/media`, 'GET'],
      [`${new URL(url).origin}/o/media/`, 'GET'],
      [`${new URL(url).origin}/o/`, 'GET'],
    ] as const) {
      const [ours, theirs] = await Promise.all([
        browserRequest(direct, env, target, { method }).then(answerOf),
        browserRequest(routed, env, target, { method }).then(answerOf),
      ])
      expect(ours, `${method} ${target}`).toEqual(theirs)
    }
  })

  it('a failing bucket: the same plain 500, its cause logged and never answered', async () => {
    const bucket = r2Bucket()
    const failing = {
      get: () => Promise.reject(new Error('bucket failed near a-secret-value')),
      put: bucket.put.bind(bucket),
      head: bucket.head.bind(bucket),
      delete: bucket.delete.bind(bucket),
      createMultipartUpload: bucket.createMultipartUpload.bind(bucket),
    }
    const broken = { ...env, DEMO_R2: failing as unknown as R2Bucket }
    const errors: string[] = []
    const spy = vi
      .spyOn(console, 'error')
      .mockImplementation((line: string) => void errors.push(line))
    let answers
    try {
      answers = await Promise.all([
        browserRequest(direct, broken, url).then(answerOf),
        browserRequest(routed, broken, url).then(answerOf),
      ])
    } finally {
      spy.mockRestore()
    }
    const [ours, theirs] = answers
    expect(ours.status).toBe(500)
    expect(ours).toEqual(theirs)
    expect(new TextDecoder().decode(ours.body)).not.toContain('a-secret-value')
    expect(errors).toHaveLength(2)
    // The same line, its stack the same down to the service: below it each path has its own
    // callers (the download's handler, or the router's).
    const [first, second] = errors.map((line) => {
      const { stack, ...rest } = JSON.parse(line) as { stack: string }
      const frames = stack.split('\n')
      const service = frames.findIndex((frame) => frame.includes('serveObject'))
      expect(service, stack).toBeGreaterThan(0)
      return { ...rest, stack: frames.slice(0, service + 1) }
    })
    expect(first).toEqual(second)
    expect(errors.join('\n')).not.toContain('a-secret-value')
  })
})
