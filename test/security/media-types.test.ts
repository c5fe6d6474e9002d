// Media-type smuggling (issue #20, faults 1 to 3): a Content-Type is parsed strictly into one
// canonical type, and judged by allowlist. Each test failed on 9207624, where a permissive regex
// judged only the text before the first ";" against a denylist.

import { beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import { form, postForm } from '../helpers/forms'
import { objectUrl, store } from '../helpers/worker-env'
import { call, problem, ROOT, securityEnv } from '../helpers/security-world'

let env: Env
const ALICE = `${ROOT}/alice/`
const TYPED = `${ROOT}/typed/`
const PNG_ONLY = `${ROOT}/png-only/`
const IMAGES = `${ROOT}/images/`

/** Browsers take the last type of a comma-separated Content-Type: each of these renders as HTML. */
const SMUGGLED = [
  'text/plain;,text/html',
  'text/plain; charset=utf-8, text/html',
  'application/pdf;x="y",image/svg+xml',
  'image/png,text/html',
  'text/plain;x="a,text/html"',
]

beforeAll(async () => {
  env = await securityEnv({}, [
    // A reader whose grant lists the one type it may set.
    {
      to: 'apiKey:alice',
      origin: 's3',
      prefix: TYPED,
      actions: ['read'],
      responseContentTypes: ['text/plain'],
    },
    // A writer of PNGs only, and one of images (the README's own example grant).
    {
      to: 'apiKey:alice',
      origin: 's3',
      prefix: PNG_ONLY,
      actions: ['write'],
      contentTypes: ['image/png'],
      overwrite: true,
    },
    {
      to: 'apiKey:alice',
      origin: 's3',
      prefix: IMAGES,
      actions: ['write'],
      contentTypes: ['image/*'],
    },
  ])
})

const paths = async (response: Response) => (await problem(response)).errors?.map((e) => e.path)

describe('1: a response override is one passive type, whatever a grant lists', () => {
  for (const type of SMUGGLED) {
    it(`refuses ${JSON.stringify(type)} on /v1/sign, the redirect and links`, async () => {
      for (const folder of [ALICE, TYPED]) {
        const signed = await call(env, 'POST', '/v1/sign', {
          origin: 's3',
          items: [{ key: `${folder}a.txt`, response: { contentType: type } }],
        })
        expect(await paths(signed), folder).toEqual(['items.0.response.contentType'])
        const query = new URLSearchParams({ contentType: type })
        const redirect = await call(
          env,
          'GET',
          `/v1/redirect/s3/${folder}a.txt?${query.toString()}`,
        )
        expect(await paths(redirect), folder).toEqual(['contentType'])
        const links = await call(env, 'POST', '/v1/links', {
          origin: 's3',
          items: [{ key: `${folder}a.txt`, contentType: type }],
        })
        expect(await paths(links), folder).toEqual(['items.0.contentType'])
      }
    })
  }

  it('signs the canonical form, which the store then serves', async () => {
    const key = `${ALICE}served.txt`
    expect((await store.fetch(objectUrl(key), { method: 'PUT', body: 'hello' })).status).toBe(200)
    const response = await call(env, 'POST', '/v1/sign', {
      origin: 's3',
      items: [{ key, response: { contentType: 'Text/Plain ; Charset="UTF-8"' } }],
    })
    expect(response.status).toBe(200)
    const { urls } = await response.json<{ urls: { url: string }[] }>()
    expect(new URL(urls[0]!.url).searchParams.get('response-content-type')).toBe(
      'text/plain; charset=utf-8',
    )
    const served = await fetch(urls[0]!.url)
    expect(served.headers.get('content-type')).toBe('text/plain; charset=utf-8')
  })

  it('never sets an active type the grant does not name exactly', async () => {
    for (const type of ['text/html', 'image/svg+xml', 'application/xhtml+xml', 'text/javascript']) {
      const response = await call(env, 'POST', '/v1/sign', {
        origin: 's3',
        items: [{ key: `${ALICE}a.txt`, response: { contentType: type } }],
      })
      const body = await problem(response)
      expect(body.errors?.[0]?.message, type).toContain(`must not be ${type}`)
    }
  })
})

describe('2: an upload signs one exact type', () => {
  const upload = (body: Record<string, unknown>) =>
    call(env, 'POST', '/v1/uploads', { origin: 's3', key: `${PNG_ONLY}x.png`, ...body })

  for (const type of SMUGGLED.filter((t) => t.startsWith('image/')).concat(
    'image/png;,text/html',
  )) {
    it(`refuses ${JSON.stringify(type)} for PUT and POST`, async () => {
      for (const mode of ['put', 'post']) {
        const response = await upload({
          mode,
          overwrite: true,
          contentType: type,
          contentLength: 10,
        })
        expect(await paths(response), mode).toEqual(['contentType'])
      }
    })
  }

  it('refuses a family: a POST policy never says starts-with', async () => {
    const response = await upload({ mode: 'post', overwrite: true, contentType: 'image/*' })
    expect(await paths(response)).toEqual(['contentType'])
  })

  it('is enforced by the store: a form sending "image/png,text/html" is refused', async () => {
    const response = await upload({
      mode: 'post',
      overwrite: true,
      contentType: 'image/png',
      contentLength: 4,
    })
    expect(response.status).toBe(200)
    const { url, fields } = await response.json<{ url: string; fields: Record<string, string> }>()
    const policy = JSON.parse(atob(fields.policy!)) as { conditions: unknown[] }
    expect(policy.conditions).toContainEqual(['eq', '$Content-Type', 'image/png'])
    const png = new Blob([new Uint8Array(4)], { type: 'image/png' })
    const smuggled = form(fields, png, { 'Content-Type': 'image/png,text/html' })
    expect((await postForm(url, smuggled)).status).toBe(403)
    expect((await store.fetch(objectUrl(`${PNG_ONLY}x.png`))).status).toBe(404)
  })
})

describe('3: a family admits only its passive types', () => {
  it('refuses image/svg+xml through an image/* grant, naming the type', async () => {
    const svg = await call(env, 'POST', '/v1/uploads', {
      origin: 's3',
      key: `${IMAGES}logo.svg`,
      contentType: 'image/svg+xml',
      contentLength: 100,
    })
    const body = await problem(svg)
    expect(body.status).toBe(400)
    expect(body.errors?.[0]).toMatchObject({
      path: 'contentType',
      message: expect.stringContaining('image/svg+xml') as string,
    })
    const png = await call(env, 'POST', '/v1/uploads', {
      origin: 's3',
      key: `${IMAGES}logo.png`,
      contentType: 'image/png',
      contentLength: 100,
    })
    expect(png.status).toBe(200)
  })
})
