// The conformance suite every origin driver passes, through waybill's own routes and against a
// real verifier of what it signs (versitygw for S3, which checks SigV4 and every signed header;
// test/helpers/cloudfront-edge.ts for CloudFront, which checks the policy with the public key).
// One call per driver (test/origins/*.test.ts). A capability the origin has is exercised end to
// end; one it lacks must be refused with the problem its route documents.
//
// What each driver must do:
// - a signed read fetches the exact bytes (GET and HEAD); a tampered URL, or an expired one, is
//   refused by the verifier;
// - response overrides reach the answer where the origin carries them, and are refused (403,
//   naming the item) where it does not;
// - uploads store the exact bytes, bound to their checksum (other bytes are refused by the store),
//   refusing to replace an object by default; a form and a multipart upload where it takes them;
// - listing pages through the objects, each with a URL that fetches it;
// - a wildcard policy and its cookies reach every object under their prefix, and only those.

import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { loadConfig, type Config } from '../../src/config'
import type { Env } from '../../src/env'
import type { Origin } from '../../src/origins/types'
import { form, postForm } from '../helpers/forms'
import { sha256Base64 } from '../helpers/hex'
import { objectUrl, store } from '../helpers/worker-env'

type App = ReturnType<typeof createApp>

/** What a driver's test gives the suite. */
export interface Subject {
  /** The origin under test, as named in `env`. */
  origin: string
  /** An env with that origin, and `key` granted every action on it (wildcards where it has them). */
  env: Env
  /** The API key the grant is for. */
  key: string
  /** Puts bytes at `key` in the store behind the origin, around waybill. */
  seed(key: string, bytes: Uint8Array): Promise<void>
  /** Reads `key` from the store behind the origin, around waybill: its bytes, or its status. */
  stored(key: string): Promise<Uint8Array | number>
  /** What a browser sends to follow a URL the origin signed, with `cookies` when given. */
  follow(
    url: string,
    init?: { method?: string; cookies?: Record<string, string> },
  ): Promise<Response>
  /**
   * How an upload reaches a URL the origin signed (a PUT, a form, a part): fetch for a store's
   * URL, the Worker itself for one it serves.
   */
  send?: (url: string, init: RequestInit) => Promise<Response>
  /** A folder of its own for this run. */
  folder: string
}

const bytes = (text: string) => new TextEncoder().encode(text)

/** Seeding and reading the e2e bucket around waybill, for drivers whose store it is or fronts. */
export const e2eBucket: Pick<Subject, 'seed' | 'stored'> = {
  async seed(key, body) {
    const put = await store.fetch(objectUrl(key), { method: 'PUT', body })
    if (!put.ok) throw new Error(`seeding ${key}: ${put.status}`)
  },
  async stored(key) {
    const got = await store.fetch(objectUrl(key))
    return got.status === 200 ? new Uint8Array(await got.arrayBuffer()) : got.status
  },
}

/** The conformance tests of one driver. */
export function describeConformance(driver: string, setup: () => Promise<Subject>) {
  describe(`the ${driver} driver conforms`, () => {
    let s: Subject
    let origin: Origin
    const app = createApp()
    /** The same app two hours ago: what it signs has expired by now. */
    const earlier = createApp({ clock: () => new Date(Date.now() - 2 * 3_600_000) })
    const call = (path: string, body?: unknown, worker: App = app) =>
      worker.request(
        path,
        {
          method: body === undefined ? 'GET' : 'POST',
          headers: {
            authorization: `Bearer ${s.key}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        },
        s.env,
      )
    const signed = async (body: Record<string, unknown>, worker: App = app) => {
      const response = await call('/v1/sign', { origin: s.origin, ...body }, worker)
      expect(response.status, await response.clone().text()).toBe(200)
      return (await response.json<{ urls: { url: string }[] }>()).urls.map((u) => u.url)
    }
    const problemOf = async (response: Response) => {
      expect(response.headers.get('content-type')).toContain('application/problem+json')
      return response.json<{ status: number; errors: { path: string }[] }>()
    }

    const send = (url: string, init: RequestInit) => (s.send ?? fetch)(url, init)

    beforeAll(async () => {
      s = await setup()
      const loaded = loadConfig(s.env)
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors))
      origin = (loaded.config satisfies Config).origins.get(s.origin)!
    })

    it('signs a read that fetches the exact bytes, GET and HEAD', async () => {
      const key = `${s.folder}read/ü a+b.txt`
      await s.seed(key, bytes('the exact bytes'))
      const [get] = await signed({ keys: [key] })
      const got = await s.follow(get!)
      expect(got.status).toBe(200)
      expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes('the exact bytes'))
      const [head] = await signed({ method: 'HEAD', keys: [key] })
      const headed = await s.follow(head!, { method: 'HEAD' })
      expect(headed.status).toBe(200)
      expect(headed.headers.get('content-length')).toBe('15')
    })

    it('signs nothing its verifier accepts once tampered with or expired', async () => {
      const key = `${s.folder}read/guarded.txt`
      await s.seed(key, bytes('guarded'))
      const [url] = await signed({ keys: [key] })
      // Another object under the same signature, and the signature changed in one place.
      const other = url!.replace('guarded.txt', 'guarded.tx1')
      expect((await s.follow(other)).status).toBe(403)
      const signature = /([?&](?:X-Amz-Signature|Signature|s)=)([^&]+)/.exec(url!)!
      // Another character of the same kind (hex stays hex), so only the signature is wrong.
      const flipped = signature[2]!.startsWith('a') ? 'b' : 'a'
      const tampered = url!.replace(
        signature[0],
        `${signature[1]}${flipped}${signature[2]!.slice(1)}`,
      )
      expect((await s.follow(tampered)).status).toBe(403)
      const [expired] = await signed({ keys: [key], expiresIn: 60 }, earlier)
      expect((await s.follow(expired!)).status).toBe(403)
    })

    it('carries response overrides where it says it can, and refuses them where it cannot', async () => {
      const key = `${s.folder}read/report.txt`
      await s.seed(key, bytes('report'))
      const items = [{ key, download: 'Report 2026.txt' }]
      if (origin.urls.overrides) {
        const [url] = await signed({ items })
        const got = await s.follow(url!)
        expect(got.status).toBe(200)
        expect(got.headers.get('content-disposition')).toContain('Report 2026.txt')
      } else {
        const refused = await problemOf(await call('/v1/sign', { origin: s.origin, items }))
        expect(refused.status).toBe(403)
        expect(refused.errors.map((e) => e.path)).toEqual(['items.0'])
      }
    })

    it('lists in pages, each object with a URL that fetches it', async () => {
      const folder = `${s.folder}list/`
      const path = `/v1/list/${s.origin}?prefix=${encodeURIComponent(folder)}&limit=2`
      if (origin.listing === undefined) {
        const refused = await problemOf(await call(path))
        expect(refused.status).toBe(403)
        expect(refused.errors.map((e) => e.path)).toEqual(['origin'])
        return
      }
      for (const name of ['a', 'b', 'c']) await s.seed(`${folder}${name}`, bytes(name))
      const keys: string[] = []
      let cursor: string | null = null
      do {
        const page = await call(`${path}${cursor === null ? '' : `&cursor=${cursor}`}`)
        expect(page.status).toBe(200)
        const body = await page.json<{
          items: { key: string; url: string }[]
          cursor: string | null
        }>()
        expect(body.items.length).toBeLessThanOrEqual(2)
        for (const item of body.items) {
          const got = await s.follow(item.url)
          expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes(item.key.slice(-1)))
          keys.push(item.key)
        }
        cursor = body.cursor
      } while (cursor !== null)
      expect(keys).toEqual([`${folder}a`, `${folder}b`, `${folder}c`])
    })

    it('stores an upload exactly, bound to its checksum, never replacing by default', async () => {
      const key = `${s.folder}up/put.txt`
      const body = { origin: s.origin, key, contentType: 'text/plain', contentLength: 5 }
      if (origin.uploads === undefined) {
        const refused = await problemOf(await call('/v1/uploads', body))
        expect(refused.status).toBe(403)
        expect(refused.errors.map((e) => e.path)).toEqual(['origin'])
        return
      }
      const checksumSha256 = await sha256Base64(bytes('hello'))
      const issued = await call('/v1/uploads', { ...body, checksumSha256 })
      expect(issued.status, await issued.clone().text()).toBe(200)
      const put = await issued.json<{ url: string; headers: Record<string, string> }>()
      const sendPut = (payload: string) =>
        send(put.url, {
          method: 'PUT',
          headers: Object.fromEntries(
            Object.entries(put.headers).filter(([name]) => name !== 'content-length'),
          ),
          body: bytes(payload),
        })
      // Other bytes of the same length: refused by the store, which checks the signed checksum.
      expect((await sendPut('HELLO')).ok).toBe(false)
      expect(await s.stored(key)).toBe(404)
      expect((await sendPut('hello')).status).toBe(200)
      expect(await s.stored(key)).toEqual(bytes('hello'))
      // A second upload at the key, not asked to replace: the store keeps the first.
      const again = await call('/v1/uploads', { ...body, checksumSha256 })
      const second = await again.json<{ url: string; headers: Record<string, string> }>()
      const replaced = await send(second.url, {
        method: 'PUT',
        headers: Object.fromEntries(
          Object.entries(second.headers).filter(([name]) => name !== 'content-length'),
        ),
        body: bytes('hello'),
      })
      expect(replaced.status).toBe(412)
    })

    it('takes a browser form where it says so, and a multipart upload', async () => {
      if (origin.uploads === undefined) return
      const post = {
        origin: s.origin,
        mode: 'post',
        overwrite: true,
        key: `${s.folder}up/form.txt`,
        contentType: 'text/plain',
      }
      if (origin.uploads.modes.includes('post')) {
        const issued = await call('/v1/uploads', post)
        expect(issued.status, await issued.clone().text()).toBe(200)
        const { url, fields } = await issued.json<{ url: string; fields: Record<string, string> }>()
        const sent = await postForm(url, form(fields, new Blob([bytes('form')])), send)
        expect(sent.status).toBe(204)
        expect(await s.stored(post.key)).toEqual(bytes('form'))
      } else {
        const refused = await problemOf(await call('/v1/uploads', post))
        expect(refused.status).toBe(400)
        expect(refused.errors.map((e) => e.path)).toEqual(['mode'])
      }
      const key = `${s.folder}up/parts.txt`
      const started = await call('/v1/uploads', {
        origin: s.origin,
        mode: 'multipart',
        key,
        contentType: 'text/plain',
        contentLength: 4,
      })
      expect(started.status, await started.clone().text()).toBe(200)
      const upload = await started.json<{ uploadId: string; parts: { url: string }[] }>()
      const part = await send(upload.parts[0]!.url, { method: 'PUT', body: bytes('part') })
      expect(part.ok, await part.clone().text()).toBe(true)
      const done = await call('/v1/uploads/multipart/complete', {
        origin: s.origin,
        key,
        uploadId: upload.uploadId,
      })
      expect(done.status, await done.clone().text()).toBe(200)
      expect(await s.stored(key)).toEqual(bytes('part'))
    })

    it('reaches what is under a wildcard policy and its cookies, and nothing else', async () => {
      const folder = `${s.folder}wild/`
      const cookies = await call('/v1/cookies', { origin: s.origin, prefix: folder })
      if (origin.wildcards === undefined) {
        const refused = await problemOf(cookies)
        expect(refused.status).toBe(403)
        expect(refused.errors.map((e) => e.path)).toEqual(['origin'])
        return
      }
      await s.seed(`${folder}in.txt`, bytes('in'))
      await s.seed(`${s.folder}out.txt`, bytes('out'))
      const [url] = await signed({ policy: 'wildcard', keys: [`${folder}in.txt`] })
      expect(new Uint8Array(await (await s.follow(url!)).arrayBuffer())).toEqual(bytes('in'))
      // The same policy on an object outside the prefix: refused.
      const outside = url!.replace(`${encodeURIComponent('wild')}/in.txt`, 'out.txt')
      expect((await s.follow(outside)).status).toBe(403)
      expect(cookies.status).toBe(200)
      const { cookies: values, resource } = await cookies.json<{
        cookies: Record<string, string>
        resource: string
      }>()
      const inside = `${resource.slice(0, -1)}in.txt`
      expect(
        new Uint8Array(await (await s.follow(inside, { cookies: values })).arrayBuffer()),
      ).toEqual(bytes('in'))
      expect(
        (await s.follow(`${resource.slice(0, -1)}../out.txt`, { cookies: values })).status,
      ).toBe(403)
    })
  })
}
