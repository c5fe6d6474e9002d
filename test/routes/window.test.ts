// Signing windows and cache headers: same window → same bytes, next window → new URLs, a batch's
// stated expiry is its URLs', and no cached redirect outlives its URL. Fixed clocks throughout.

import { describe, expect, inject, it } from 'vitest'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { postJson } from '../helpers/requests'
import { ALL_KEY, testEnv, type Problem } from '../helpers/routes'

const keys = inject('testKeys')
const HOUR_S = 3600

function appAt(iso: string) {
  const now = new Date(iso)
  return { now, app: createApp({ clock: () => now }) }
}

async function windowEnv(grantMax?: number): Promise<Env> {
  return testEnv({
    WAYBILL_ORIGINS: {
      photos: {
        type: 's3',
        bucket: 'photos',
        region: 'eu-west-1',
        credentials: 'MAIN',
        signingWindow: HOUR_S,
      },
      plain: { type: 's3', bucket: 'plain', region: 'eu-west-1', credentials: 'MAIN' },
      cdn: {
        type: 'cloudfront',
        baseUrl: 'https://cdn.example.com',
        keyPairId: 'K2JCJMDEHXQW5F',
        privateKey: 'CDN_PRIVATE_KEY',
        signingWindow: HOUR_S,
      },
    },
    CDN_PRIVATE_KEY: keys.rsaPkcs1,
    WAYBILL_GRANTS: JSON.stringify(
      ['photos', 'plain', 'cdn'].map((origin) => ({
        to: 'apiKey:all',
        origin,
        actions: ['read'],
        ...(grantMax === undefined ? {} : { maxExpiresIn: grantMax }),
      })),
    ),
  })
}

async function sign(iso: string, body: unknown, env: Env) {
  const { now, app } = appAt(iso)
  const response = await app.request('/v1/sign', postJson(body, ALL_KEY), env)
  const text = await response.text()
  return { now, response, text }
}

/** Seconds an S3 presigned URL still works at `now`. */
function s3Validity(url: string, now: Date): number {
  const query = new URL(url).searchParams
  const d = query.get('X-Amz-Date')!
  const signed = Date.UTC(
    +d.slice(0, 4),
    +d.slice(4, 6) - 1,
    +d.slice(6, 8),
    +d.slice(9, 11),
    +d.slice(11, 13),
    +d.slice(13, 15),
  )
  return (signed + Number(query.get('X-Amz-Expires')) * 1000 - now.getTime()) / 1000
}

/** Seconds from `now` to the answer's `Waybill-Expires-At`. */
function statedValidity(response: Response, now: Date): number {
  const header = response.headers.get('waybill-expires-at')
  if (header === null) throw new Error('no Waybill-Expires-At')
  return (Date.parse(header) - now.getTime()) / 1000
}

function maxAgeOf(response: Response): number {
  const match = /^private, max-age=(\d+)$/.exec(response.headers.get('cache-control') ?? '')
  if (match === null) throw new Error(`not cacheable: ${response.headers.get('cache-control')}`)
  return Number(match[1])
}

const KEYS = ['a.jpg', 'gallery/b c.png', 'ü/🎉.gif']

describe('S3 signing windows', () => {
  it('gives byte-identical responses within a window and new URLs in the next', async () => {
    const env = await windowEnv()
    const body = { origin: 'photos', keys: KEYS, expiresIn: 600 }
    const early = await sign('2026-11-23T10:00:00Z', body, env)
    const late = await sign('2026-11-23T10:59:59.900Z', body, env)
    const next = await sign('2026-11-23T11:00:00Z', body, env)
    expect(early.response.status).toBe(200)
    expect(late.text).toBe(early.text)
    // A POST answer is never reused by a cache: no lifetime, no ETag (src/http/answer.ts).
    expect(early.response.headers.get('cache-control')).toBe('no-store')
    expect(early.response.headers.get('etag')).toBeNull()
    const urls = (r: { text: string }) =>
      (JSON.parse(r.text) as { urls: { url: string }[] }).urls.map((u) => u.url)
    for (const [a, b] of urls(early).map((url, i) => [url, urls(next)[i]!])) {
      expect(b).not.toBe(a)
    }
  })

  it('keeps every URL valid for at least expiresIn and at most window + expiresIn', async () => {
    const env = await windowEnv()
    for (const iso of ['2026-11-23T10:00:00Z', '2026-11-23T10:31:07.5Z', '2026-11-23T10:59:59Z']) {
      const { now, response, text } = await sign(
        iso,
        { origin: 'photos', keys: KEYS, expiresIn: 600 },
        env,
      )
      const { urls } = JSON.parse(text) as { urls: { url: string }[] }
      const validities = urls.map((u) => s3Validity(u.url, now))
      for (const validity of validities) {
        expect(validity).toBeGreaterThanOrEqual(600)
        expect(validity).toBeLessThanOrEqual(600 + HOUR_S)
      }
      // The stated expiry is the shortest URL's.
      expect(statedValidity(response, now)).toBe(Math.min(...validities))
    }
  })

  it('shortens the origin window to stay inside the grant', async () => {
    const env = await windowEnv(1200)
    const { now, text } = await sign(
      '2026-11-23T10:17:00Z',
      { origin: 'photos', keys: ['a'], expiresIn: 900 },
      env,
    )
    const url = (JSON.parse(text) as { urls: { url: string }[] }).urls[0]!.url
    expect(s3Validity(url, now)).toBeGreaterThanOrEqual(900)
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('1200')
  })

  it('lets a request choose its window within its grant, and refuses more', async () => {
    const env = await windowEnv(3600)
    const a = await sign(
      '2026-11-23T10:01:00Z',
      { origin: 'plain', keys: KEYS, expiresIn: 600, signingWindow: 1800 },
      env,
    )
    const b = await sign(
      '2026-11-23T10:29:00Z',
      { origin: 'plain', keys: KEYS, expiresIn: 600, signingWindow: 1800 },
      env,
    )
    expect(b.text).toBe(a.text)
    const refused = await sign(
      '2026-11-23T10:01:00Z',
      { origin: 'plain', keys: KEYS, expiresIn: 600, signingWindow: 3001 },
      env,
    )
    expect(refused.response.status).toBe(400)
    expect(refused.response.headers.get('content-type')).toBe('application/problem+json')
    const problem = JSON.parse(refused.text) as Problem
    expect(problem.errors?.[0]?.path).toBe('signingWindow')
    expect(problem.errors?.[0]?.message).toMatch(/at most 3000/)
    for (const signingWindow of [-1, 1.5, 86_401, '60']) {
      const bad = await sign(
        '2026-11-23T10:01:00Z',
        { origin: 'plain', keys: KEYS, signingWindow },
        env,
      )
      expect(bad.response.status).toBe(400)
      expect((JSON.parse(bad.text) as Problem).errors?.[0]?.path).toBe('signingWindow')
    }
  })

  it('without a window signs at the request time, its URLs expiring expiresIn later', async () => {
    const env = await windowEnv()
    const a = await sign(
      '2026-11-23T10:01:00Z',
      { origin: 'plain', keys: KEYS, expiresIn: 600 },
      env,
    )
    const b = await sign(
      '2026-11-23T10:01:01Z',
      { origin: 'plain', keys: KEYS, expiresIn: 600 },
      env,
    )
    expect(b.text).not.toBe(a.text)
    expect(statedValidity(a.response, new Date('2026-11-23T10:01:00Z'))).toBe(600)
  })
})

describe('CloudFront signing windows', () => {
  it('quantizes the expiry so RSA signatures repeat within a window', async () => {
    const env = await windowEnv()
    const body = { origin: 'cdn', keys: KEYS, expiresIn: 600 }
    const a = await sign('2026-11-23T10:05:00Z', body, env)
    const b = await sign('2026-11-23T10:55:00Z', body, env)
    const c = await sign('2026-11-23T11:05:00Z', body, env)
    expect(a.response.status).toBe(200)
    expect(b.text).toBe(a.text)
    expect(c.text).not.toBe(a.text)
    const { urls } = JSON.parse(a.text) as { urls: { url: string }[] }
    const expires = Number(new URL(urls[0]!.url).searchParams.get('Expires'))
    expect(expires).toBe(Date.UTC(2026, 10, 23, 11, 10) / 1000)
    expect(statedValidity(a.response, a.now)).toBe(expires - Date.UTC(2026, 10, 23, 10, 5) / 1000)
  })
})

describe('redirect caching', () => {
  async function redirect(iso: string, env: Env, path = '/v1/redirect/photos/a.jpg') {
    const { now, app } = appAt(iso)
    const response = await app.request(
      path,
      { headers: { authorization: `Bearer ${ALL_KEY}` } },
      env,
    )
    return { now, response }
  }

  it('never lets a redirect be cached past the life of the URL it points to', async () => {
    const env = await windowEnv()
    for (const iso of ['2026-11-23T10:00:00Z', '2026-11-23T10:44:10Z', '2026-11-23T10:59:59Z']) {
      for (const path of ['/v1/redirect/photos/a.jpg', '/v1/redirect/plain/a.jpg?expiresIn=300']) {
        const { now, response } = await redirect(iso, env, path)
        expect(response.status).toBe(302)
        const validity = s3Validity(response.headers.get('location')!, now)
        expect(maxAgeOf(response)).toBeLessThanOrEqual(validity - 60)
      }
    }
  })

  it('redirects to the same URL within a window', async () => {
    const env = await windowEnv()
    const a = await redirect('2026-11-23T10:10:00Z', env)
    const b = await redirect('2026-11-23T10:50:00Z', env)
    expect(b.response.headers.get('location')).toBe(a.response.headers.get('location'))
  })
})
