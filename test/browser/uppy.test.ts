// Uppy as a drop-in: @uppy/core, @uppy/dashboard, @uppy/aws-s3 6.3 and @uppy/golden-retriever in a
// real Chromium, uploading through waybill (waybill-client/uppy) into versitygw. A small file goes
// up with one PUT and waybill's completion check; two files of over 20 MiB go through multipart
// (the plugin sends one file's parts one after another, so the two files' parts overlap); a
// multipart upload interrupted by a reload resumes from the parts the store holds; and uploads
// outside the caller's grant fail with waybill's own message on the file.
//
// The page (test/browser/uppy/page.ts) is bundled here and served on the Worker's own origin with
// a Content-Security-Policy like a real app's, `connect-src` allowing `data:` as client/README.md says.

import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AwsClient } from 'aws4fetch'
import { build } from 'esbuild'
import { chromium, type Browser, type Page, type Request, type Route } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { responseStatuses } from '../helpers/response-statuses'

const HERE = dirname(fileURLToPath(import.meta.url))
const MIB = 1024 * 1024
const STEP_TIMEOUT_MS = 60_000
const PAGE_PATH = '/uppy-test/'
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self' data: http: https:"

const demo = inject('browserDemo')
const bucketOrigin = new URL(demo.s3.endpoint).origin
const s3 = new AwsClient({
  accessKeyId: demo.s3.accessKeyId,
  secretAccessKey: demo.s3.secretAccessKey,
  service: 's3',
  region: demo.s3.region,
  retries: 0,
})

async function storedSha256(key: string): Promise<{ status: number; sha256: string }> {
  const url = `${demo.s3.endpoint}/${demo.s3.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`
  const response = await s3.fetch(url, { signal: AbortSignal.timeout(30_000) })
  const bytes = new Uint8Array(await response.arrayBuffer())
  return { status: response.status, sha256: createHash('sha256').update(bytes).digest('hex') }
}

let browser: Browser
let bundle: { js: string; css: string }
let tmp: string

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'waybill-uppy-'))
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

const HTML = `<!doctype html><html><head><meta charset="utf-8"><title>Uppy and waybill</title>
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<link rel="stylesheet" href="${PAGE_PATH}uppy.css"></head><body><div id="uploads"></div>
<script type="module" src="${PAGE_PATH}uppy.js"></script></body></html>`

/** Everything the page sent, with when it started and ended (ms, page clock). */
interface Sent {
  method: string
  url: string
  path: string
  status: number | undefined
  started: number
  ended: number
  body: string | null
}

/** A page on the Worker's origin serving the test bundle, recording every request it sends. */
async function openPage(
  context: Pick<Browser, 'newPage'> = browser,
): Promise<{ page: Page; sent: Sent[] }> {
  const page = await context.newPage()
  page.setDefaultTimeout(STEP_TIMEOUT_MS)
  page.on('pageerror', (error) => console.error(`pageerror: ${error.message}`))
  await serve(page)
  return { page, sent: record(page) }
}

// The bundle is served by Playwright; the document itself comes from the Worker (its /healthz,
// then rewritten), so Chromium places the page on the loopback address space like the bucket's,
// as it does for a real page (a fulfilled document would be "public" and barred from loopback).
async function serve(page: Page) {
  await page.route(`${demo.baseUrl}${PAGE_PATH}**`, async (route) => {
    const name = new URL(route.request().url()).pathname.slice(PAGE_PATH.length)
    const [body, type] =
      name === 'uppy.js' ? [bundle.js, 'text/javascript'] : [bundle.css, 'text/css']
    await route.fulfill({
      status: 200,
      body,
      headers: { 'content-type': `${type}; charset=utf-8` },
    })
  })
}

/** Loads the test page on the Worker's origin. */
async function load(page: Page) {
  await page.goto(`${demo.baseUrl}/healthz`)
  await page.setContent(HTML)
  await page.waitForFunction(() => window.uppyTest?.ready === true)
}

function record(page: Page): Sent[] {
  const sent: Sent[] = []
  const started = new Map<Request, number>()
  page.on('request', (request) => started.set(request, Date.now()))
  const statusOf = responseStatuses(page)
  const done = (request: Request) => {
    const url = request.url()
    if (url.startsWith('data:')) return
    sent.push({
      method: request.method(),
      url,
      path: new URL(url).pathname,
      status: statusOf(request),
      started: started.get(request) ?? Date.now(),
      ended: Date.now(),
      body: request.postData(),
    })
  }
  page.on('requestfinished', done)
  page.on('requestfailed', done)
  return sent
}

async function startUppy(page: Page, options: Record<string, string>) {
  await load(page)
  await page.evaluate((o) => window.uppyTest.start(o as never), options)
}

const partPuts = (sent: Sent[]) =>
  sent.filter(
    (s) => s.method === 'PUT' && s.url.startsWith(bucketOrigin) && s.url.includes('partNumber='),
  )
const waybillCalls = (sent: Sent[], path: string) =>
  sent.filter((s) => s.method === 'POST' && s.url.startsWith(demo.baseUrl) && s.path === path)

/** The most requests of `list` in flight at one moment. */
function mostAtOnce(list: readonly Sent[]): number {
  const edges = list.flatMap((s) => [
    [s.started, 1],
    [s.ended, -1],
  ])
  edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!)
  let now = 0
  let most = 0
  for (const [, step] of edges) most = Math.max(most, (now += step!))
  return most
}

describe('Uppy with waybill', () => {
  it('uploads a small file with one PUT, checked by waybill, byte for byte', async () => {
    const { page, sent } = await openPage()
    try {
      await startUppy(page, { apiKey: demo.apiKey, origin: 'demo' })
      const sha256 = await page.evaluate(() =>
        window.uppyTest.add('notes 2026.txt', 'text/plain', 200_000, 1),
      )
      const [outcome] = await page.evaluate(() => window.uppyTest.upload())
      expect(outcome?.error).toBeUndefined()
      // The grant chose the key from the file name.
      expect(outcome?.key).toMatch(/^uploads\/demo\/[0-9a-f-]{36}-notes 2026\.txt$/)
      expect(await storedSha256(outcome!.key!)).toEqual({ status: 200, sha256 })
      // The last call, once recorded (`sent` hears of a request when it has finished, which can be
      // after the page has its answer).
      await expect
        .poll(() => waybillCalls(sent, '/v1/uploads/complete').map((s) => s.status))
        .toEqual([200])
      const toBucket = sent.filter((s) => s.url.startsWith(bucketOrigin) && s.method !== 'OPTIONS')
      expect(toBucket.map((s) => [s.method, s.status])).toEqual([['PUT', 200]])
      expect(waybillCalls(sent, '/v1/uploads')).toHaveLength(1)
      expect(waybillCalls(sent, '/v1/uploads/complete').map((s) => s.status)).toEqual([200])
    } finally {
      await page.close()
    }
  })

  it('uploads two files of over 20 MiB through multipart, their parts in flight together', async () => {
    const { page, sent } = await openPage()
    try {
      await startUppy(page, { apiKey: demo.apiKey, origin: 'demo' })
      const sizes = [21 * MIB + 5, 20 * MIB + 7]
      const hashes = await page.evaluate(
        ([a, b]) =>
          Promise.all([
            window.uppyTest.add('first.bin', 'application/octet-stream', a!, 2),
            window.uppyTest.add('second.bin', 'application/octet-stream', b!, 3),
          ]),
        sizes,
      )
      const outcomes = await page.evaluate(() => window.uppyTest.upload())
      expect(outcomes.map((o) => o.error)).toEqual([undefined, undefined])
      for (const [i, name] of ['first.bin', 'second.bin'].entries()) {
        const outcome = outcomes.find((o) => o.name === name)!
        expect(await storedSha256(outcome.key!)).toEqual({ status: 200, sha256: hashes[i] })
      }
      const parts = partPuts(sent)
      // 5 MiB parts: 5 of each file, every one answered 200 the first time.
      expect(parts.map((p) => p.status)).toEqual(Array(10).fill(200))
      expect(mostAtOnce(parts)).toBeGreaterThanOrEqual(2)
      // waybill's share per file: one call to start, one to complete; every part URL came with the
      // start, so no call per part.
      expect(waybillCalls(sent, '/v1/uploads')).toHaveLength(2)
      expect(waybillCalls(sent, '/v1/uploads/multipart/parts')).toHaveLength(0)
      expect(waybillCalls(sent, '/v1/uploads/multipart/complete')).toHaveLength(2)
      const waybillMs = sent
        .filter((s) => s.url.startsWith(demo.baseUrl) && s.path.startsWith('/v1/'))
        .map((s) => s.ended - s.started)
      console.info(
        JSON.stringify({
          uppyMultipart: {
            parts: parts.length,
            mostPartsAtOnce: mostAtOnce(parts),
            waybillCalls: waybillMs.length,
            waybillMsTotal: waybillMs.reduce((a, b) => a + b, 0),
            waybillMsPerPart: waybillMs.reduce((a, b) => a + b, 0) / parts.length,
          },
        }),
      )
    } finally {
      await page.close()
    }
  })

  it('resumes a multipart upload interrupted by a reload from the parts the store holds', async () => {
    const context = await browser.newContext()
    const { page, sent } = await openPage(context)
    try {
      await startUppy(page, { apiKey: demo.apiKey, origin: 'demo' })
      const size = 22 * MIB + 11
      const sha256 = await page.evaluate(
        (n) => window.uppyTest.add('resumed.bin', 'application/octet-stream', n, 4),
        size,
      )
      // Part 3 is held in the browser, never reaching the bucket, and the page reloaded while it
      // waits: a closed tab and a new visit mid-upload. (Not cut off mid-body at the bucket:
      // versitygw 1.8.0 keeps such a part, zero-filled to its declared length, where S3 answers
      // 400 IncompleteBody; no URL or list can tell that part from a whole one.)
      let release: () => void = () => undefined
      const released = new Promise<void>((resolve) => (release = resolve))
      let held = false
      const partThree = (url: URL) =>
        url.origin === bucketOrigin && url.searchParams.get('partNumber') === '3'
      const hold = async (route: Route) => {
        held = true
        await released
        await route.abort().catch(() => undefined)
      }
      await page.route(partThree, hold)
      void page.evaluate(() => window.uppyTest.upload()).catch(() => undefined)
      await expect.poll(() => held, { timeout: 60_000 }).toBe(true)
      // The parts before it, once recorded (`sent` hears of a request when it has finished, which
      // can be after part 3 is sent): they stay what they are while part 3 is held.
      const stored = () => partPuts(sent).filter((p) => p.status === 200).length
      await expect.poll(stored, { timeout: 5_000 }).toBe(2)
      const before = stored()
      await page.reload()
      release()
      await page.unroute(partThree, hold)
      sent.length = 0
      await startUppy(page, { apiKey: demo.apiKey, origin: 'demo' })
      await expect
        .poll(() => page.evaluate(() => window.uppyTest.restored()), { timeout: 20_000 })
        .toEqual([{ name: 'resumed.bin', hasData: true, resumable: true }])

      const [outcome] = await page.evaluate(() => window.uppyTest.resume())
      expect(outcome?.error).toBeUndefined()
      expect(await storedSha256(outcome!.key!)).toEqual({ status: 200, sha256 })
      // No new upload: the parts the store held were listed, and only the others sent.
      expect(waybillCalls(sent, '/v1/uploads')).toHaveLength(0)
      const listed = waybillCalls(sent, '/v1/uploads/multipart/list')
      expect(listed.map((s) => s.status)).toEqual([200])
      const after = partPuts(sent).filter((p) => p.status === 200).length
      expect(before).toBe(2)
      expect(after).toBe(3)
      console.info(JSON.stringify({ uppyResume: { partsBeforeReload: before, partsAfter: after } }))
    } finally {
      await context.close()
    }
  })

  it("refuses what the grant does not allow, with waybill's message on the file", async () => {
    const { page } = await openPage()
    try {
      // "limited": images of at most 1 MiB under limited/.
      await startUppy(page, {
        apiKey: demo.limitedApiKey,
        origin: 'demo',
        keyPrefix: 'limited/',
      })
      await page.evaluate(() =>
        Promise.all([
          window.uppyTest.add('fine.png', 'image/png', 1_000, 5),
          window.uppyTest.add('page.html', 'text/html', 1_000, 6),
          window.uppyTest.add('huge.png', 'image/png', 2 * 1024 * 1024, 7),
        ]),
      )
      const outcomes = await page.evaluate(() => window.uppyTest.upload())
      const errorOf = (name: string) => outcomes.find((o) => o.name === name)?.error
      expect(errorOf('fine.png')).toBeUndefined()
      expect(errorOf('page.html')).toBe('contentType: must be one of image/* for this caller')
      expect(errorOf('huge.png')).toBe(
        'contentLength: must be at most 1048576 bytes for this caller',
      )
      // The Dashboard shows the message itself, on the file's error button.
      const details = page.locator('.uppy-Dashboard-Item-errorDetails')
      await expect
        .poll(() => details.evaluateAll((all) => all.map((e) => e.getAttribute('aria-label'))))
        .toEqual(
          expect.arrayContaining([
            'contentType: must be one of image/* for this caller',
            'contentLength: must be at most 1048576 bytes for this caller',
          ]),
        )
    } finally {
      await page.close()
    }
  })

  it("refuses a key outside the caller's grant, naming it", async () => {
    const { page } = await openPage()
    try {
      await startUppy(page, {
        apiKey: demo.limitedApiKey,
        origin: 'demo',
        keyPrefix: 'elsewhere/',
      })
      await page.evaluate(() => window.uppyTest.add('fine.png', 'image/png', 1_000, 8))
      const [outside] = await page.evaluate(() => window.uppyTest.upload())
      expect(outside?.key).toBeUndefined()
      expect(outside?.error).toBe(
        `1 entry is not covered by this caller's grants ("elsewhere/fine.png"); nothing was signed.`,
      )
    } finally {
      await page.close()
    }
  })
})
