// End to end: HTTP to the Worker (the real entry point with the pool's bindings), then the signed
// URLs sent to versitygw, which verifies every signature.

import { env, exports } from 'cloudflare:workers'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { createApp } from '../../src/app'
import { HARD_KEYS } from '../fixtures/keys'
import { ndjsonLines, postJson } from '../helpers/requests'

const apiKey = inject('apiKey')
const s3 = inject('s3')

interface SignedUrl {
  key: string
  url: string
}

async function callWorker(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  headers.set('authorization', `Bearer ${apiKey.key}`)
  return exports.default.fetch(new Request(`http://waybill.test${path}`, { ...init, headers }))
}

async function sign(body: Record<string, unknown>): Promise<SignedUrl[]> {
  const response = await callWorker('/v1/sign', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(response.status, await response.clone().text()).toBe(200)
  const json = await response.json<{ urls: SignedUrl[] }>()
  return json.urls
}

/** versitygw stores objects as files: one path segment is one file name, at most 255 bytes. */
function fitsPosix(key: string): boolean {
  return key.split('/').every((segment) => utf8Bytes(segment) <= 255)
}

const utf8Bytes = (value: string) => new TextEncoder().encode(value).length

/** A key of exactly 1024 bytes made of segments a file system can hold. */
function longKey(prefix: string): string {
  const head = `${prefix}${'é'.repeat(100)}/${'😀'.repeat(50)}/${'x'.repeat(200)}/${'y'.repeat(200)}/`
  return head + 'z'.repeat(1024 - utf8Bytes(head))
}

// Every hard key a POSIX file system can hold, each under its own folder, and a 1024-byte key.
const KEYS = [
  ...HARD_KEYS.filter(fitsPosix).map((key, i) => `e2e/${i}/${key}`),
  longKey('e2e/long/'),
]

describe('presigned URLs against versitygw', () => {
  it('the suite has a few dozen hard keys, including one of exactly 1024 bytes', () => {
    expect(KEYS.length).toBeGreaterThanOrEqual(24)
    expect(KEYS.some((key) => utf8Bytes(key) === 1024)).toBe(true)
  })

  it('PUT, then GET, then HEAD, then DELETE works for every key (path style)', async () => {
    // versitygw keeps a key ending in "/" as a directory, which must be empty.
    const bodies = KEYS.map((key, i) => (key.endsWith('/') ? '' : `object ${i}: ${key}`))
    const puts = await sign({ origin: 'e2e', method: 'PUT', keys: KEYS })
    expect(puts.map((u) => u.key)).toEqual(KEYS)
    for (let i = 0; i < puts.length; i++) {
      const response = await fetch(puts[i]!.url, { method: 'PUT', body: bodies[i] })
      expect(response.status, `PUT ${KEYS[i]}: ${await response.text()}`).toBe(200)
    }

    const gets = await sign({ origin: 'e2e', keys: KEYS })
    for (let i = 0; i < gets.length; i++) {
      const response = await fetch(gets[i]!.url)
      expect(response.status, `GET ${KEYS[i]}`).toBe(200)
      expect(new TextDecoder().decode(await response.arrayBuffer())).toBe(bodies[i])
    }

    const heads = await sign({ origin: 'e2e', method: 'HEAD', keys: KEYS })
    for (let i = 0; i < heads.length; i++) {
      const response = await fetch(heads[i]!.url, { method: 'HEAD' })
      expect(response.status, `HEAD ${KEYS[i]}`).toBe(200)
      expect(response.headers.get('content-length')).toBe(String(utf8Bytes(bodies[i]!)))
    }

    const deletes = await sign({ origin: 'e2e', method: 'DELETE', keys: KEYS })
    for (let i = 0; i < deletes.length; i++) {
      const response = await fetch(deletes[i]!.url, { method: 'DELETE' })
      expect(response.status, `DELETE ${KEYS[i]}`).toBe(204)
    }
    for (const { url, key } of await sign({ origin: 'e2e', keys: KEYS })) {
      const response = await fetch(url)
      await response.body?.cancel()
      expect(response.status, `GET after DELETE ${key}`).toBe(404)
    }
  })
})

async function put(key: string, body: string): Promise<void> {
  const [signed] = await sign({ origin: 'e2e', method: 'PUT', keys: [key] })
  const response = await fetch(signed!.url, { method: 'PUT', body })
  expect(response.status, await response.text()).toBe(200)
}

async function statusOf(url: string, init?: RequestInit): Promise<number> {
  const response = await fetch(url, init)
  await response.body?.cancel()
  return response.status
}

describe('versitygw refuses what it must', () => {
  const KEY_A = 'refuse/a.txt'
  const KEY_B = 'refuse/b.txt'
  let urlA = ''

  beforeAll(async () => {
    await put(KEY_A, 'A')
    await put(KEY_B, 'B')
    const [signed] = await sign({ origin: 'e2e', keys: [KEY_A], expiresIn: 600 })
    urlA = signed!.url
    expect(await statusOf(urlA)).toBe(200)
  })

  it('a tampered signature', async () => {
    const url = new URL(urlA)
    const signature = url.searchParams.get('X-Amz-Signature')!
    const last = signature.at(-1) === '0' ? '1' : '0'
    url.searchParams.set('X-Amz-Signature', signature.slice(0, -1) + last)
    expect(await statusOf(url.href)).toBe(403)
  })

  it("key A's URL used for key B", async () => {
    expect(await statusOf(urlA.replace('/refuse/a.txt?', '/refuse/b.txt?'))).toBe(403)
  })

  it('a changed expiry', async () => {
    const url = new URL(urlA)
    url.searchParams.set('X-Amz-Expires', '86400')
    expect(await statusOf(url.href)).toBe(403)
  })

  it('a GET URL used for PUT', async () => {
    expect(await statusOf(urlA, { method: 'PUT', body: 'overwrite' })).toBe(403)
  })

  it('no signature at all', async () => {
    expect(await statusOf(urlA.slice(0, urlA.indexOf('?')))).toBe(403)
  })

  it('an expired URL, while the same clock with a longer expiry still works', async () => {
    const anHourAgo = new Date(Date.now() - 3_600_000)
    const app = createApp({ clock: () => anHourAgo })
    const signAt = async (expiresIn: number) => {
      const response = await app.request(
        '/v1/sign',
        postJson({ origin: 'e2e', keys: [KEY_A], expiresIn }, apiKey.key),
        env,
      )
      expect(response.status).toBe(200)
      return (await response.json<{ urls: SignedUrl[] }>()).urls[0]!.url
    }
    expect(await statusOf(await signAt(60))).toBe(403)
    expect(await statusOf(await signAt(7200))).toBe(200)
  })

  it('a URL signed with the wrong secret', async () => {
    const wrongEnv = { ...env, E2E_SECRET_ACCESS_KEY: `${s3.secretAccessKey}x` }
    const response = await createApp().request(
      '/v1/sign',
      postJson({ origin: 'e2e', keys: [KEY_A] }, apiKey.key),
      wrongEnv,
    )
    expect(response.status).toBe(200)
    const { urls } = await response.json<{ urls: SignedUrl[] }>()
    expect(await statusOf(urls[0]!.url)).toBe(403)
  })
})

describe('the rest of the API against versitygw', () => {
  const KEY = 'api/ünïcødé file (1).txt'

  beforeAll(async () => {
    await put(KEY, 'hello from waybill')
  })

  it('response overrides reach the response, a Unicode filename included', async () => {
    const disposition = `attachment; filename="file.txt"; filename*=UTF-8''${encodeURIComponent('résumé 😀.txt')}`
    const [signed] = await sign({
      origin: 'e2e',
      items: [
        {
          key: KEY,
          response: {
            contentDisposition: disposition,
            contentType: 'text/plain; charset=utf-8',
            cacheControl: 'private, max-age=60',
          },
        },
      ],
    })
    const response = await fetch(signed!.url)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-disposition')).toBe(disposition)
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('private, max-age=60')
    expect(await response.text()).toBe('hello from waybill')
  })

  it('virtual-hosted style URLs work (bucket in the host name)', async () => {
    const [signed] = await sign({ origin: 'e2e-virtual', keys: [KEY] })
    const url = new URL(signed!.url)
    expect(url.host).toBe(`${s3.bucket}.localhost:${s3.port}`)
    // *.localhost does not resolve on every machine; the pool's outbound service (vitest.config.ts)
    // connects such requests to 127.0.0.1 and sends the Host unchanged.
    const response = await fetch(url)
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('hello from waybill')
  })

  it('the redirect route sends the client to a working URL', async () => {
    const path = `/v1/redirect/e2e/${KEY.split('/').map(encodeURIComponent).join('/')}`
    const response = await callWorker(path, { redirect: 'manual' })
    expect(response.status).toBe(302)
    const location = response.headers.get('location')!
    expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/`)).toBe(true)
    const object = await fetch(location)
    expect(object.status).toBe(200)
    expect(await object.text()).toBe('hello from waybill')
  })

  it('NDJSON streaming gives one working URL per line, in order', async () => {
    const keys = [KEY, ...Array.from({ length: 1200 }, (_, i) => `missing/${i}`)]
    const response = await callWorker('/v1/sign', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({ origin: 'e2e', keys }),
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/)
    const parsed = await ndjsonLines<SignedUrl>(response)
    expect(parsed.map((p) => p.key)).toEqual(keys)
    const first = await fetch(parsed[0]!.url)
    expect(await first.text()).toBe('hello from waybill')
    // A signed URL for an object that does not exist passes authentication, then 404s.
    expect(await statusOf(parsed[1200]!.url)).toBe(404)
  })
})
