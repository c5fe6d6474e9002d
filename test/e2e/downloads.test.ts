// Downloads with names, end to end: every way waybill makes a URL (a /v1/sign item, a followed link,
// the redirect) asks versitygw for a Content-Disposition and a Content-Type, and the headers the
// store sends back must be exactly the ones asked for, for Unicode names, quotes and names that
// need escaping.

import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { apiKeysBinding } from '../helpers/api-keys'
import { e2eOrigin, objectUrl, store, workerEnv } from '../helpers/worker-env'

const NOW = new Date()
const app = createApp({ clock: () => NOW })
const ROOT = `downloads-${crypto.randomUUID().slice(0, 8)}`
const KEY = `${ROOT}/folder/report-2026.pdf`
const BODY = 'the report'
const API_KEY = 'wb_test_downloads_0123456789'

// Each name with the header worked out by hand (RFC 6266 + RFC 8187). Names are sanitized as
// upload names are (src/core/filename.ts): quotes, backslashes, "%", "?", "#", path separators,
// control and bidi/format characters become "_".
const NAMES: Array<[string, string]> = [
  ['plain.pdf', `attachment; filename="plain.pdf"; filename*=UTF-8''plain.pdf`],
  [
    'résumé "final".pdf',
    `attachment; filename="r_sum_ _final_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20_final_.pdf`,
  ],
  [
    '日本語 😀.txt',
    `attachment; filename="___ _.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E%20%F0%9F%98%80.txt`,
  ],
  [
    `a;b=c,d 100% back\\slash 'q'.bin`,
    `attachment; filename="slash 'q'.bin"; filename*=UTF-8''slash%20%27q%27.bin`,
  ],
  ['+&?#.txt', `attachment; filename="+&__.txt"; filename*=UTF-8''+&__.txt`],
  [
    'invoice\u202Efdp.exe',
    `attachment; filename="invoice_fdp.exe"; filename*=UTF-8''invoice_fdp.exe`,
  ],
]

let env: Env

beforeAll(async () => {
  env = {
    ...workerEnv,
    WAYBILL_ORIGINS: JSON.stringify({ e2e: { ...e2eOrigin(), keys: 'safe' } }),
    WAYBILL_API_KEYS: await apiKeysBinding([{ id: 'downloads', key: API_KEY }]),
    WAYBILL_GRANTS: JSON.stringify([
      { to: 'apiKey:downloads', origin: 'e2e', prefix: `${ROOT}/`, actions: ['read'] },
    ]),
    // Generated per run: never a fixed secret.
    WAYBILL_TOKEN_SECRETS: JSON.stringify([
      { id: 't', secret: btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))) },
    ]),
  }
  // Seeded straight into the store, not through the code under test.
  const response = await store.fetch(objectUrl(KEY), { method: 'PUT', body: BODY })
  expect(response.status).toBe(200)
})

const authorized = { authorization: `Bearer ${API_KEY}` }

/** GETs a signed URL from versitygw: its status, Content-Disposition, Content-Type and body. */
async function download(url: string) {
  const response = await fetch(url)
  return {
    status: response.status,
    disposition: response.headers.get('content-disposition'),
    type: response.headers.get('content-type'),
    body: await response.text(),
  }
}

async function signedUrls(items: unknown[]): Promise<string[]> {
  const response = await app.request(
    '/v1/sign',
    {
      method: 'POST',
      headers: { ...authorized, 'content-type': 'application/json' },
      body: JSON.stringify({ origin: 'e2e', items }),
    },
    env,
  )
  expect(response.status, await response.clone().text()).toBe(200)
  return (await response.json<{ urls: { url: string }[] }>()).urls.map(({ url }) => url)
}

/** Where a 302 from waybill points. */
async function location(path: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await app.request(path, { headers, redirect: 'manual' }, env)
  expect(response.status, await response.clone().text()).toBe(302)
  return response.headers.get('location')!
}

async function followedLinks(items: unknown[]): Promise<string[]> {
  const response = await app.request(
    'https://waybill.test/v1/links',
    {
      method: 'POST',
      headers: { ...authorized, 'content-type': 'application/json' },
      body: JSON.stringify({ origin: 'e2e', items }),
    },
    env,
  )
  expect(response.status, await response.clone().text()).toBe(200)
  const { links } = await response.json<{ links: { url: string }[] }>()
  // Followed with no credentials at all, as an <img src> or a mail client would.
  return Promise.all(links.map(({ url }) => location(new URL(url).pathname)))
}

describe('downloads with names against versitygw', () => {
  it('a /v1/sign item gets back exactly the Content-Disposition asked for', async () => {
    const urls = await signedUrls(NAMES.map(([name]) => ({ key: KEY, download: name })))
    for (const [i, [name, header]] of NAMES.entries()) {
      const got = await download(urls[i]!)
      expect(got.status, name).toBe(200)
      expect(got.disposition, name).toBe(header)
      expect(got.body).toBe(BODY)
    }
  })

  it('a followed link gets back exactly the Content-Disposition asked for', async () => {
    const urls = await followedLinks(NAMES.map(([name]) => ({ key: KEY, download: name })))
    for (const [i, [name, header]] of NAMES.entries()) {
      const got = await download(urls[i]!)
      expect(got.status, name).toBe(200)
      expect(got.disposition, name).toBe(header)
    }
  })

  it('the redirect with ?download=name gets back exactly the Content-Disposition asked for', async () => {
    for (const [name, header] of NAMES) {
      const url = await location(
        `/v1/redirect/e2e/${KEY}?download=${encodeURIComponent(name)}`,
        authorized,
      )
      const got = await download(url)
      expect(got.status, name).toBe(200)
      expect(got.disposition, name).toBe(header)
    }
  })

  it('?download alone names the file after the key; inline and contentType are sent back', async () => {
    const [bare] = [await location(`/v1/redirect/e2e/${KEY}?download`, authorized)]
    expect((await download(bare)).disposition).toBe(
      `attachment; filename="report-2026.pdf"; filename*=UTF-8''report-2026.pdf`,
    )
    const [inline, typed] = await signedUrls([
      { key: KEY, inline: 'voilà.pdf' },
      { key: KEY, download: true, response: { contentType: 'application/pdf' } },
    ])
    expect((await download(inline!)).disposition).toBe(
      `inline; filename="voil_.pdf"; filename*=UTF-8''voil%C3%A0.pdf`,
    )
    const got = await download(typed!)
    expect(got.type).toBe('application/pdf')
    expect(got.disposition).toBe(
      `attachment; filename="report-2026.pdf"; filename*=UTF-8''report-2026.pdf`,
    )
    const [linked] = await followedLinks([{ key: KEY, inline: true, contentType: 'text/plain' }])
    const viaLink = await download(linked!)
    expect(viaLink.disposition).toBe(
      `inline; filename="report-2026.pdf"; filename*=UTF-8''report-2026.pdf`,
    )
    expect(viaLink.type).toBe('text/plain')
  })

  it('a tampered disposition is refused by the store', async () => {
    const [url] = await signedUrls([{ key: KEY, download: 'a.pdf' }])
    const tampered = url!.replace('a.pdf', 'b.pdf')
    expect(tampered).not.toBe(url)
    const response = await fetch(tampered)
    await response.body?.cancel()
    expect(response.status).toBe(403)
  })
})
