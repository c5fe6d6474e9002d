// R2 through the Worker's binding, in Chromium (issue #30): Uppy uploads to the "demo-r2" origin
// with one PUT, with a POST form, and through multipart resumed after a reload, every request to
// waybill's own URLs on the Worker's host; the demo page's gallery shows what was stored; and the
// origin's CORS setting lets the one page it names upload and read, while another page's
// preflight is refused. Stored bytes are read back through signed URLs and compared by SHA-256.

import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { chromium, type Browser, type Page, type Request, type Route } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { responseStatuses } from '../helpers/response-statuses'
import { freePort } from '../../scripts/versitygw.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const MIB = 1024 * 1024
const STEP_TIMEOUT_MS = 60_000
const PAGE_PATH = '/uppy-test/'
const ORIGIN = 'demo-r2'
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self' data: http: https:"

const demo = inject('browserDemo')
const ownPrefix = `${demo.baseUrl}/o/${ORIGIN}/`

async function api<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${demo.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

/** The object's bytes as a signed GET on "demo-r2" fetches them, by SHA-256. */
async function storedSha256(key: string): Promise<{ status: number; sha256: string }> {
  const { urls } = await api<{ urls: { url: string }[] }>('/v1/sign', {
    origin: ORIGIN,
    keys: [key],
  })
  expect(urls[0]!.url.startsWith(ownPrefix)).toBe(true)
  const response = await fetch(urls[0]!.url, { signal: AbortSignal.timeout(30_000) })
  const bytes = new Uint8Array(await response.arrayBuffer())
  return { status: response.status, sha256: createHash('sha256').update(bytes).digest('hex') }
}

let browser: Browser
let bundle: { js: string; css: string }
let tmp: string

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'waybill-r2-'))
  await build({
    entryPoints: { uppy: join(HERE, 'uppy', 'page.ts') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outdir: tmp,
    logLevel: 'error',
  })
  bundle = {
    js: readFileSync(join(tmp, 'uppy.js'), 'utf8'),
    css: readFileSync(join(tmp, 'uppy.css'), 'utf8'),
  }
  browser = await chromium.launch({
    executablePath: demo.chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic'],
    timeout: STEP_TIMEOUT_MS,
  })
})

afterAll(async () => {
  await browser?.close()
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

const HTML = `<!doctype html><html><head><meta charset="utf-8"><title>Uppy and waybill on R2</title>
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<link rel="stylesheet" href="${PAGE_PATH}uppy.css"></head><body><div id="uploads"></div>
<script type="module" src="${PAGE_PATH}uppy.js"></script></body></html>`

interface Sent {
  method: string
  url: URL
  status: number | undefined
}

/** The Uppy test page on the Worker's origin (as test/browser/uppy.test.ts), its requests kept. */
async function openPage(context: Pick<Browser, 'newPage'> = browser) {
  const page = await context.newPage()
  page.setDefaultTimeout(STEP_TIMEOUT_MS)
  page.on('pageerror', (error) => console.error(`pageerror: ${error.message}`))
  await page.route(`${demo.baseUrl}${PAGE_PATH}**`, async (route) => {
    const name = new URL(route.request().url()).pathname.slice(PAGE_PATH.length)
    const [body, type] =
      name === 'uppy.js' ? [bundle.js, 'text/javascript'] : [bundle.css, 'text/css']
    await route.fulfill({ status: 200, body, headers: { 'content-type': type } })
  })
  const sent: Sent[] = []
  const statusOf = responseStatuses(page)
  const done = (request: Request) => {
    if (request.url().startsWith('data:')) return
    sent.push({ method: request.method(), url: new URL(request.url()), status: statusOf(request) })
  }
  page.on('requestfinished', done)
  page.on('requestfailed', done)
  return { page, sent }
}

async function startUppy(page: Page, options: Record<string, string | boolean>) {
  await page.goto(`${demo.baseUrl}/healthz`)
  await page.setContent(HTML)
  await page.waitForFunction(() => window.uppyTest?.ready === true)
  await page.evaluate((o) => window.uppyTest.start(o as never), options)
}

const toStore = (sent: Sent[]) =>
  sent.filter((s) => s.url.href.startsWith(ownPrefix) || s.url.pathname === `/o/${ORIGIN}`)
const waybillCalls = (sent: Sent[], path: string) =>
  sent.filter((s) => s.method === 'POST' && s.url.pathname === path)

describe('Uppy with waybill on R2 through the binding', () => {
  it('uploads a small file with one PUT to waybill’s own URL, byte for byte', async () => {
    const { page, sent } = await openPage()
    try {
      await startUppy(page, { apiKey: demo.apiKey, origin: ORIGIN })
      const sha256 = await page.evaluate(() =>
        window.uppyTest.add('r2 notes.txt', 'text/plain', 200_000, 11),
      )
      const [outcome] = await page.evaluate(() => window.uppyTest.upload())
      expect(outcome?.error).toBeUndefined()
      expect(outcome?.key).toMatch(/^uploads\/demo\/[0-9a-f-]{36}-r2 notes\.txt$/)
      expect(await storedSha256(outcome!.key!)).toEqual({ status: 200, sha256 })
      // The last call, once recorded (`sent` hears of a request when it has finished, which can be
      // after the page has its answer).
      await expect
        .poll(() => waybillCalls(sent, '/v1/uploads/complete').map((s) => s.status))
        .toEqual([200])
      expect(toStore(sent).map((s) => [s.method, s.status])).toEqual([['PUT', 200]])
    } finally {
      await page.close()
    }
  })

  it('uploads a small file as a POST form that waybill signs and checks itself', async () => {
    const { page, sent } = await openPage()
    try {
      // A form replaces what is at its key, so the adapter sends one only with overwrite.
      await startUppy(page, { apiKey: demo.apiKey, origin: ORIGIN, mode: 'post', overwrite: true })
      const sha256 = await page.evaluate(() =>
        window.uppyTest.add('r2 form.bin', 'application/octet-stream', 300_000, 12),
      )
      const [outcome] = await page.evaluate(() => window.uppyTest.upload())
      expect(outcome?.error).toBeUndefined()
      expect(await storedSha256(outcome!.key!)).toEqual({ status: 200, sha256 })
      const stored = toStore(sent)
      expect(stored.map((s) => s.method)).toEqual(['POST'])
      expect(stored[0]!.url.pathname).toBe(`/o/${ORIGIN}`)
      expect([200, 201, 204]).toContain(stored[0]!.status)
    } finally {
      await page.close()
    }
  })

  it('resumes a multipart upload interrupted by a reload from the parts waybill recorded', async () => {
    const context = await browser.newContext()
    const { page, sent } = await openPage(context)
    try {
      await startUppy(page, { apiKey: demo.apiKey, origin: ORIGIN })
      const size = 22 * MIB + 11
      const sha256 = await page.evaluate(
        (n) => window.uppyTest.add('r2 resumed.bin', 'application/octet-stream', n, 14),
        size,
      )
      // Part 3 is held in the browser, never reaching the Worker, and the page reloaded while it
      // waits: a closed tab and a new visit mid-upload.
      let release: () => void = () => undefined
      const released = new Promise<void>((resolve) => (release = resolve))
      let held = false
      const partThree = (url: URL) =>
        url.href.startsWith(ownPrefix) && url.searchParams.get('n') === '3'
      const hold = async (route: Route) => {
        held = true
        await released
        await route.abort().catch(() => undefined)
      }
      await page.route(partThree, hold)
      // The other parts as the browser sends them: `sent` hears of a request when it has finished,
      // which can be after part 3 is sent.
      let sentParts = 0
      const countPart = (request: Request) => {
        if (request.method() === 'PUT' && !partThree(new URL(request.url()))) {
          if (request.url().startsWith(ownPrefix)) sentParts++
        }
      }
      page.on('request', countPart)
      void page.evaluate(() => window.uppyTest.upload()).catch(() => undefined)
      await expect.poll(() => held, { timeout: 60_000 }).toBe(true)
      const partsStored = (list: Sent[]) =>
        toStore(list).filter((s) => s.method === 'PUT' && s.status === 200).length
      // Every other part sent before the reload has ended and been recorded.
      const recorded = () => toStore(sent).filter((s) => s.method === 'PUT').length
      await expect.poll(() => recorded() === sentParts, { timeout: 20_000 }).toBe(true)
      page.off('request', countPart)
      const before = partsStored(sent)
      await page.reload()
      release()
      await page.unroute(partThree, hold)
      sent.length = 0
      await startUppy(page, { apiKey: demo.apiKey, origin: ORIGIN })
      await expect
        .poll(() => page.evaluate(() => window.uppyTest.restored()), { timeout: 20_000 })
        .toEqual([{ name: 'r2 resumed.bin', hasData: true, resumable: true }])

      const [outcome] = await page.evaluate(() => window.uppyTest.resume())
      expect(outcome?.error).toBeUndefined()
      expect(await storedSha256(outcome!.key!)).toEqual({ status: 200, sha256 })
      // No new upload: the parts waybill recorded were listed, and only the others sent.
      expect(waybillCalls(sent, '/v1/uploads')).toHaveLength(0)
      expect(waybillCalls(sent, '/v1/uploads/multipart/list').map((s) => s.status)).toEqual([200])
      const after = partsStored(sent)
      // 5 MiB parts: 5 in all, part 3 among those sent after the reload.
      expect(before).toBeGreaterThanOrEqual(1)
      expect(before + after).toBe(5)
      expect(toStore(sent).some((s) => s.url.searchParams.get('n') === '3')).toBe(true)
    } finally {
      await context.close()
    }
  })

  it('shows what was stored in the demo page’s gallery of the R2 origin', async () => {
    const key = `gallery-r2/${Date.now()}.txt`
    const upload = await api<{ url: string; headers: Record<string, string> }>('/v1/uploads', {
      origin: ORIGIN,
      key,
      contentType: 'text/plain',
      contentLength: 5,
    })
    expect(
      (await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: 'hello' })).status,
    ).toBe(200)
    const page = await browser.newPage()
    try {
      await page.goto(`${demo.baseUrl}/?origin=${ORIGIN}#key=${demo.apiKey}`)
      expect(await page.locator('#origin-name').textContent()).toBe(ORIGIN)
      expect(await page.locator('#origins a[aria-current="page"]').textContent()).toBe(ORIGIN)
      await page.locator(`#gallery li[data-key="${key}"]`).waitFor({ timeout: 30_000 })
      const href = await page
        .locator(`#gallery li[data-key="${key}"] a`)
        .first()
        .getAttribute('href')
      expect(href?.startsWith(ownPrefix)).toBe(true)
    } finally {
      await page.close()
    }
  })
})

/** A plain page server on `origin`'s port: the document a test evaluates scripts in. */
async function pageServer(origin: string): Promise<Server> {
  const server = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end('<!doctype html><title>a page</title><p>a page</p>')
  })
  await new Promise<void>((resolve) =>
    server.listen(Number(new URL(origin).port), '127.0.0.1', resolve),
  )
  return server
}

describe('CORS on the R2 origin follows its own setting', () => {
  let allowed: Server
  let other: Server
  let otherOrigin: string

  beforeAll(async () => {
    otherOrigin = `http://127.0.0.1:${await freePort()}`
    allowed = await pageServer(demo.r2PageOrigin)
    other = await pageServer(otherOrigin)
  })

  afterAll(async () => {
    await new Promise((resolve) => allowed?.close(resolve))
    await new Promise((resolve) => other?.close(resolve))
  })

  /** In a page on `origin`: PUT then GET through signed URLs, or the error the fetch threw. */
  async function tryFrom(origin: string, key: string) {
    const upload = await api<{ url: string; headers: Record<string, string> }>('/v1/uploads', {
      origin: ORIGIN,
      key,
      contentType: 'text/plain',
      contentLength: 11,
    })
    const page = await browser.newPage()
    try {
      await page.goto(`${origin}/`)
      const put = await page.evaluate(
        async ({ url, headers }) => {
          try {
            const response = await fetch(url, { method: 'PUT', headers, body: 'hello world' })
            return { status: response.status }
          } catch (error) {
            return { error: (error as Error).name }
          }
        },
        { url: upload.url, headers: upload.headers },
      )
      return { put, page }
    } catch (error) {
      await page.close()
      throw error
    }
  }

  /** What the Worker answers a preflight for a PUT from `origin`. */
  async function preflight(origin: string) {
    const response = await fetch(`${ownPrefix}cors-r2/x.txt`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    })
    return {
      status: response.status,
      allowOrigin: response.headers.get('access-control-allow-origin'),
      allowMethods: response.headers.get('access-control-allow-methods'),
    }
  }

  it('answers a preflight for the page it names, and no other', async () => {
    const allowed = await preflight(demo.r2PageOrigin)
    expect(allowed.status).toBe(204)
    expect(allowed.allowOrigin).toBe(demo.r2PageOrigin)
    expect(allowed.allowMethods?.split(', ')).toContain('PUT')
    expect((await preflight(otherOrigin)).allowOrigin).toBeNull()
  })

  it('lets the page it names upload and read', async () => {
    const key = `cors-r2/${Date.now()}-allowed.txt`
    const { put, page } = await tryFrom(demo.r2PageOrigin, key)
    try {
      expect(put).toEqual({ status: 200 })
      const { urls } = await api<{ urls: { url: string }[] }>('/v1/sign', {
        origin: ORIGIN,
        keys: [key],
      })
      const read = await page.evaluate(async (url) => {
        const response = await fetch(url)
        return { status: response.status, text: await response.text() }
      }, urls[0]!.url)
      expect(read).toEqual({ status: 200, text: 'hello world' })
    } finally {
      await page.close()
    }
  })

  it('refuses another page: its preflight fails and nothing is stored', async () => {
    const key = `cors-r2/${Date.now()}-other.txt`
    const { put, page } = await tryFrom(otherOrigin, key)
    await page.close()
    expect(put).toEqual({ error: 'TypeError' })
    expect((await storedSha256(key)).status).toBe(404)
  })
})
