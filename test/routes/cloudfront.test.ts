import { afterEach, describe, expect, inject, it, vi } from 'vitest'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { nodeVerifies, policyOfUrl } from '../helpers/cloudfront'
import { postJson } from '../helpers/requests'
import {
  ALL_KEY,
  CDN_ORIGIN,
  NOW,
  PHOTOS_KEY,
  PHOTOS_ORIGIN,
  problemOf,
  testEnv,
} from '../helpers/routes'

const keys = inject('testKeys')
const NOW_S = NOW.getTime() / 1000
const BASE = 'https://cdn.example.com/assets/'

async function cdnEnv(
  overrides: Record<string, unknown> = {},
  env: Partial<Env> = {},
): Promise<Env> {
  return testEnv({
    WAYBILL_ORIGINS: {
      photos: PHOTOS_ORIGIN,
      cdn: {
        ...CDN_ORIGIN,
        cookie: { domain: '.example.com', sameSite: 'Strict' },
        ...overrides,
      },
    },
    // As a secret often arrives: one line with literal \n.
    CDN_PRIVATE_KEY: keys.rsaPkcs1.replace(/\n/g, '\\n'),
    WAYBILL_GRANTS: JSON.stringify([
      {
        to: 'apiKey:all',
        origin: 'cdn',
        prefix: 'users/alice/',
        actions: ['read'],
        wildcard: true,
      },
      { to: 'apiKey:all', origin: 'cdn', prefix: 'public/', actions: ['read'] },
      { to: 'apiKey:all', origin: 'photos', actions: ['read'] },
      { to: 'apiKey:photos-only', origin: 'cdn', prefix: 'users/', actions: ['read'] },
    ]),
    ...env,
  })
}

async function post(
  path: string,
  body: unknown,
  env: Env,
  key = ALL_KEY,
  app = createApp({ clock: () => NOW }),
) {
  return app.request(path, postJson(body, key), env)
}

interface SignBody {
  expiresAt: string
  urls: { key: string; url: string }[]
}

afterEach(() => vi.restoreAllMocks())

describe('POST /v1/sign on a CloudFront origin', () => {
  it('signs one canned URL per key, each verifying against the public key', async () => {
    const keysIn = ['public/a.jpg', 'public/b c.png', 'users/alice/x.jpg']
    const response = await post(
      '/v1/sign',
      { origin: 'cdn', keys: keysIn, expiresIn: 600 },
      await cdnEnv(),
    )
    expect(response.status, await response.clone().text()).toBe(200)
    const body = await response.json<SignBody>()
    expect(body.expiresAt).toBe(new Date((NOW_S + 600) * 1000).toISOString())
    expect(body.urls[1]!.url).toBe(
      `${BASE}public/b%20c.png?Expires=${NOW_S + 600}&Key-Pair-Id=K2JCJMDEHXQW5F&Signature=${new URL(body.urls[1]!.url).searchParams.get('Signature')}`,
    )
    for (const { url } of body.urls) {
      const { policy, signature } = policyOfUrl(url)
      expect(policy).toContain(`"Resource":"${url.slice(0, url.indexOf('?'))}"`)
      expect(await nodeVerifies(keys.rsaPublic, policy, signature, 'SHA1')).toBe(true)
    }
  })

  it('signs a 10,000-key wildcard batch with exactly one signature operation', async () => {
    const env = await cdnEnv({}, { WAYBILL_MAX_BATCH: '10000' })
    const app = createApp({ clock: () => NOW })
    // The first request imports the key; count signatures on the second.
    expect(
      (await post('/v1/sign', { origin: 'cdn', keys: ['public/warm'] }, env, ALL_KEY, app)).status,
    ).toBe(200)
    const sign = vi.spyOn(crypto.subtle, 'sign')
    const keysIn = Array.from({ length: 10_000 }, (_, i) => `users/alice/photos/${i}.jpg`)
    const response = await post(
      '/v1/sign',
      { origin: 'cdn', keys: keysIn, policy: 'wildcard' },
      env,
      ALL_KEY,
      app,
    )
    expect(response.status, await response.clone().text()).toBe(200)
    expect(sign).toHaveBeenCalledTimes(1)
    const { urls } = await response.json<SignBody>()
    expect(urls).toHaveLength(10_000)
    const queries = new Set(urls.map(({ url }) => url.slice(url.indexOf('?'))))
    expect(queries.size).toBe(1)
    const { policy, signature } = policyOfUrl(urls[9999]!.url)
    expect(policy).toBe(
      `{"Statement":[{"Resource":"${BASE}users/alice/photos/*","Condition":{"DateLessThan":{"AWS:EpochTime":${NOW_S + 900}}}}]}`,
    )
    expect(await nodeVerifies(keys.rsaPublic, policy, signature, 'SHA1')).toBe(true)
  })

  it('refuses a wildcard without a wildcard grant covering the whole prefix', async () => {
    const env = await cdnEnv()
    const publicOnly = await post(
      '/v1/sign',
      { origin: 'cdn', keys: ['public/a', 'public/b'], policy: 'wildcard' },
      env,
    )
    expect(publicOnly.status).toBe(403)
    expect((await problemOf(publicOnly)).errors?.[0]?.path).toBe('policy')
    // users/alice/a and users/alice2/b share "users/alice", whose wildcard reaches users/alice2/…
    const grants = [{ to: 'apiKey:all', origin: 'cdn', prefix: 'users/', actions: ['read'] }]
    const noFlag = await cdnEnv({}, { WAYBILL_GRANTS: JSON.stringify(grants) })
    expect(
      (await post('/v1/sign', { origin: 'cdn', keys: ['users/x/1'], policy: 'wildcard' }, noFlag))
        .status,
    ).toBe(403)
  })

  it('uses SHA-256 and ECDSA keys when configured', async () => {
    const env = await cdnEnv({ hashAlgorithm: 'SHA256' }, { CDN_PRIVATE_KEY: keys.ecSec1 })
    const response = await post('/v1/sign', { origin: 'cdn', keys: ['public/a.jpg'] }, env)
    const { urls } = await response.json<SignBody>()
    expect(urls[0]!.url).toMatch(/&Hash-Algorithm=SHA256$/)
    const { policy, signature } = policyOfUrl(urls[0]!.url)
    expect(await nodeVerifies(keys.ecPublic, policy, signature, 'SHA256')).toBe(true)
  })

  it('403 for what an origin cannot serve, 400 for what no origin takes', async () => {
    const env = await cdnEnv()
    const cases: Array<[unknown, number, string]> = [
      // Refused like an artifact no grant covers, as for an origin the caller has no grant on.
      [{ origin: 'cdn', method: 'PUT', keys: ['users/alice/a'] }, 403, 'method'],
      // Response overrides travel to the bucket (issue #17); a version cannot.
      [{ origin: 'cdn', items: [{ key: 'public/a', versionId: 'v1' }] }, 403, 'items.0'],
      [{ origin: 'cdn', keys: ['public/a'], policy: 'everything' }, 400, 'policy'],
      [{ origin: 'photos', keys: ['a'], policy: 'wildcard' }, 403, 'policy'],
      [{ origin: 'photos', keys: ['a'], policy: 'canned' }, 403, 'policy'],
    ]
    for (const [body, status, path] of cases) {
      const response = await post('/v1/sign', body, env)
      expect(response.status, JSON.stringify(body)).toBe(status)
      expect((await problemOf(response)).errors?.[0]?.path).toBe(path)
    }
  })
})

describe('downloads through CloudFront', () => {
  /** An origin whose distribution forwards response-* to its bucket, and so no wildcard grant. */
  const forwarding = () =>
    cdnEnv(
      { responseOverrides: true },
      {
        WAYBILL_GRANTS: JSON.stringify([
          { to: 'apiKey:all', origin: 'cdn', prefix: 'public/', actions: ['read'] },
        ]),
      },
    )

  it('refuses overrides where the origin does not say its distribution forwards them', async () => {
    const response = await post(
      '/v1/sign',
      { origin: 'cdn', items: [{ key: 'public/a b.pdf', download: true }] },
      await cdnEnv(),
    )
    // What the origin cannot serve: a 403, as for an origin without a grant.
    expect(response.status).toBe(403)
    const { errors = [] } = await problemOf(response)
    expect(errors.map((e) => e.path)).toEqual(['items.0'])
    expect(errors[0]!.message).toContain('responseOverrides')
  })

  it('signs the response-* overrides into the URL the canned policy covers', async () => {
    const response = await post(
      '/v1/sign',
      { origin: 'cdn', items: [{ key: 'public/a b.pdf', download: 'résumé "1".pdf' }] },
      await forwarding(),
    )
    expect(response.status, await response.clone().text()).toBe(200)
    const { urls } = await response.json<SignBody>()
    const url = new URL(urls[0]!.url)
    // The name is sanitized as upload names are: its quotes become "_".
    expect(url.searchParams.get('response-content-disposition')).toBe(
      `attachment; filename="r_sum_ _1_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20_1_.pdf`,
    )
    const { policy, signature } = policyOfUrl(urls[0]!.url)
    const signed = urls[0]!.url.slice(0, urls[0]!.url.indexOf('&Expires='))
    expect(policy).toContain(`"Resource":${JSON.stringify(signed)}`)
    expect(await nodeVerifies(keys.rsaPublic, policy, signature, 'SHA1')).toBe(true)
  })
})

describe('keys are imported once per isolate', () => {
  it('the second request does not import again', async () => {
    const env = await cdnEnv(
      { previousKeys: [{ keyPairId: 'KOLDKEY0001', privateKey: 'CDN_OLD_KEY' }] },
      { CDN_OLD_KEY: keys.ecPkcs8 },
    )
    const app = createApp({ clock: () => NOW })
    const importKey = vi.spyOn(crypto.subtle, 'importKey')
    expect(
      (await post('/v1/sign', { origin: 'cdn', keys: ['public/a'] }, env, ALL_KEY, app)).status,
    ).toBe(200)
    const pkcs8Imports = () => importKey.mock.calls.filter(([format]) => format === 'pkcs8').length
    expect(pkcs8Imports()).toBe(2) // the active key and the listed previous one
    expect(
      (await post('/v1/sign', { origin: 'cdn', keys: ['public/b'] }, env, ALL_KEY, app)).status,
    ).toBe(200)
    expect(pkcs8Imports()).toBe(2)
  })
})

describe('bad keys are a config error naming the origin, not a 500', () => {
  const cases: Array<[string, Partial<Env>, RegExp]> = [
    ['RSA-1024', { CDN_PRIVATE_KEY: keys.rsa1024 }, /WAYBILL_ORIGINS\.cdn.*RSA-1024/],
    ['a P-384 key', { CDN_PRIVATE_KEY: keys.ecP384 }, /WAYBILL_ORIGINS\.cdn.*P-256/],
    [
      'a public key',
      { CDN_PRIVATE_KEY: keys.rsaPublic },
      /WAYBILL_ORIGINS\.cdn.*not a private key/,
    ],
    ['a missing secret', { CDN_PRIVATE_KEY: undefined }, /WAYBILL_ORIGINS\.cdn/],
  ]
  for (const [name, env, message] of cases) {
    it(name, async () => {
      const response = await createApp().request('/healthz', {}, await cdnEnv({}, env))
      expect(response.status).toBe(503)
      const problem = await problemOf(response)
      expect(problem.errors?.[0]?.path).toBe('CDN_PRIVATE_KEY')
      expect(problem.errors?.[0]?.message).toMatch(message)
      expect(JSON.stringify(problem)).not.toContain('PRIVATE KEY-----')
    })
  }
})

describe('POST /v1/cookies', () => {
  it('sets CloudFront cookies for a wildcard resource with the configured attributes', async () => {
    const response = await post(
      '/v1/cookies',
      { origin: 'cdn', prefix: 'users/alice/', expiresIn: 3600 },
      await cdnEnv(),
    )
    expect(response.status, await response.clone().text()).toBe(200)
    const body = await response.json<{
      resource: string
      expiresAt: string
      cookies: Record<string, string>
    }>()
    expect(body.resource).toBe(`${BASE}users/alice/*`)
    expect(Object.keys(body.cookies).sort()).toEqual([
      'CloudFront-Key-Pair-Id',
      'CloudFront-Policy',
      'CloudFront-Signature',
    ])
    const setCookies = response.headers.getSetCookie()
    expect(setCookies).toHaveLength(3)
    // Attributes in any order: a cookie is its name=value and the set of its attributes.
    const attributes = (cookie: string) => cookie.split('; ').slice(1).sort()
    for (const cookie of setCookies) {
      expect(attributes(cookie)).toEqual(
        [
          'Path=/',
          'Max-Age=3600',
          'Domain=.example.com',
          'Secure',
          'HttpOnly',
          'SameSite=Strict',
        ].sort(),
      )
    }
    expect(setCookies.map((cookie) => cookie.split('; ')[0])).toContain(
      `CloudFront-Signature=${body.cookies['CloudFront-Signature']}`,
    )
    const policy = new TextDecoder().decode(
      Uint8Array.from(
        atob(
          body.cookies['CloudFront-Policy']!.replace(/-/g, '+')
            .replace(/_/g, '=')
            .replace(/~/g, '/'),
        ),
        (c) => c.charCodeAt(0),
      ),
    )
    expect(policy).toBe(
      `{"Statement":[{"Resource":"${BASE}users/alice/*","Condition":{"DateLessThan":{"AWS:EpochTime":${NOW_S + 3600}}}}]}`,
    )
    expect(
      await nodeVerifies(keys.rsaPublic, policy, body.cookies['CloudFront-Signature']!, 'SHA1'),
    ).toBe(true)
  })

  it('adds CloudFront-Hash-Algorithm for SHA-256', async () => {
    const response = await post(
      '/v1/cookies',
      { origin: 'cdn', prefix: 'users/alice/' },
      await cdnEnv({ hashAlgorithm: 'SHA256' }),
    )
    const body = await response.json<{ cookies: Record<string, string> }>()
    expect(body.cookies['CloudFront-Hash-Algorithm']).toBe('SHA256')
    expect(response.headers.getSetCookie()).toHaveLength(4)
  })

  it('refuses a prefix outside every wildcard grant, an S3 origin and bad input', async () => {
    const env = await cdnEnv()
    expect((await post('/v1/cookies', { origin: 'cdn', prefix: 'users/' }, env)).status).toBe(403)
    expect(
      (await post('/v1/cookies', { origin: 'cdn', prefix: 'users/alice/' }, env, PHOTOS_KEY))
        .status,
    ).toBe(403)
    expect((await post('/v1/cookies', { origin: 'nowhere', prefix: 'x/' }, env)).status).toBe(403)
    // An S3 origin issues no cookies: a 403 naming the origin, as for one without a grant.
    const s3 = await post('/v1/cookies', { origin: 'photos', prefix: 'a/' }, env)
    expect(s3.status).toBe(403)
    expect((await problemOf(s3)).errors?.[0]?.path).toBe('origin')
    const cases: Array<[unknown, string]> = [
      [{ origin: 'cdn', prefix: 'users/alice/../bob/' }, 'prefix'],
      [{ origin: 'cdn', prefix: 7 }, 'prefix'],
      [{ origin: 'cdn', prefix: 'users/alice/', expiresIn: 0 }, 'expiresIn'],
      [{ origin: 'cdn', prefix: 'users/alice/', domain: 'evil' }, 'domain'],
    ]
    for (const [body, path] of cases) {
      const response = await post('/v1/cookies', body, env)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect((await problemOf(response)).errors?.[0]?.path).toBe(path)
    }
  })
})

describe('GET /v1/redirect on a CloudFront origin', () => {
  it('302 to a canned-signed CloudFront URL', async () => {
    const response = await createApp({ clock: () => NOW }).request(
      '/v1/redirect/cdn/public/logo%20big.png',
      { headers: { authorization: `Bearer ${ALL_KEY}` } },
      await cdnEnv(),
    )
    expect(response.status).toBe(302)
    const location = response.headers.get('location')!
    expect(
      location.startsWith(
        `${BASE}public/logo%20big.png?Expires=${NOW_S + 900}&Key-Pair-Id=K2JCJMDEHXQW5F&Signature=`,
      ),
    ).toBe(true)
    const { policy, signature } = policyOfUrl(location)
    expect(await nodeVerifies(keys.rsaPublic, policy, signature, 'SHA1')).toBe(true)
  })
})
