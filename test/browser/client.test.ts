// The browser client (client/, bundled into /vendor/waybill-client.js) in a real Chromium, on the
// demo page's origin under its CSP, against `wrangler dev` and versitygw: a PUT upload with its
// completion check, POST forms (and the fall back to PUT where the store takes none), a batch
// whose keys the grant chooses, a multipart upload of more than 20 MiB with parts in parallel,
// an upload interrupted by a reload and resumed with only its missing parts, a refusal whose
// message is waybill's, and a signed listing. Every object is read back from versitygw and
// compared byte for byte. The multipart test writes what it cost to
// test-output/client-multipart.json (waybill calls and their time per part), the resume test what
// it sent before and after the reload to test-output/client-resume.json.

// The callbacks given to `evaluate` run in the page: they are typed against the DOM.
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AwsClient } from 'aws4fetch'
import { chromium, type Browser, type Page, type Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type * as Client from '../../client/src/index.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const MEASUREMENTS = join(ROOT, 'test-output', 'client-multipart.json')
const RESUME_MEASUREMENTS = join(ROOT, 'test-output', 'client-resume.json')
const MIB = 1024 * 1024
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
const bucketOrigin = new URL(demo.s3.endpoint).origin
const s3 = new AwsClient({
  accessKeyId: demo.s3.accessKeyId,
  secretAccessKey: demo.s3.secretAccessKey,
  service: 's3',
  region: demo.s3.region,
  retries: 0,
})
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

async function readObject(key: string) {
  const url = `${demo.s3.endpoint}/${demo.s3.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`
  const response = await s3.fetch(url, { signal: AbortSignal.timeout(10_000) })
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) }
}

/** What the page sees: the client module and a client made with one API key. */
interface PageGlobals {
  waybillClient: typeof Client
  waybill: Client.WaybillClient
}

let browser: Browser
let tmp: string

/** A file on disk for `setInputFiles`, and its bytes. */
function makeFile(name: string, size: number) {
  const bytes = randomBytes(size)
  const path = join(tmp, name)
  writeFileSync(path, bytes)
  return { name, path, bytes }
}

/**
 * The demo page's origin with the client loaded (from the Worker's assets, as the page's CSP
 * allows) and one made for `apiKey`; `files` are put in a file input, so the page holds real File
 * objects (name, size, type and modification time from the disk).
 */
async function clientPage(page: Page, apiKey: string, files: readonly string[] = []) {
  await page.goto(`${demo.baseUrl}/`)
  // A string: vitest would rewrite an import() written in a callback into its own loader.
  await page.evaluate(
    "import('/vendor/waybill-client.js').then((module) => { window.waybillClient = module })",
  )
  await page.evaluate((key) => {
    const globals = window as unknown as PageGlobals
    globals.waybill = globals.waybillClient.createClient({
      baseUrl: location.origin,
      auth: () => key,
    })
    const input = document.createElement('input')
    input.type = 'file'
    input.multiple = true
    input.id = 'client-files'
    document.body.append(input)
  }, apiKey)
  if (files.length > 0) await page.setInputFiles('#client-files', [...files])
}

/** Requests the page sends, with when they started and ended (ms). */
function recordRequests(page: Page) {
  const requests: Array<{ request: Request; start: number; end?: number; status?: number }> = []
  page.on('request', (request) => requests.push({ request, start: performance.now() }))
  const finish = (request: Request) => {
    const entry = requests.find((r) => r.request === request)
    if (entry !== undefined) entry.end = performance.now()
  }
  // The status as the response arrives: asked for after 'requestfinished' (another round trip to
  // the browser), it could still be missing when the page's own await had already returned.
  page.on('response', (response) => {
    const entry = requests.find((r) => r.request === response.request())
    if (entry !== undefined) entry.status = response.status()
  })
  page.on('requestfinished', finish)
  page.on('requestfailed', finish)
  return {
    requests,
    partPuts: () =>
      requests
        .filter((r) => r.request.method() === 'PUT')
        .map((r) => new URL(r.request.url()))
        .filter((url) => url.origin === bucketOrigin && url.searchParams.has('partNumber')),
    toWaybill: () =>
      requests.filter((r) => new URL(r.request.url()).origin === new URL(demo.baseUrl).origin),
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'waybill-client-files-'))
  browser = await chromium.launch({
    executablePath: demo.chromiumPath,
    args: CHROMIUM_ARGS,
    timeout: STEP_TIMEOUT_MS,
  })
})

afterAll(async () => {
  await browser?.close()
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

describe('the browser client', () => {
  it('uploads by PUT with progress, then checks the stored object through waybill', async () => {
    const page = await browser.newPage()
    page.setDefaultTimeout(STEP_TIMEOUT_MS)
    const file = makeFile('put ü+%.png', 300_000)
    await clientPage(page, demo.apiKey, [file.path])
    const network = recordRequests(page)
    const { stored, progress } = await page.evaluate(async () => {
      const { waybill } = window as unknown as PageGlobals
      const input = document.getElementById('client-files') as HTMLInputElement
      const progress: number[] = []
      const stored = await waybill.upload(input.files![0]!, {
        origin: 'demo',
        key: 'client/put ü+%.png',
        onProgress: ({ loaded }) => progress.push(loaded),
      })
      return { stored, progress }
    })
    expect(stored).toMatchObject({
      origin: 'demo',
      key: 'client/put ü+%.png',
      size: file.bytes.length,
      contentType: 'image/png',
      mode: 'put',
    })
    expect(stored.etag).toMatch(/^"?[0-9a-f]{32}"?$/)
    // XMLHttpRequest's upload progress, ending at the size.
    expect(progress.length).toBeGreaterThan(1)
    expect(progress.at(-1)).toBe(file.bytes.length)
    const paths = network.toWaybill().map((r) => new URL(r.request.url()).pathname)
    expect(paths).toEqual(['/v1/uploads', '/v1/uploads/complete'])
    const put = network.requests.find((r) => r.request.method() === 'PUT')
    expect(new URL(put!.request.url()).origin).toBe(bucketOrigin)
    expect(await put!.request.headerValue('content-type')).toBe('image/png')
    expect(await network.toWaybill()[0]!.request.headerValue('authorization')).toBe(
      `Bearer ${demo.apiKey}`,
    )
    const read = await readObject('client/put ü+%.png')
    expect(sha256(read.bytes)).toBe(sha256(file.bytes))
    await page.close()
  })

  it('uploads a POST form, and falls back to PUT where the store takes no POST uploads', async () => {
    const page = await browser.newPage()
    page.setDefaultTimeout(STEP_TIMEOUT_MS)
    const file = makeFile('form résumé.bin', 200_000)
    await clientPage(page, demo.apiKey, [file.path])
    const network = recordRequests(page)
    const [viaPost, viaNoPost, viaPut] = await page.evaluate(async () => {
      const { waybill } = window as unknown as PageGlobals
      const input = document.getElementById('client-files') as HTMLInputElement
      const f = input.files![0]!
      return [
        // A POST form replaces what is at its key: sent only where the upload says overwrite.
        await waybill.upload(f, {
          origin: 'demo',
          key: 'client/form résumé.bin',
          mode: 'post',
          overwrite: true,
        }),
        await waybill.upload(f, {
          origin: 'nopost',
          key: 'client/no-post.bin',
          mode: 'post',
          overwrite: true,
        }),
        // Without it, a PUT, which never replaces: no POST is asked for.
        await waybill.upload(f, { origin: 'demo', key: 'client/form-put.bin', mode: 'post' }),
      ]
    })
    expect(viaPost).toMatchObject({ key: 'client/form résumé.bin', mode: 'post', size: 200_000 })
    expect(viaNoPost).toMatchObject({ key: 'client/no-post.bin', mode: 'put', size: 200_000 })
    expect(viaPut).toMatchObject({ key: 'client/form-put.bin', mode: 'put', size: 200_000 })
    const toBucket = network.requests
      .filter((r) => new URL(r.request.url()).origin === bucketOrigin)
      .map((r) => r.request.method())
    expect(toBucket).toEqual(['POST', 'PUT', 'PUT'])
    // The refused POST on "nopost" was waybill's 400 naming the mode, then a PUT was issued.
    // (Each status is recorded once its response is read, after the request finished: polled.)
    const issued = () =>
      network
        .toWaybill()
        .filter((r) => new URL(r.request.url()).pathname === '/v1/uploads')
        .map((r) => [(r.request.postDataJSON() as { mode: string }).mode, r.status])
    await expect.poll(issued).toEqual([
      ['post', 200],
      ['post', 400],
      ['put', 200],
      ['put', 200],
    ])
    for (const key of ['client/form résumé.bin', 'client/no-post.bin', 'client/form-put.bin']) {
      expect(sha256((await readObject(key)).bytes), key).toBe(sha256(file.bytes))
    }
    await page.close()
  })

  it('uploads a batch in one call, with keys the grant chooses from the file names', async () => {
    const page = await browser.newPage()
    page.setDefaultTimeout(STEP_TIMEOUT_MS)
    const files = [
      makeFile('batch one.txt', 1_000),
      makeFile('batch two 🎉.bin', 50_000),
      makeFile('batch three.bin', 400_000),
    ]
    await clientPage(
      page,
      demo.apiKey,
      files.map((f) => f.path),
    )
    const network = recordRequests(page)
    const stored = await page.evaluate(async () => {
      const { waybill } = window as unknown as PageGlobals
      const input = document.getElementById('client-files') as HTMLInputElement
      return waybill.uploadMany(
        Array.from(input.files!, (file) => ({ file })),
        { origin: 'demo' },
      )
    })
    const issued = network
      .toWaybill()
      .filter((r) => new URL(r.request.url()).pathname === '/v1/uploads')
    expect(issued).toHaveLength(1)
    const body = issued[0]!.request.postDataJSON() as { items: Array<{ filename: string }> }
    expect(body.items.map((i) => i.filename)).toEqual(files.map((f) => f.name))
    expect(
      network
        .toWaybill()
        .filter((r) => new URL(r.request.url()).pathname === '/v1/uploads/complete'),
    ).toHaveLength(3)
    for (const [i, file] of files.entries()) {
      const { key, size, mode } = stored[i]!
      expect(mode).toBe('put')
      expect(size).toBe(file.bytes.length)
      // uploads/{apiKey}/{uuid}-{filename}, the name sanitized.
      expect(key).toMatch(/^uploads\/demo\/[0-9a-f-]{36}-batch /)
      expect(sha256((await readObject(key)).bytes), key).toBe(sha256(file.bytes))
    }
    await page.close()
  })

  it('uploads more than 20 MiB as a multipart upload with parts in parallel', async () => {
    const page = await browser.newPage()
    page.setDefaultTimeout(STEP_TIMEOUT_MS)
    const file = makeFile('multipart.bin', 21 * MIB + 4_321)
    await clientPage(page, demo.apiKey, [file.path])
    const network = recordRequests(page)
    const started = performance.now()
    const stored = await page.evaluate(async () => {
      const { waybill } = window as unknown as PageGlobals
      const input = document.getElementById('client-files') as HTMLInputElement
      return waybill.upload(input.files![0]!, { origin: 'demo', key: 'client/multipart.bin' })
    })
    const elapsedMs = performance.now() - started
    expect(stored).toMatchObject({
      key: 'client/multipart.bin',
      size: file.bytes.length,
      mode: 'multipart',
      partCount: 5,
      partsSent: 5,
      resumed: false,
    })
    const parts = network.requests.filter(
      (r) =>
        r.request.method() === 'PUT' &&
        new URL(r.request.url()).searchParams.has('partNumber') &&
        r.end !== undefined,
    )
    expect(parts).toHaveLength(5)
    // The most part PUTs in flight at once (4 by default), from the browser's own timings: a
    // part is sent once the bucket's answer starts (it answers only after the whole body).
    const spans = parts.map((p) => {
      const timing = p.request.timing()
      return { start: timing.startTime, end: timing.startTime + timing.responseStart }
    })
    const overlap = Math.max(
      ...spans.map((p) => spans.filter((q) => q.start <= p.start && q.end > p.start).length),
    )
    expect(overlap).toBeGreaterThanOrEqual(2)
    expect(overlap).toBeLessThanOrEqual(4)
    const calls = network.toWaybill().filter((r) => r.request.url().includes('/v1/'))
    expect(calls.map((r) => new URL(r.request.url()).pathname)).toEqual([
      '/v1/uploads',
      '/v1/uploads/multipart/complete',
    ])
    const read = await readObject('client/multipart.bin')
    expect(read.bytes.length).toBe(file.bytes.length)
    expect(sha256(read.bytes)).toBe(sha256(file.bytes))

    const waybillMs = calls.reduce((sum, r) => sum + (r.request.timing().responseEnd ?? 0), 0)
    mkdirSync(dirname(MEASUREMENTS), { recursive: true })
    writeFileSync(
      MEASUREMENTS,
      JSON.stringify(
        {
          bytes: file.bytes.length,
          parts: parts.length,
          maxPartsInFlight: overlap,
          waybillRequests: calls.length,
          waybillRequestsPerPart: calls.length / parts.length,
          waybillMs: Math.round(waybillMs),
          waybillMsPerPart: Math.round((waybillMs / parts.length) * 10) / 10,
          waybillCalls: calls.map((r) => ({
            path: new URL(r.request.url()).pathname,
            ms: Math.round(r.request.timing().responseEnd),
          })),
          totalMs: Math.round(elapsedMs),
        },
        null,
        2,
      ) + '\n',
    )
    await page.close()
  })

  it('resumes an upload interrupted by a reload, sending only the parts the bucket lacks', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    page.setDefaultTimeout(STEP_TIMEOUT_MS)
    const file = makeFile('resumed.bin', 20 * MIB)
    const key = 'client/resumed.bin'
    try {
      await clientPage(page, demo.apiKey, [file.path])
      // Parts 3 and 4 are held until the page goes away; 1 and 2 reach the bucket.
      const held: Array<() => Promise<void>> = []
      const slowParts = (url: URL) =>
        url.origin === bucketOrigin && ['3', '4'].includes(url.searchParams.get('partNumber') ?? '')
      await page.route(slowParts, (route) => {
        held.push(() => route.abort().catch(() => {}))
      })
      const before = recordRequests(page)
      let stored = 0
      page.on('response', (response) => {
        const url = new URL(response.url())
        if (url.origin === bucketOrigin && url.searchParams.has('partNumber')) stored++
      })
      await page.evaluate((target) => {
        const { waybill } = window as unknown as PageGlobals
        const input = document.getElementById('client-files') as HTMLInputElement
        // Not awaited: the page is reloaded while it runs.
        void waybill.upload(input.files![0]!, { origin: 'demo', key: target }).catch(() => {})
      }, key)
      await expect.poll(() => stored, { timeout: STEP_TIMEOUT_MS }).toBe(2)
      await expect.poll(() => held.length, { timeout: STEP_TIMEOUT_MS }).toBe(2)
      const sentBefore = before
        .partPuts()
        .map((u) => u.searchParams.get('partNumber'))
        .sort()
      expect(sentBefore).toEqual(['1', '2', '3', '4'])

      // The reload cancels the held parts; only then are the routes dropped (dropping them
      // first would let the held requests through).
      await page.reload()
      await Promise.all(held.map((release) => release()))
      await page.unroute(slowParts)
      await clientPage(page, demo.apiKey, [file.path])
      const after = recordRequests(page)
      const result = await page.evaluate(async (target) => {
        const { waybill } = window as unknown as PageGlobals
        const input = document.getElementById('client-files') as HTMLInputElement
        const f = input.files![0]!
        const record = waybill.resumableUpload(f, { origin: 'demo', key: target })
        const listed =
          record &&
          (await waybill.listParts({
            origin: record.origin,
            key: record.key,
            uploadId: record.uploadId,
          }))
        const stored = await waybill.upload(f, { origin: 'demo', key: target })
        const left = waybill.resumableUpload(f, { origin: 'demo', key: target })
        return { record, listed, stored, left }
      }, key)
      // What the store held after the reload: parts 1 and 2, each of 5 MiB.
      expect(result.record).toMatchObject({ origin: 'demo', key, partSize: 5 * MIB })
      expect(result.listed?.parts.map((p) => [p.partNumber, p.size])).toEqual([
        [1, 5 * MIB],
        [2, 5 * MIB],
      ])
      expect(result.stored).toMatchObject({
        key,
        size: 20 * MIB,
        mode: 'multipart',
        partCount: 4,
        partsSent: 2,
        resumed: true,
      })
      expect(result.left).toBeUndefined()
      // Only the missing parts went to the bucket, and no new upload was started.
      expect(
        after
          .partPuts()
          .map((u) => u.searchParams.get('partNumber'))
          .sort(),
      ).toEqual(['3', '4'])
      expect(after.toWaybill().map((r) => new URL(r.request.url()).pathname)).not.toContain(
        '/v1/uploads',
      )
      const read = await readObject(key)
      expect(sha256(read.bytes)).toBe(sha256(file.bytes))
      mkdirSync(dirname(RESUME_MEASUREMENTS), { recursive: true })
      writeFileSync(
        RESUME_MEASUREMENTS,
        JSON.stringify(
          {
            partCount: 4,
            partsStartedBeforeReload: sentBefore,
            partsStoredBeforeReload: result.listed?.parts.map((p) => p.partNumber),
            partsSentAfterReload: after
              .partPuts()
              .map((u) => Number(u.searchParams.get('partNumber'))),
            waybillCallsAfterReload: after
              .toWaybill()
              .filter((r) => r.request.url().includes('/v1/'))
              .map((r) => new URL(r.request.url()).pathname),
          },
          null,
          2,
        ) + '\n',
      )
    } finally {
      await context.close()
    }
  })

  it("rejects with waybill's own message when the grant refuses the file", async () => {
    const page = await browser.newPage()
    page.setDefaultTimeout(STEP_TIMEOUT_MS)
    const pdf = makeFile('report.pdf', 10_000)
    const big = makeFile('huge.png', 2 * MIB)
    // Chromium types it image/svg+xml from its name: an image, but one that runs script.
    const svg = makeFile('drawing.svg', 1_000)
    await clientPage(page, demo.limitedApiKey, [pdf.path, big.path, svg.path])
    const problems: Array<{ detail: string }> = []
    page.on('response', async (response) => {
      if (new URL(response.url()).pathname === '/v1/uploads' && response.status() === 400) {
        problems.push((await response.json()) as { detail: string })
      }
    })
    const network = recordRequests(page)
    const errors = await page.evaluate(async () => {
      const { waybill, waybillClient } = window as unknown as PageGlobals
      const input = document.getElementById('client-files') as HTMLInputElement
      const [pdf, big, svg] = Array.from(input.files!)
      const attempt = (file: File, key: string) =>
        waybill.upload(file, { origin: 'demo', key }).then(
          () => null,
          (error: unknown) =>
            error instanceof waybillClient.WaybillError
              ? { ...error, message: error.message, retryable: error.retryable }
              : { message: String(error) },
        )
      return [
        await attempt(pdf!, 'limited/report.pdf'),
        await attempt(big!, 'limited/huge.png'),
        await attempt(svg!, 'limited/drawing.svg'),
      ]
    })
    await expect.poll(() => problems.length).toBe(3)
    const [wrongType, tooBig, script] = errors
    expect(wrongType).toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: problems[0]!.detail,
      errors: [{ path: 'contentType' }],
      retryable: false,
    })
    expect(wrongType!.message).toContain('image/*')
    expect(tooBig).toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: problems[1]!.detail,
      errors: [{ path: 'contentLength' }],
    })
    // An `image/*` grant admits passive images only (src/core/media-type.ts): the message names
    // the type the file was refused as.
    expect(script).toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: problems[2]!.detail,
      errors: [{ path: 'contentType' }],
    })
    expect(script!.message).toContain('image/svg+xml')
    // Refused before any byte left: nothing went to the bucket, and nothing was retried.
    expect(network.requests.filter((r) => r.request.url().startsWith(bucketOrigin))).toEqual([])
    expect(network.toWaybill()).toHaveLength(3)
    await page.close()
  })

  it('lists a prefix with signed URLs the page can fetch', async () => {
    const page = await browser.newPage()
    page.setDefaultTimeout(STEP_TIMEOUT_MS)
    await clientPage(page, demo.apiKey)
    const listed = await page.evaluate(async () => {
      const { waybill } = window as unknown as PageGlobals
      const objects = []
      for await (const object of waybill.list('demo', { prefix: 'client/', limit: 2 })) {
        objects.push(object)
      }
      const first = objects.find((o) => o.key === 'client/put ü+%.png')
      const response = await fetch(first!.url!)
      return {
        keys: objects.map((o) => o.key),
        status: response.status,
        size: (await response.arrayBuffer()).byteLength,
      }
    })
    expect(listed.keys).toEqual(
      expect.arrayContaining([
        'client/form résumé.bin',
        'client/multipart.bin',
        'client/no-post.bin',
        'client/put ü+%.png',
        'client/resumed.bin',
      ]),
    )
    expect(listed.status).toBe(200)
    expect(listed.size).toBe(300_000)
    await page.close()
  })
})
