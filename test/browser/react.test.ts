// waybill-client/react in a real Chromium with a real React 19 build (react and react-dom from
// npm, bundled here by esbuild), against `wrangler dev` and versitygw: useUpload shows a
// multipart upload's progress, pauses it (the upload stays open) and resumes it, cancels another
// (aborted in the bucket) and shows a refusal as a typed WaybillError; useUploads uploads files
// from a file input and a drop zone, each with its own progress and outcome, a refused one
// failing alone; useSignedList pages a listing and lists it again before its URLs expire. Every
// stored object is read back from versitygw and compared by SHA-256.

import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AwsClient } from 'aws4fetch'
import { build } from 'esbuild'
import { chromium, type Browser, type Page, type Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { responseStatuses } from '../helpers/response-statuses'

const HERE = dirname(fileURLToPath(import.meta.url))
const MIB = 1024 * 1024
const STEP_TIMEOUT_MS = 60_000
/** How long a poll waits for what the page shows (uploads take seconds on a busy machine). */
const POLL = { timeout: 30_000 }
const PAGE_PATH = '/react-test/'

const demo = inject('browserDemo')
const bucketOrigin = new URL(demo.s3.endpoint).origin
const s3 = new AwsClient({
  accessKeyId: demo.s3.accessKeyId,
  secretAccessKey: demo.s3.secretAccessKey,
  service: 's3',
  region: demo.s3.region,
  retries: 0,
})
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
const objectUrl = (key: string) =>
  `${demo.s3.endpoint}/${demo.s3.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`

async function storedSha256(key: string) {
  const response = await s3.fetch(objectUrl(key), { signal: AbortSignal.timeout(30_000) })
  return { status: response.status, sha256: sha256(new Uint8Array(await response.arrayBuffer())) }
}

let browser: Browser
let bundle: string
let tmp: string

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'waybill-react-'))
  const output = await build({
    entryPoints: [join(HERE, 'react', 'page.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    // React's production build, as an app ships it.
    define: { 'process.env.NODE_ENV': '"production"' },
    write: false,
    logLevel: 'error',
  })
  bundle = output.outputFiles[0]!.text
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

/** A file on disk for `setInputFiles`, and its bytes. */
function makeFile(name: string, size: number) {
  const bytes = randomBytes(size)
  const path = join(tmp, name)
  writeFileSync(path, bytes)
  return { name, path, bytes }
}

interface Sent {
  method: string
  url: URL
  status: number | undefined
}

/** Part PUTs the page has started. */
const partsStarted = (page: Page) => {
  let started = 0
  page.on('request', (request) => {
    if (new URL(request.url()).searchParams.has('partNumber')) started++
  })
  return () => started
}

/** The test page on the Worker's origin (its document from the Worker, so Chromium puts it in
 * the loopback address space, as the bucket's), mounted with `settings`, recording requests. */
async function openPage(settings: Record<string, unknown>): Promise<{ page: Page; sent: Sent[] }> {
  const page = await browser.newPage()
  page.setDefaultTimeout(STEP_TIMEOUT_MS)
  page.on('pageerror', (error) => console.error(`pageerror: ${error.message}`))
  const sent: Sent[] = []
  const statusOf = responseStatuses(page)
  const done = (request: Request) => {
    sent.push({ method: request.method(), url: new URL(request.url()), status: statusOf(request) })
  }
  page.on('requestfinished', done)
  page.on('requestfailed', done)
  await page.route(`${demo.baseUrl}${PAGE_PATH}page.js`, (route) =>
    route.fulfill({ status: 200, body: bundle, headers: { 'content-type': 'text/javascript' } }),
  )
  await page.goto(`${demo.baseUrl}/healthz`)
  await page.setContent(
    `<!doctype html><html><head><meta charset="utf-8"><title>React</title></head><body>` +
      `<script type="module" src="${PAGE_PATH}page.js"></script></body></html>`,
  )
  await page.waitForFunction(() => window.reactTest?.ready === true)
  await page.evaluate((s) => window.reactTest.mount(s as never), settings)
  return { page, sent }
}

const waybillCalls = (sent: Sent[], path: string) =>
  sent.filter((s) => s.url.origin === demo.baseUrl && s.url.pathname === path)

/** Slows each part PUT to the bucket down, so that a page can be paused mid-upload. */
async function slowParts(page: Page, delayMs: number) {
  await page.route(
    (url) => url.origin === bucketOrigin && url.searchParams.has('partNumber'),
    async (route) => {
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      await route.continue().catch(() => undefined)
    },
  )
}

const text = (page: Page, selector: string) => page.locator(selector).textContent()

describe('waybill-client/react', () => {
  it('useUpload: progress, pause and resume of a multipart upload; cancel; a typed error', async () => {
    const { page, sent } = await openPage({ apiKey: demo.apiKey, origin: 'demo' })
    try {
      await slowParts(page, 400)
      const started = partsStarted(page)
      const big = makeFile('react paused.bin', 20 * MIB + 3)
      await page.setInputFiles('#one-file', big.path)
      await expect
        .poll(() => page.locator('#one-progress').getAttribute('value'), POLL)
        .not.toBe('0')
      await page.click('#one-pause')
      await expect.poll(() => text(page, '#one-state'), POLL).toBe('paused')
      // A part sent just before the pause can be heard of after the page says paused (the request
      // and the page's text reach Playwright by different ways): let it arrive first.
      await new Promise((resolve) => setTimeout(resolve, 300))
      const whenPaused = started()
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      // Paused: no part is started, and the upload stays open (no abort).
      expect(started()).toBe(whenPaused)
      expect(waybillCalls(sent, '/v1/uploads/multipart/abort')).toEqual([])
      await page.click('#one-resume')
      await expect.poll(() => text(page, '#one-state'), { timeout: 60_000 }).toBe('done')
      const key = (await text(page, '#one-key'))!
      expect(key).toMatch(/^uploads\/demo\/[0-9a-f-]{36}-react paused\.bin$/)
      expect(await storedSha256(key)).toEqual({ status: 200, sha256: sha256(big.bytes) })
      // The same upload went on: it was not started again.
      expect(waybillCalls(sent, '/v1/uploads')).toHaveLength(1)
      expect(started()).toBeGreaterThan(whenPaused)

      const other = makeFile('react cancelled.bin', 20 * MIB + 5)
      await page.setInputFiles('#one-file', other.path)
      await expect.poll(() => text(page, '#one-state'), POLL).toBe('uploading')
      await expect.poll(() => waybillCalls(sent, '/v1/uploads').length, POLL).toBe(2)
      await page.click('#one-cancel')
      await expect.poll(() => text(page, '#one-state'), POLL).toBe('cancelled')
      await expect
        .poll(() => waybillCalls(sent, '/v1/uploads/multipart/abort').map((s) => s.status), POLL)
        .toEqual([204])
      expect(await text(page, '#one-error')).toBe('')
    } finally {
      await page.close()
    }

    const refused = await openPage({
      apiKey: demo.limitedApiKey,
      origin: 'demo',
      keyPrefix: 'limited/',
    })
    try {
      await refused.page.setInputFiles('#one-file', makeFile('page.html', 1_000).path)
      await expect.poll(() => text(refused.page, '#one-state'), POLL).toBe('failed')
      expect(await text(refused.page, '#one-error')).toMatch(
        /^[a-z_]+: contentType: must be one of image\/\* for this caller$/,
      )
    } finally {
      await refused.page.close()
    }
  })

  it('useUploads: files from the input and the drop zone, each with its own outcome', async () => {
    const { page } = await openPage({
      apiKey: demo.limitedApiKey,
      origin: 'demo',
      keyPrefix: 'limited/',
    })
    try {
      const files = [
        makeFile('react-a.png', 1_000),
        makeFile('react-b.html', 1_000),
        makeFile('react-c.png', 300_000),
      ]
      await page.setInputFiles(
        '#queue-files',
        files.map((f) => f.path),
      )
      const item = (name: string) => page.locator(`li[data-name="${name}"]`)
      await expect.poll(() => item('react-a.png').getAttribute('data-state'), POLL).toBe('done')
      await expect.poll(() => item('react-c.png').getAttribute('data-state'), POLL).toBe('done')
      await expect.poll(() => item('react-b.html').getAttribute('data-state'), POLL).toBe('failed')
      expect(await item('react-b.html').getAttribute('data-error')).toBe(
        'contentType: must be one of image/* for this caller',
      )
      for (const name of ['react-a.png', 'react-c.png']) {
        expect(await item(name).getAttribute('data-loaded')).toBe(
          await item(name).getAttribute('data-total'),
        )
      }

      // A file dropped on the zone: dragging shows while it is over it.
      const dropped = randomBytes(2_000)
      const transfer = await page.evaluateHandle((bytes) => {
        const data = new DataTransfer()
        data.items.add(new File([new Uint8Array(bytes)], 'react-d.png', { type: 'image/png' }))
        return data
      }, Array.from(dropped))
      await page.dispatchEvent('#drop', 'dragover', { dataTransfer: transfer })
      await expect
        .poll(() => page.locator('#drop').getAttribute('data-dragging'), POLL)
        .toBe('true')
      await page.dispatchEvent('#drop', 'drop', { dataTransfer: transfer })
      await expect.poll(() => item('react-d.png').getAttribute('data-state'), POLL).toBe('done')
      expect(await page.locator('#drop').getAttribute('data-dragging')).toBe('false')

      const expected = new Map([
        ['react-a.png', files[0]!.bytes],
        ['react-c.png', files[2]!.bytes],
        ['react-d.png', new Uint8Array(dropped)],
      ])
      for (const [name, bytes] of expected) {
        const key = (await item(name).getAttribute('data-key'))!
        expect(key).toBe(`limited/${name}`)
        expect(await storedSha256(key)).toEqual({ status: 200, sha256: sha256(bytes) })
      }
      await page.click('#queue-clear')
      await expect.poll(() => page.locator('li').count(), POLL).toBe(0)
    } finally {
      await page.close()
    }
  })

  it('useSignedList: pages, more, and listed again before its URLs expire', async () => {
    const prefix = `react-gallery-${randomBytes(4).toString('hex')}/`
    for (let i = 0; i < 5; i++) {
      const response = await s3.fetch(objectUrl(`${prefix}${i}.txt`), {
        method: 'PUT',
        body: `object ${i}`,
        headers: { 'content-type': 'text/plain' },
      })
      expect(response.status).toBe(200)
    }
    // URLs that live 63 s: listed again 60 s before they expire, so about 3 s from now.
    const { page } = await openPage({
      apiKey: demo.apiKey,
      origin: 'demo',
      gallery: { prefix, limit: 2, expiresIn: 63 },
    })
    // Listings counted as they are sent ('request' comes before the answer the page shows; `sent`
    // records a request when it has finished, which Playwright can hear of after the page showed
    // its answer: CI once counted one listing where the page showed two pages).
    let listings = 0
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/v1/list/demo') listings++
    })
    try {
      const keys = () =>
        page.locator('#gallery a').evaluateAll((all) => all.map((a) => a.dataset.key))
      const hrefsNow = () =>
        page
          .locator('#gallery a')
          .evaluateAll((all) => all.map((a) => (a as HTMLAnchorElement).href))
      await expect.poll(keys, POLL).toEqual([`${prefix}0.txt`, `${prefix}1.txt`])
      await page.click('#gallery-more')
      await expect.poll(keys, POLL).toEqual([0, 1, 2, 3].map((i) => `${prefix}${i}.txt`))
      const before = listings
      const hrefs = await hrefsNow()
      // Listed again on its own: both pages it shows (two listings at least: on a slow machine one
      // may have begun already), each URL a new one.
      await expect.poll(() => listings, { timeout: 15_000 }).toBeGreaterThanOrEqual(before + 2)
      await expect
        .poll(async () => (await hrefsNow()).filter((href, i) => href === hrefs[i]), POLL)
        .toEqual([])
      expect(await keys()).toHaveLength(4)
      const first = await page.locator('#gallery a').first().getAttribute('href')
      const response = await fetch(first!)
      expect(await response.text()).toBe('object 0')
    } finally {
      await page.close()
    }
  })
})
