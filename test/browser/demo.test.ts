// The demo page in a real Chromium: loads it from `wrangler dev` with the API key in the fragment,
// uploads a file in each mode (presigned PUT, POST form, multipart in 3 parts), sees each in the
// gallery, and checks the bytes in versitygw. The bucket is on another origin than the page, so
// every upload goes through the bucket's own CORS rules: the test records the preflights and the
// direct-to-bucket requests, and shows that a bucket without rules refuses the same browser. A
// multipart upload whose part cannot be sent stays open to be resumed until it is discarded, which
// aborts it and leaves nothing behind; one interrupted then resumed after a reload sends only its
// missing part. The page is built on the browser client (/vendor/waybill-client.js), and each PUT
// or POST upload ends with its completion check. The first test saves a screenshot of the page in
// test-output/demo-page.png (demo-page-failed.png on failure).

// The callbacks given to `evaluate` run in the page: they are typed against the DOM.
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AwsClient } from 'aws4fetch'
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { applyBucketCors } from '../../scripts/bucket-cors.mjs'
import { makePng } from '../../scripts/dev.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const SCREENSHOT_DIR = join(ROOT, 'test-output')
const SCREENSHOT = join(SCREENSHOT_DIR, 'demo-page.png')
const FAILURE_SCREENSHOT = join(SCREENSHOT_DIR, 'demo-page-failed.png')
const SCREENSHOT_TIMEOUT_MS = 60_000
const MIB = 1024 * 1024
// Above the page's 8 MiB automatic threshold, and 3 parts at S3's 5 MiB minimum part size.
const MULTIPART_BYTES = 12 * MIB + 12_345
const POST_BYTES = 300_000
const STEP_TIMEOUT_MS = 30_000
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]

const demo = inject('browserDemo')
const pageOrigin = new URL(demo.baseUrl).origin
const bucketOrigin = new URL(demo.s3.endpoint).origin
const s3 = new AwsClient({
  accessKeyId: demo.s3.accessKeyId,
  secretAccessKey: demo.s3.secretAccessKey,
  service: 's3',
  region: demo.s3.region,
  retries: 0,
})
const objectUrl = (bucket: string, key: string) =>
  `${demo.s3.endpoint}/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

async function readObject(bucket: string, key: string) {
  const response = await s3.fetch(objectUrl(bucket, key), { signal: AbortSignal.timeout(10_000) })
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) }
}

/** One network exchange as Chromium's DevTools protocol saw it, preflights included. */
interface Exchange {
  id: string
  method: string
  url: string
  requestHeaders: Record<string, string>
  status?: number
  responseHeaders: Record<string, string>
  failed?: string
}

const lower = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]))

/**
 * Records requests through CDP: Playwright's page.on('request') does not report CORS preflights;
 * DevTools does, as OPTIONS requests with their own request id.
 */
async function recordNetwork(page: Page) {
  const cdp: CDPSession = await page.context().newCDPSession(page)
  const exchanges = new Map<string, Exchange>()
  cdp.on('Network.requestWillBeSent', (event) => {
    exchanges.set(event.requestId, {
      id: event.requestId,
      method: event.request.method,
      url: event.request.url,
      requestHeaders: lower(event.request.headers),
      responseHeaders: {},
    })
  })
  cdp.on('Network.responseReceived', (event) => {
    const exchange = exchanges.get(event.requestId)
    if (exchange === undefined) return
    exchange.status = event.response.status
    exchange.responseHeaders = lower(event.response.headers)
  })
  // The headers the network stack really sent (Origin among them) arrive separately, in any order.
  const sentHeaders = new Map<string, Record<string, string>>()
  cdp.on('Network.requestWillBeSentExtraInfo', (event) => {
    sentHeaders.set(event.requestId, lower(event.headers))
  })
  cdp.on('Network.loadingFailed', (event) => {
    const exchange = exchanges.get(event.requestId)
    if (exchange !== undefined)
      exchange.failed = event.corsErrorStatus?.corsError ?? event.errorText
  })
  await cdp.send('Network.enable')
  const all = () =>
    [...exchanges.values()].map((e) => ({
      ...e,
      requestHeaders: { ...e.requestHeaders, ...sentHeaders.get(e.id) },
    }))
  return {
    all,
    clear: () => {
      exchanges.clear()
      sentHeaders.clear()
    },
    toBucket: () => all().filter((e) => e.url.startsWith(`${bucketOrigin}/`)),
  }
}

let browser: Browser
let tmp: string

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'waybill-browser-files-'))
  rmSync(FAILURE_SCREENSHOT, { force: true })
  browser = await chromium.launch({
    executablePath: demo.chromiumPath,
    args: CHROMIUM_ARGS,
    timeout: STEP_TIMEOUT_MS,
  })
  // Something for the gallery to list before any upload.
  const seed = await s3.fetch(objectUrl(demo.s3.bucket, 'gallery/seed.png'), {
    method: 'PUT',
    headers: { 'content-type': 'image/png' },
    body: new Uint8Array(makePng(40, 30, (x, y) => [x * 6, y * 8, 200])),
    signal: AbortSignal.timeout(10_000),
  })
  expect(seed.status).toBe(200)
})

afterAll(async () => {
  await browser?.close()
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

describe('the demo page', () => {
  it('uploads with PUT, a POST form and multipart straight to the bucket and shows each in the gallery', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    page.setDefaultTimeout(STEP_TIMEOUT_MS)
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`))
    page.on('console', (message) => {
      if (message.type() === 'error') {
        problems.push(`console: ${message.text()} (${message.location().url})`)
      }
    })
    // What the page asked waybill for, to know the multipart plan it got.
    const uploadGrants: Array<Record<string, unknown>> = []
    page.on('response', async (response) => {
      const request = response.request()
      if (request.method() === 'POST' && new URL(response.url()).pathname === '/v1/uploads') {
        uploadGrants.push({
          request: request.postDataJSON() as unknown,
          status: response.status(),
          body: (await response.json().catch(() => null)) as unknown,
        })
      }
    })
    const network = await recordNetwork(page)

    try {
      const served = await page.goto(`${demo.baseUrl}/#key=${encodeURIComponent(demo.apiKey)}`)
      expect(served?.status()).toBe(200)
      expect(served?.headers()['content-security-policy']).toContain("script-src 'self'")
      // The page runs on the client, bundled into the Worker's assets, under that policy.
      await expect
        .poll(
          () =>
            network.all().find((e) => e.url === `${pageOrigin}/vendor/waybill-client.js`)?.status,
        )
        .toBe(200)
      // The key left the address bar and lives in this tab's sessionStorage only.
      expect(new URL(page.url()).hash).toBe('')
      expect(await page.evaluate<string[]>('Object.values({ ...sessionStorage })')).toEqual([
        demo.apiKey,
      ])
      await expect
        .poll(() => page.locator('#key-state').textContent())
        .toContain('API key from the link')

      // The signed asset list: the seeded image loads straight from the bucket.
      await expect.poll(() => page.locator('#gallery-state').textContent()).toMatch(/^\d+ objects?/)
      const seeded = page.locator('li[data-key="gallery/seed.png"] img')
      await seeded.waitFor()
      await expect.poll(() => seeded.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(40)
      const listCall = network
        .all()
        .find((e) => e.url.startsWith(`${pageOrigin}/v1/list/demo`) && e.method === 'GET')
      expect(listCall?.status).toBe(200)
      expect(listCall?.requestHeaders.authorization).toBe(`Bearer ${demo.apiKey}`)

      const files = {
        put: {
          name: 'small put ü+%.png',
          bytes: makePng(64, 48, (x, y) => [255 - x * 3, y * 5, 90]),
        },
        post: { name: 'form post résumé + 🎉.bin', bytes: randomBytes(POST_BYTES) },
        multipart: { name: 'large-multipart.bin', bytes: randomBytes(MULTIPART_BYTES) },
      }
      for (const file of Object.values(files)) writeFileSync(join(tmp, file.name), file.bytes)

      const upload = async (mode: keyof typeof files, radioName: RegExp) => {
        const file = files[mode]
        network.clear()
        await page.getByLabel('File', { exact: true }).setInputFiles(join(tmp, file.name))
        await page.getByRole('radio', { name: radioName }).check()
        // Keyboard: focus the button and press Enter, as a keyboard user would.
        await page.getByRole('button', { name: 'Upload', exact: true }).focus()
        await page.keyboard.press('Enter')
        const status = page.getByRole('status')
        // "info" while it runs; "success" or "error" when it is over.
        await expect
          .poll(async () => (await status.getAttribute('data-kind')) ?? 'none', { timeout: 60_000 })
          .toMatch(/^(?:success|error)$/)
        const text = (await status.textContent()) ?? ''
        expect(await status.getAttribute('data-kind'), text).toBe('success')
        expect(text).toContain(`Uploaded uploads/${file.name}`)
        await page.locator(`li[data-key="uploads/${file.name}"]`).waitFor()
        const stored = await readObject(demo.s3.bucket, `uploads/${file.name}`)
        expect(stored.status).toBe(200)
        expect(stored.bytes.length).toBe(file.bytes.length)
        expect(sha256(stored.bytes)).toBe(sha256(file.bytes))
        const toBucket = network.toBucket()
        expect(toBucket.filter((e) => e.failed !== undefined)).toEqual([])
        // Reset the status so the next upload's outcome is its own.
        await status.evaluate((element) => element.removeAttribute('data-kind'))
        return { text, toBucket }
      }

      // 1. A presigned PUT with a preflight the bucket's rules answered.
      const put = await upload('put', /Presigned PUT/)
      expect(put.text).toContain('one presigned PUT')
      const putPreflight = put.toBucket.find((e) => e.method === 'OPTIONS')
      expect(putPreflight?.requestHeaders.origin).toBe(pageOrigin)
      expect(putPreflight?.requestHeaders['access-control-request-method']).toBe('PUT')
      expect(putPreflight?.status).toBe(200)
      expect(putPreflight?.responseHeaders['access-control-allow-origin']).toBe(pageOrigin)
      const putRequest = put.toBucket.find((e) => e.method === 'PUT')
      expect(putRequest?.status).toBe(200)
      expect(putRequest?.requestHeaders.origin).toBe(pageOrigin)
      expect(putRequest?.responseHeaders['access-control-allow-origin']).toBe(pageOrigin)
      expect(new URL(putRequest?.url ?? '').searchParams.get('X-Amz-Signature')).toMatch(
        /^[0-9a-f]{64}$/,
      )
      // The completion check read the object back through waybill.
      const checked = network.all().find((e) => e.url === `${pageOrigin}/v1/uploads/complete`)
      expect(checked?.status).toBe(200)
      const putImage = page.locator(`li[data-key="uploads/${files.put.name}"] img`)
      await expect
        .poll(() => putImage.evaluate((img: HTMLImageElement) => img.naturalWidth))
        .toBe(64)

      // 2. A POST form: a simple request (no preflight needed), still answered under the rules.
      const post = await upload('post', /POST form/)
      expect(post.text).toContain('a POST form')
      const postRequest = post.toBucket.find((e) => e.method === 'POST')
      expect(postRequest?.url).toMatch(new RegExp(`^${bucketOrigin}/${demo.s3.bucket}/?$`))
      expect(postRequest?.requestHeaders['content-type']).toMatch(
        /^multipart\/form-data; boundary=/,
      )
      expect([200, 201, 204]).toContain(postRequest?.status)
      expect(postRequest?.responseHeaders['access-control-allow-origin']).toBe(pageOrigin)
      expect(network.all().find((e) => e.url === `${pageOrigin}/v1/uploads/complete`)?.status).toBe(
        200,
      )

      // 3. Multipart in 3 parts, each PUT after its own preflight, ETags read through CORS.
      const multipart = await upload('multipart', /Multipart/)
      expect(multipart.text).toContain('a multipart upload of 3 parts')
      const grant = uploadGrants.find(
        (g) => (g.request as { mode?: string } | null)?.mode === 'multipart',
      )
      expect(grant?.status).toBe(200)
      expect(grant?.body).toMatchObject({ method: 'MULTIPART', partCount: 3 })
      const parts = multipart.toBucket.filter(
        (e) => e.method === 'PUT' && new URL(e.url).searchParams.has('partNumber'),
      )
      expect(parts.map((e) => new URL(e.url).searchParams.get('partNumber')).sort()).toEqual([
        '1',
        '2',
        '3',
      ])
      for (const part of parts) {
        expect(part.status).toBe(200)
        expect(part.responseHeaders['access-control-expose-headers']).toMatch(/\bETag\b/i)
      }
      const partPreflights = multipart.toBucket.filter(
        (e) => e.method === 'OPTIONS' && new URL(e.url).searchParams.has('partNumber'),
      )
      expect(partPreflights).toHaveLength(3)
      for (const preflight of partPreflights) {
        expect(preflight.status).toBe(200)
        expect(preflight.responseHeaders['access-control-allow-origin']).toBe(pageOrigin)
      }
      expect(
        multipart.toBucket.some(
          (e) => e.method === 'POST' && new URL(e.url).searchParams.has('uploadId'),
        ),
      ).toBe(false)
      // Completion went through waybill, not straight from the browser.
      const complete = network
        .all()
        .find((e) => e.url === `${pageOrigin}/v1/uploads/multipart/complete`)
      expect(complete?.status).toBe(200)
      expect(
        await page.locator('#progress').evaluate((progress: HTMLProgressElement) => progress.value),
      ).toBe(MULTIPART_BYTES)

      // Everything shows in one gallery listing.
      for (const file of Object.values(files)) {
        await page.locator(`li[data-key="uploads/${file.name}"]`).waitFor()
      }
      expect(problems).toEqual([])
      mkdirSync(SCREENSHOT_DIR, { recursive: true })
      await page.screenshot({ path: SCREENSHOT, fullPage: true, timeout: SCREENSHOT_TIMEOUT_MS })
    } catch (error) {
      // Best effort, and never in place of the failure: the status and gallery as they were.
      mkdirSync(SCREENSHOT_DIR, { recursive: true })
      await page
        .screenshot({ path: FAILURE_SCREENSHOT, fullPage: true, timeout: SCREENSHOT_TIMEOUT_MS })
        .catch(() => {})
      throw error
    } finally {
      await page.close()
    }
  })

  it('takes a pasted key; a multipart upload whose part cannot be sent stays resumable until discarded', async () => {
    // A fresh context: no key in sessionStorage, none in the link.
    const context = await browser.newContext()
    const page = await context.newPage()
    page.setDefaultTimeout(STEP_TIMEOUT_MS)
    try {
      await page.goto(`${demo.baseUrl}/`)
      await expect.poll(() => page.locator('#key-state').textContent()).toContain('No API key yet')
      await page.getByLabel('Paste an API key').fill(demo.apiKey)
      await page.getByLabel('Paste an API key').press('Enter')
      await expect.poll(() => page.locator('#gallery-state').textContent()).toMatch(/^\d+ objects?/)
      expect(await page.getByLabel('Paste an API key').inputValue()).toBe('')

      // Part 2 never reaches the bucket: the page retries it, then reports the failure.
      let part2Attempts = 0
      await page.route(
        (url) => url.origin === bucketOrigin && url.searchParams.get('partNumber') === '2',
        (route) => {
          part2Attempts++
          return route.abort('connectionreset')
        },
      )
      const name = 'never-complete.bin'
      writeFileSync(join(tmp, name), randomBytes(11 * MIB))
      await page.getByLabel('File', { exact: true }).setInputFiles(join(tmp, name))
      // "Automatic" picks multipart above 8 MiB.
      await page.getByRole('radio', { name: /Automatic/ }).check()
      await page.getByRole('button', { name: 'Upload', exact: true }).click()
      const status = page.getByRole('status')
      await expect
        .poll(() => status.getAttribute('data-kind'), { timeout: STEP_TIMEOUT_MS })
        .toBe('error')
      const text = (await status.textContent()) ?? ''
      expect(text).toContain('could not be reached for part 2')
      expect(text).toContain('Upload the same file again to resume it')
      expect(part2Attempts).toBe(3)

      // The upload stays open in the bucket, to be resumed: its other parts are there.
      const openUploads = async () => {
        const open = await s3.fetch(
          `${demo.s3.endpoint}/${demo.s3.bucket}?uploads&prefix=${encodeURIComponent('uploads/')}`,
          { signal: AbortSignal.timeout(10_000) },
        )
        const listing = await open.text()
        expect(open.status, listing).toBe(200)
        return listing
      }
      expect(await openUploads()).toContain(name)
      // The page says that uploading the file again resumes it.
      await expect
        .poll(() => page.locator('#resume-note').textContent())
        .toContain('was interrupted')

      // Discarding aborts it: nothing was stored, and no multipart upload is left open.
      const aborted = page.waitForResponse(
        (response) => new URL(response.url()).pathname === '/v1/uploads/multipart/abort',
      )
      await page.getByRole('button', { name: 'Discard the interrupted upload' }).click()
      expect((await aborted).status()).toBe(204)
      await expect.poll(() => status.textContent()).toContain('Discarded the interrupted upload')
      expect(await page.locator('#resume-note').isHidden()).toBe(true)
      expect((await readObject(demo.s3.bucket, `uploads/${name}`)).status).toBe(404)
      expect(await openUploads()).not.toContain(name)
    } finally {
      await context.close()
    }
  })

  it('resumes an interrupted multipart upload after a reload, sending only the missing part', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    page.setDefaultTimeout(STEP_TIMEOUT_MS)
    try {
      await page.goto(`${demo.baseUrl}/#key=${encodeURIComponent(demo.apiKey)}`)
      await expect.poll(() => page.locator('#gallery-state').textContent()).toMatch(/^\d+ objects?/)
      const failPart2 = (url: URL) =>
        url.origin === bucketOrigin && url.searchParams.get('partNumber') === '2'
      await page.route(failPart2, (route) => route.abort('connectionreset'))
      const name = 'resumed-on-reload.bin'
      const bytes = randomBytes(11 * MIB)
      writeFileSync(join(tmp, name), bytes)
      const status = page.getByRole('status')
      await page.getByLabel('File', { exact: true }).setInputFiles(join(tmp, name))
      await page.getByRole('button', { name: 'Upload', exact: true }).click()
      await expect
        .poll(() => status.getAttribute('data-kind'), { timeout: STEP_TIMEOUT_MS })
        .toBe('error')
      await page.unroute(failPart2)

      // A reload: the key is in sessionStorage, the upload remembered in localStorage.
      await page.reload()
      const sent: string[] = []
      page.on('request', (request) => {
        const url = new URL(request.url())
        if (url.origin === bucketOrigin && request.method() === 'PUT') {
          sent.push(url.searchParams.get('partNumber') ?? 'object')
        }
      })
      await page.getByLabel('File', { exact: true }).setInputFiles(join(tmp, name))
      await expect
        .poll(() => page.locator('#resume-note').textContent())
        .toContain('sends only the parts the bucket does not hold yet')
      await page.getByRole('button', { name: 'Upload', exact: true }).click()
      await expect
        .poll(() => status.getAttribute('data-kind'), { timeout: STEP_TIMEOUT_MS })
        .toMatch(/^(?:success|error)$/)
      const text = (await status.textContent()) ?? ''
      expect(await status.getAttribute('data-kind'), text).toBe('success')
      expect(text).toContain('a multipart upload of 3 parts, resumed (1 sent now)')
      expect(sent).toEqual(['2'])
      const stored = await readObject(demo.s3.bucket, `uploads/${name}`)
      expect(sha256(stored.bytes)).toBe(sha256(bytes))
    } finally {
      await context.close()
    }
  })

  it('is refused by a bucket without CORS rules, and allowed once they are applied', async () => {
    const page = await browser.newPage()
    page.setDefaultTimeout(STEP_TIMEOUT_MS)
    await page.goto(`${demo.baseUrl}/`)
    const key = 'from-the-browser.txt'
    const presignedPut = async () =>
      (
        await s3.sign(objectUrl(demo.s3.plainBucket, key), {
          method: 'PUT',
          aws: { signQuery: true },
        })
      ).url
    const putFromPage = (url: string) =>
      page.evaluate(
        (target) =>
          fetch(target, { method: 'PUT', body: 'sent by the page' }).then(
            (response) => `status ${response.status}`,
            (error: Error) => `blocked: ${error.name}`,
          ),
        url,
      )

    // No rules: the preflight is refused, so the PUT is never sent.
    const preflight = (origin: string) =>
      fetch(objectUrl(demo.s3.plainBucket, key), {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PUT' },
        signal: AbortSignal.timeout(10_000),
      })
    const before = await preflight(pageOrigin)
    expect(before.status).toBe(403)
    expect(before.headers.get('access-control-allow-origin')).toBeNull()
    expect(await putFromPage(await presignedPut())).toBe('blocked: TypeError')
    expect((await readObject(demo.s3.plainBucket, key)).status).toBe(404)

    await applyBucketCors({
      endpoint: demo.s3.endpoint,
      bucket: demo.s3.plainBucket,
      region: demo.s3.region,
      accessKeyId: demo.s3.accessKeyId,
      secretAccessKey: demo.s3.secretAccessKey,
      allowedOrigins: [pageOrigin],
    })
    const after = await preflight(pageOrigin)
    expect(after.status).toBe(200)
    expect(after.headers.get('access-control-allow-origin')).toBe(pageOrigin)
    expect(after.headers.get('access-control-allow-methods')).toBe('GET, HEAD, PUT, POST')
    expect(after.headers.get('access-control-expose-headers')).toBe('ETag, x-amz-version-id')
    expect(after.headers.get('access-control-max-age')).toBe('3000')
    const stranger = await preflight('http://stranger.example')
    expect(stranger.status).toBe(403)
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull()

    expect(await putFromPage(await presignedPut())).toBe('status 200')
    const stored = await readObject(demo.s3.plainBucket, key)
    expect(new TextDecoder().decode(stored.bytes)).toBe('sent by the page')
    await page.close()
  })
})
