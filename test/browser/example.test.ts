// The acceptance test of issue #22: an app of its own (examples/react-uploads) built outside the
// workspace from the `npm pack -w client` tarball (a temporary copy, its dependencies installed
// by npm, type-checked with skipLibCheck off, bundled), served by its own serve.mjs on its own
// origin with its Content-Security-Policy, against the Worker settings `npm start --
// --app-origin <that origin>` gives (the global setup). In Chromium it shows a gallery; uploads
// three files with per-file progress, one refused by the grant, the others stored; pauses and
// resumes a 20 MiB multipart upload; uploads through Uppy's Dashboard; and downloads a file
// through its link. Every stored or downloaded file is compared with its source by SHA-256.
// All of it twice: against the versitygw origin "demo", and against "demo-r2", R2 through the
// Worker's binding (issue #30), where every upload and read goes to waybill's own host.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AwsClient } from 'aws4fetch'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { makePng } from '../../scripts/dev.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const MIB = 1024 * 1024
const STEP_TIMEOUT_MS = 60_000
/** How long a poll waits for what the page shows (uploads take seconds on a busy machine). */
const POLL = { timeout: 30_000 }
const SETUP_TIMEOUT_MS = 300_000

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

/** POSTs `body` to waybill with the app's key. */
async function api<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${demo.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${demo.appApiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

/** Where the app's files go, and how the test puts and reads them there behind the app's back. */
interface Target {
  readonly origin: string
  /** Whether a request of the page is a multipart part's upload (slowed, to pause midway). */
  readonly isPart: (url: URL) => boolean
  readonly put: (key: string, bytes: Uint8Array<ArrayBuffer>, contentType: string) => Promise<void>
  readonly stored: (key: string) => Promise<Response>
}

const TARGETS: readonly Target[] = [
  {
    origin: 'demo',
    isPart: (url) => url.origin === bucketOrigin && url.searchParams.has('partNumber'),
    async put(key, bytes, contentType) {
      const response = await s3.fetch(objectUrl(key), {
        method: 'PUT',
        body: bytes,
        headers: { 'content-type': contentType },
      })
      expect(response.status).toBe(200)
    },
    stored: (key) => s3.fetch(objectUrl(key), { signal: AbortSignal.timeout(30_000) }),
  },
  {
    // R2 through the binding: the bytes go in and out through waybill's own signed URLs.
    origin: 'demo-r2',
    isPart: (url) =>
      url.origin === new URL(demo.baseUrl).origin &&
      url.pathname.startsWith('/o/demo-r2/') &&
      url.searchParams.has('n'),
    async put(key, bytes, contentType) {
      const { url, headers } = await api<{ url: string; headers: Record<string, string> }>(
        '/v1/uploads',
        { origin: 'demo-r2', key, contentType, contentLength: bytes.byteLength },
      )
      const response = await fetch(url, { method: 'PUT', headers, body: bytes })
      expect(response.status).toBe(200)
    },
    async stored(key) {
      const { urls } = await api<{ urls: { url: string }[] }>('/v1/sign', {
        origin: 'demo-r2',
        keys: [key],
      })
      expect(urls[0]!.url.startsWith(`${demo.baseUrl}/o/demo-r2/`)).toBe(true)
      return fetch(urls[0]!.url, { signal: AbortSignal.timeout(30_000) })
    },
  },
]

async function storedSha256(target: Target, key: string) {
  const response = await target.stored(key)
  return { status: response.status, sha256: sha256(new Uint8Array(await response.arrayBuffer())) }
}

let tmp: string
let server: ChildProcess | undefined
let browser: Browser

/** Runs a command in `cwd`, its output kept for the error when it fails. */
function run(command: string, args: string[], cwd: string) {
  try {
    execFileSync(command, args, { cwd, stdio: 'pipe', encoding: 'utf8', timeout: SETUP_TIMEOUT_MS })
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`)
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'waybill-example-'))
  // The client as npm publishes it (prepack builds it), and the app copied outside the workspace.
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '-w', 'client', '--json', '--pack-destination', tmp], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as [{ filename: string }]
  const app = join(tmp, 'react-uploads')
  cpSync(join(ROOT, 'examples', 'react-uploads'), app, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|dist)$/.test(source),
  })
  // npm's cache holds these versions (the repository pins the same ones): no download needed.
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', join(tmp, packed.filename)],
    app,
  )
  run('npm', ['run', 'build'], app)

  const port = new URL(demo.appOrigin).port
  server = spawn(
    process.execPath,
    ['serve.mjs', '--port', port, '--waybill', demo.baseUrl, '--bucket', bucketOrigin],
    { cwd: app, stdio: 'ignore' },
  )
  const deadline = Date.now() + 30_000
  for (;;) {
    const up = await fetch(`${demo.appOrigin}/`).then(
      (response) => response.ok,
      () => false,
    )
    if (up) break
    if (Date.now() > deadline)
      throw new Error(`the example app did not answer on ${demo.appOrigin}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }

  // A gallery to show, on each origin: two images the app's key may read.
  for (const target of TARGETS) {
    for (const name of ['sunrise.png', 'rings.png']) {
      const image = new Uint8Array(makePng(4, 3, (x, y) => [x * 60, y * 80, 200]))
      await target.put(`app/gallery-${name}`, image, 'image/png')
    }
  }
  browser = await chromium.launch({
    executablePath: demo.chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic'],
    timeout: STEP_TIMEOUT_MS,
  })
}, SETUP_TIMEOUT_MS)

afterAll(async () => {
  await browser?.close()
  server?.kill('SIGTERM')
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

function makeFile(name: string, bytes: Uint8Array) {
  const path = join(tmp, name)
  writeFileSync(path, bytes)
  return { name, path, bytes }
}

async function openApp(target: Target): Promise<Page> {
  const context = await browser.newContext({ acceptDownloads: true })
  const page = await context.newPage()
  page.setDefaultTimeout(STEP_TIMEOUT_MS)
  page.on('pageerror', (error) => console.error(`pageerror: ${error.message}`))
  const fragment = new URLSearchParams({
    waybill: demo.baseUrl,
    key: demo.appApiKey,
    origin: target.origin,
  })
  await page.goto(`${demo.appOrigin}/#${fragment}`)
  return page
}

describe.each(TARGETS)(
  'an app on its own origin, built from the packed client ($origin)',
  (target) => {
    it('shows a gallery, uploads with per-file progress, pauses and resumes, uploads with Uppy, downloads', async () => {
      const page = await openApp(target)
      // Part PUTs slowed down, so that the large upload can be paused midway: its last part is
      // under way for this long after the page shows the first ones done, the time the test has
      // to click Pause on a busy machine.
      await page.route(
        (url) => target.isPart(url),
        async (route) => {
          await new Promise((resolve) => setTimeout(resolve, 1_500))
          await route.continue().catch(() => undefined)
        },
      )
      const progress: string[] = []
      try {
        // The gallery: the images under app/, from a signed listing, loaded from the bucket.
        const gallery = page.locator('#gallery li img')
        await expect.poll(() => gallery.count(), POLL).toBe(2)
        await expect
          .poll(() =>
            gallery.evaluateAll((all) => all.map((img) => (img as HTMLImageElement).naturalWidth)),
          )
          .toEqual([4, 4])

        // Three files at once: per-file progress; the HTML page is refused, the others stored.
        const files = [
          makeFile('notes.txt', randomBytes(300_000)),
          makeFile('photo.png', randomBytes(1_500_000)),
          makeFile('page.html', randomBytes(2_000)),
        ]
        const queue = page.locator('#queue')
        await queue.locator('input[type=file]').setInputFiles(files.map((f) => f.path))
        const item = (name: string) => queue.locator(`li[data-name="${name}"]`)
        // Each file's own progress, as it is shown.
        await expect
          .poll(async () => {
            const shown = await item('photo.png').locator('.state').textContent()
            if (shown !== null && !progress.includes(shown)) progress.push(shown)
            return item('photo.png').getAttribute('data-state')
          }, POLL)
          .toBe('done')
        await expect.poll(() => item('notes.txt').getAttribute('data-state'), POLL).toBe('done')
        await expect.poll(() => item('page.html').getAttribute('data-state'), POLL).toBe('failed')
        expect(await item('page.html').locator('[role=alert]').textContent()).toBe(
          'contentType: must be one of image/*, text/plain, application/octet-stream for this caller',
        )
        for (const name of ['notes.txt', 'photo.png']) {
          expect(await item(name).locator('.state').textContent()).toBe('done 100%')
        }
        // What it showed on its way there: its own state and share, never another file's.
        for (const shown of progress)
          expect(shown).toMatch(/^(queued|uploading) \d{1,3}%$|^done 100%$/)
        for (const file of files.slice(0, 2)) {
          const key = (await item(file.name).getAttribute('data-key'))!
          expect(key).toMatch(new RegExp(`^app/[0-9a-f-]{36}-${file.name.replace('.', '\\.')}$`))
          expect(await storedSha256(target, key)).toEqual({
            status: 200,
            sha256: sha256(file.bytes),
          })
        }
        // The gallery is listed again once uploads complete: the new image shows.
        await expect.poll(() => gallery.count(), POLL).toBe(3)

        // A download link, followed as a user would: the browser saves the same bytes.
        const link = item('notes.txt').locator('a.download')
        await expect.poll(() => link.count(), POLL).toBe(1)
        expect(await link.getAttribute('href')).toMatch(new RegExp(`^${demo.baseUrl}/l/`))
        const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
        expect(download.suggestedFilename()).toMatch(/notes\.txt$/)
        expect(sha256(readFileSync(await download.path()))).toBe(sha256(files[0]!.bytes))

        // A 20 MiB file: multipart, paused midway (the upload stays open), then resumed.
        const large = makeFile('large.bin', randomBytes(20 * MIB + 9))
        const section = page.locator('#large')
        await section.locator('input[type=file]').setInputFiles(large.path)
        await expect
          .poll(() => section.locator('.state').textContent(), POLL)
          .toMatch(/^uploading \([1-4] of 5 parts\)$/)
        await section.getByRole('button', { name: 'Pause' }).click()
        await expect.poll(() => section.getAttribute('data-state'), POLL).toBe('paused')
        const paused = await section.locator('progress').getAttribute('value')
        await new Promise((resolve) => setTimeout(resolve, 1_000))
        expect(await section.locator('progress').getAttribute('value')).toBe(paused)
        await section.getByRole('button', { name: 'Resume' }).click()
        await expect
          .poll(() => section.getAttribute('data-state'), { timeout: 90_000 })
          .toBe('done')
        const largeKey = (await section.getAttribute('data-key'))!
        expect(await storedSha256(target, largeKey)).toEqual({
          status: 200,
          sha256: sha256(large.bytes),
        })

        // Uppy's Dashboard, with the adapter: a file chosen and uploaded.
        const viaUppy = makeFile('uppy.txt', randomBytes(50_000))
        await page.locator('#uppy .uppy-Dashboard-input').first().setInputFiles(viaUppy.path)
        await page.locator('#uppy .uppy-StatusBar-actionBtn--upload').click()
        const uppyKey = page.locator('#uppy li[data-key]')
        await expect.poll(() => uppyKey.count(), POLL).toBe(1)
        const key = (await uppyKey.getAttribute('data-key'))!
        expect(key).toMatch(/^app\/[0-9a-f-]{36}-uppy\.txt$/)
        expect(await storedSha256(target, key)).toEqual({
          status: 200,
          sha256: sha256(viaUppy.bytes),
        })
      } finally {
        await page.context().close()
      }
    })
  },
)
