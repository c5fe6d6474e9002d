// Signed links: POST /v1/links issues them under a read grant; GET /l/{token} follows one to a URL
// signed for a few minutes. Tampered, expired, revoked and unknown-secret links get problems. A
// link with `maxUses` counts its visits in a Durable Object (the pool's WAYBILL_LINK_USES).

import { env as bindings } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { LINK_URL_EXPIRES_S } from '../../src/limits'
import { ALL_KEY, NOW, PHOTOS_KEY, problemOf, testEnv } from '../helpers/routes'

const SECRET_1 = { id: 'k1', secret: 'link-test-secret-one-0123456789abcdef' }
const SECRET_2 = { id: 'k2', secret: 'link-test-secret-two-0123456789abcdef' }
const DAY_S = 86_400

async function linksEnv(overrides: Partial<Env> = {}): Promise<Env> {
  return testEnv({
    WAYBILL_TOKEN_SECRETS: JSON.stringify([SECRET_1]),
    WAYBILL_GRANTS: JSON.stringify([
      { to: 'apiKey:all', origin: 'photos', actions: ['read'], maxLinkExpiresIn: 30 * DAY_S },
      { to: 'apiKey:photos-only', origin: 'photos', prefix: 'public/', actions: ['read'] },
    ]),
    ...overrides,
  })
}

/** An app whose clock reads `at` (seconds after NOW). */
const appAt = (at = 0) => createApp({ clock: () => new Date(NOW.getTime() + at * 1000) })

async function issue(body: unknown, env: Env, key = ALL_KEY, at = 0): Promise<Response> {
  return appAt(at).request(
    'https://waybill.example/v1/links',
    {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    },
    env,
  )
}

interface LinksAnswer {
  origin: string
  expiresAt: string
  maxUses?: number
  links: { key: string; url: string }[]
}

async function links(body: unknown, env: Env): Promise<LinksAnswer> {
  const response = await issue(body, env)
  expect(response.status, await response.clone().text()).toBe(200)
  return response.json<LinksAnswer>()
}

/** Follows a link with no credentials at all, `at` seconds after NOW. */
async function follow(url: string, env: Env, at = 0): Promise<Response> {
  return appAt(at).request(new URL(url).pathname, { redirect: 'manual' }, env)
}

describe('POST /v1/links', () => {
  it('issues a link per key that anyone may follow to a URL signed for minutes', async () => {
    const env = await linksEnv()
    const answer = await links({ origin: 'photos', keys: ['a.jpg', 'b c/ü.png'] }, env)
    expect(answer.links.map((l) => l.key)).toEqual(['a.jpg', 'b c/ü.png'])
    // The default life of a link: a day.
    expect(answer.expiresAt).toBe(new Date(NOW.getTime() + DAY_S * 1000).toISOString())
    for (const { url } of answer.links) expect(url).toMatch(/^https:\/\/waybill\.example\/l\//)
    const response = await follow(answer.links[1]!.url, env, 3600)
    expect(response.status).toBe(302)
    const location = new URL(response.headers.get('location')!)
    expect(location.pathname).toBe('/b%20c/%C3%BC.png')
    expect(location.searchParams.get('X-Amz-Expires')).toBe(String(LINK_URL_EXPIRES_S))
    expect(response.headers.get('cache-control')).toBe(
      `private, max-age=${LINK_URL_EXPIRES_S - 60}`,
    )
  })

  it('states a typical link’s length', async () => {
    const env = await linksEnv()
    const { links: issued } = await links(
      { origin: 'photos', items: [{ key: 'gallery/2026/img-000123.jpg', download: true }] },
      env,
    )
    const url = issued[0]!.url
    console.info(JSON.stringify({ typicalLink: url, chars: url.length }))
    expect(url.length).toBeLessThan(300)
  })

  it('carries download, inline and contentType into the URL the link leads to', async () => {
    const env = await linksEnv()
    const answer = await links(
      {
        origin: 'photos',
        items: [
          { key: 'reports/2026.pdf', download: true },
          { key: 'reports/2026.pdf', inline: 'Rapport ü.pdf', contentType: 'application/pdf' },
        ],
      },
      env,
    )
    const [first, second] = await Promise.all(answer.links.map((l) => follow(l.url, env)))
    const one = new URL(first!.headers.get('location')!).searchParams
    expect(one.get('response-content-disposition')).toBe(
      `attachment; filename="2026.pdf"; filename*=UTF-8''2026.pdf`,
    )
    const two = new URL(second!.headers.get('location')!).searchParams
    expect(two.get('response-content-disposition')).toBe(
      `inline; filename="Rapport _.pdf"; filename*=UTF-8''Rapport%20%C3%BC.pdf`,
    )
    expect(two.get('response-content-type')).toBe('application/pdf')
  })

  it('bounds a link by maxLinkExpiresIn (or maxExpiresIn), not by seven days', async () => {
    const env = await linksEnv()
    const month = await links({ origin: 'photos', keys: ['a'], expiresIn: 30 * DAY_S }, env)
    expect(month.expiresAt).toBe(new Date(NOW.getTime() + 30 * DAY_S * 1000).toISOString())
    const tooLong = await issue({ origin: 'photos', keys: ['a'], expiresIn: 31 * DAY_S }, env)
    expect((await problemOf(tooLong)).errors).toEqual([
      { path: 'expiresIn', message: `must be at most ${30 * DAY_S} for this caller` },
    ])
    // photos-only has no maxLinkExpiresIn: its maxExpiresIn (seven days) bounds its links.
    const week = await issue(
      { origin: 'photos', keys: ['public/a'], expiresIn: 8 * DAY_S },
      env,
      PHOTOS_KEY,
    )
    expect((await problemOf(week)).errors?.[0]?.path).toBe('expiresIn')
  })

  it('needs a read grant on every key, all or nothing', async () => {
    const env = await linksEnv()
    const response = await issue(
      { origin: 'photos', keys: ['public/a', 'private/b'] },
      env,
      PHOTOS_KEY,
    )
    expect(response.status).toBe(403)
    expect((await problemOf(response)).errors?.map((e) => e.path)).toEqual(['keys.1'])
  })

  it('needs WAYBILL_TOKEN_SECRETS (or its former name): without it the config is invalid', async () => {
    const none = await linksEnv({ WAYBILL_TOKEN_SECRETS: undefined })
    const response = await issue({ origin: 'photos', keys: ['a'] }, none)
    expect(response.status).toBe(503)
    expect((await problemOf(response)).errors?.map((e) => e.path)).toEqual([
      'WAYBILL_TOKEN_SECRETS',
    ])
    // Its former name is an error saying so, never read (no fallback before 1.0).
    const former = await linksEnv({ WAYBILL_LINK_SECRETS: JSON.stringify([SECRET_1]) })
    const refused = await problemOf(await issue({ origin: 'photos', keys: ['a'] }, former))
    expect(refused.errors?.map((e) => e.path)).toEqual(['WAYBILL_LINK_SECRETS'])
    expect(refused.errors?.[0]?.message).toMatch(/WAYBILL_TOKEN_SECRETS/)
  })
})

describe('GET /l/{token}', () => {
  async function oneLink(env: Env, body: Record<string, unknown> = {}) {
    const answer = await links({ origin: 'photos', keys: ['a.jpg'], ...body }, env)
    return answer.links[0]!.url
  }

  it('refuses a link changed anywhere: payload, tag or secret id', async () => {
    const env = await linksEnv()
    const url = await oneLink(env)
    const token = new URL(url).pathname.slice('/l/'.length)
    const [id, payload, tag] = token.split('.') as [string, string, string]
    const other = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as Record<
      string,
      unknown
    >
    other.k = 'private/secret.jpg'
    const forged = btoa(JSON.stringify(other))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '')
    const flip = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1)
    const cases: Array<[string, number]> = [
      [`${id}.${forged}.${tag}`, 403],
      [`${id}.${payload}.${flip(tag)}`, 403],
      [`k2.${payload}.${tag}`, 403],
      // Not shaped like a link at all: a link waybill did not issue, as the README says.
      [`${id}.${payload}`, 404],
      ['not-a-link', 404],
    ]
    for (const [bad, status] of cases) {
      const response = await appAt().request(`/l/${bad}`, { redirect: 'manual' }, env)
      expect(response.status, bad).toBe(status)
      expect(response.headers.get('location'), bad).toBeNull()
      expect((await problemOf(response)).status).toBe(status)
    }
  })

  it('works until it expires, then answers 410 Gone', async () => {
    const env = await linksEnv()
    const url = await oneLink(env, { expiresIn: 600 })
    const near = await follow(url, env, 599)
    expect(near.status).toBe(302)
    // The URL it leads to never outlives the link.
    expect(new URL(near.headers.get('location')!).searchParams.get('X-Amz-Expires')).toBe('1')
    const gone = await follow(url, env, 600)
    expect(gone.status).toBe(410)
    expect((await problemOf(gone)).detail).toMatch(/expired/)
  })

  it('keeps old links working across a rotation, until their secret is removed', async () => {
    const before = await linksEnv()
    const old = await oneLink(before)
    const rotated = await linksEnv({ WAYBILL_TOKEN_SECRETS: JSON.stringify([SECRET_2, SECRET_1]) })
    expect((await follow(old, rotated)).status).toBe(302)
    const fresh = await oneLink(rotated)
    expect(new URL(fresh).pathname).toMatch(/^\/l\/k2\./)
    const dropped = await linksEnv({ WAYBILL_TOKEN_SECRETS: JSON.stringify([SECRET_2]) })
    expect((await follow(old, dropped)).status).toBe(403)
    expect((await follow(fresh, dropped)).status).toBe(302)
  })

  it('refuses links revoked by origin, by caller, or all before a time', async () => {
    const env = await linksEnv()
    const url = await oneLink(env)
    const later = new Date(NOW.getTime() + 1000).toISOString()
    const earlier = new Date(NOW.getTime() - 1000).toISOString()
    const cases: Array<[unknown[], number]> = [
      [[{ issuedBefore: later }], 410],
      [[{ issuedBefore: later, origin: 'photos' }], 410],
      [[{ issuedBefore: later, origin: 'docs' }], 302],
      [[{ issuedBefore: later, principal: 'apiKey:all' }], 410],
      [[{ issuedBefore: later, principal: 'apiKey:photos-only' }], 302],
      // The spelling before callers had one name still names the same caller.
      [[{ issuedBefore: later, principal: 'api-key:all' }], 410],
      [[{ issuedBefore: later, principal: 'api-key:photos-only' }], 302],
      [[{ issuedBefore: earlier }], 302],
    ]
    for (const [revocations, status] of cases) {
      const revoked = await linksEnv({ WAYBILL_LINK_REVOCATIONS: JSON.stringify(revocations) })
      const response = await follow(url, revoked, 10)
      expect(response.status, JSON.stringify(revocations)).toBe(status)
    }
  })

  it('answers 404 for a link to an origin no longer configured', async () => {
    const env = await linksEnv()
    const url = await oneLink(env)
    const without = await linksEnv({
      WAYBILL_ORIGINS: {
        docs: { type: 's3', bucket: 'docs', region: 'us-east-1', credentials: 'MAIN' },
      },
      WAYBILL_GRANTS: JSON.stringify([]),
    })
    expect((await follow(url, without)).status).toBe(404)
  })

  it('never shows who issued it', async () => {
    const env = await linksEnv()
    const token = new URL(await oneLink(env)).pathname.split('.')[1]!
    const payload = atob(token.replace(/-/g, '+').replace(/_/g, '/'))
    expect(payload).not.toContain('all')
  })
})

describe('links with maxUses', () => {
  /** The links env with the pool's link-use counters bound. */
  const countedEnv = (overrides: Partial<Env> = {}) =>
    linksEnv({ WAYBILL_LINK_USES: bindings.WAYBILL_LINK_USES, ...overrides })

  async function countedLink(env: Env, maxUses: number, keys = ['a.jpg']) {
    const answer = await links({ origin: 'photos', keys, maxUses }, env)
    expect(answer.maxUses).toBe(maxUses)
    return answer.links.map((link) => link.url)
  }

  /** What a link's token carries, unsealed by hand (its payload is base64url JSON). */
  const payloadOf = (url: string) =>
    JSON.parse(
      atob(new URL(url).pathname.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')),
    ) as Record<string, unknown>

  it('carries maxUses in each link and in the answer; a link without it says nothing of uses', async () => {
    const env = await countedEnv()
    const [url] = await countedLink(env, 3)
    expect(payloadOf(url!).u).toBe(3)
    const plain = await links({ origin: 'photos', keys: ['a.jpg'] }, env)
    expect(plain).not.toHaveProperty('maxUses')
    expect(payloadOf(plain.links[0]!.url)).not.toHaveProperty('u')
  })

  it('leads N times, then answers 410 saying it was used its N times', async () => {
    const env = await countedEnv()
    const [url] = await countedLink(env, 3)
    for (let i = 0; i < 3; i++) {
      const followed = await follow(url!, env, i)
      expect(followed.status, `use ${i + 1}`).toBe(302)
      expect(followed.headers.get('location')).toMatch(/^https:\/\/photos\.s3\./)
    }
    const spent = await follow(url!, env, 10)
    expect(spent.status).toBe(410)
    expect(spent.headers.get('location')).toBeNull()
    expect((await problemOf(spent)).detail).toBe(
      'This link was used its 3 times, all it allows; it works no more.',
    )
    const once = await countedLink(env, 1)
    expect((await follow(once[0]!, env)).status).toBe(302)
    expect((await problemOf(await follow(once[0]!, env))).detail).toBe(
      'This link was used its 1 time, all it allows; it works no more.',
    )
  })

  it('counts each link of a request alone', async () => {
    const env = await countedEnv()
    const urls = await countedLink(env, 1, ['a.jpg', 'b.jpg'])
    for (const url of urls) expect((await follow(url, env)).status).toBe(302)
    for (const url of urls) expect((await follow(url, env)).status).toBe(410)
  })

  it('counts a HEAD like a GET', async () => {
    const env = await countedEnv()
    const [url] = await countedLink(env, 1)
    const head = await appAt().request(new URL(url!).pathname, { method: 'HEAD' }, env)
    expect(head.status).toBe(302)
    expect((await follow(url!, env)).status).toBe(410)
  })

  it('never burns a use on a refused visit: tampered, revoked, issuer gone, origin gone, expired', async () => {
    const env = await countedEnv()
    const [url] = await countedLink(env, 1)
    const [id, payload, tag] = new URL(url!).pathname.slice('/l/'.length).split('.') as [
      string,
      string,
      string,
    ]
    const flipped = `${id}.${payload}.${(tag[0] === 'A' ? 'B' : 'A') + tag.slice(1)}`
    const tampered = await appAt().request(`/l/${flipped}`, { redirect: 'manual' }, env)
    expect(tampered.status).toBe(403)
    const later = new Date(NOW.getTime() + 1000).toISOString()
    const revoked = await countedEnv({
      WAYBILL_LINK_REVOCATIONS: JSON.stringify([{ issuedBefore: later }]),
    })
    expect((await follow(url!, revoked)).status).toBe(410)
    // The key that issued it is no longer configured.
    const issuerGone = await countedEnv({ WAYBILL_API_KEYS: JSON.stringify([]) })
    expect((await follow(url!, issuerGone)).status).toBe(410)
    const originGone = await countedEnv({
      WAYBILL_ORIGINS: {
        docs: { type: 's3', bucket: 'docs', region: 'us-east-1', credentials: 'MAIN' },
      },
      WAYBILL_GRANTS: JSON.stringify([]),
    })
    expect((await follow(url!, originGone)).status).toBe(404)
    expect((await follow(url!, env, DAY_S)).status).toBe(410)
    // Its one use is still there.
    expect((await follow(url!, env)).status).toBe(302)
    expect((await follow(url!, env)).status).toBe(410)
  })

  it('is a 400 naming maxUses and the binding where no counters are bound', async () => {
    const env = await linksEnv()
    const response = await issue({ origin: 'photos', keys: ['a.jpg'], maxUses: 1 }, env)
    expect(response.status).toBe(400)
    const { errors } = await problemOf(response)
    expect(errors?.map((e) => e.path)).toEqual(['maxUses'])
    expect(errors?.[0]?.message).toMatch(/WAYBILL_LINK_USES/)
  })

  it('fails closed: 503 with Retry-After when its counter cannot be reached or is unbound', async () => {
    const env = await countedEnv()
    const [url] = await countedLink(env, 1)
    const down = {
      idFromName: (name: string) => bindings.WAYBILL_LINK_USES.idFromName(name),
      get: () => ({
        use: () => Promise.reject(new Error('Durable Object reset because its code was updated.')),
      }),
    }
    for (const broken of [await countedEnv({ WAYBILL_LINK_USES: down }), await linksEnv()]) {
      const response = await follow(url!, broken)
      expect(response.status).toBe(503)
      expect(response.headers.get('location')).toBeNull()
      expect(response.headers.get('retry-after')).not.toBeNull()
      expect((await problemOf(response)).detail).toMatch(/count/)
    }
    expect((await follow(url!, env)).status).toBe(302)
  })

  it('leaves a link without maxUses alone: it never asks a counter', async () => {
    const trap = () => {
      throw new Error('an uncounted link asked a counter')
    }
    const env = await countedEnv({ WAYBILL_LINK_USES: { idFromName: trap, get: trap } })
    const answer = await links({ origin: 'photos', keys: ['a.jpg'] }, env)
    for (let i = 0; i < 3; i++) expect((await follow(answer.links[0]!.url, env)).status).toBe(302)
  })
})
