// Issue #32's acceptance test of the client: two apps a newcomer would make with Vite
// (examples/vite-react and examples/vite-vue), each copied outside the workspace, given the
// `npm pack -w client` tarball by npm, type-checked (skipLibCheck off) and built by `vite build`,
// then served by `vite preview` on an origin of its own, against the Worker settings
// `npm start -- --app-origin <that origin>` gives (the global setup). In Chromium:
// - the upload rules come before any file is picked: the file input's `accept`, and a file they
//   refuse fails with waybill's words while the page sends no request at all (counted);
// - React's hooks upload a batch and the page awaits its outcomes; <UploadButton> (a button, its
//   file chooser) and <UploadDropzone> (Enter, and a drop) do too, telling the progress and the
//   outcome in a live region;
// - the Vue app, on the upload store, uploads a batch and awaits its outcomes.
// Every stored file is compared with its source by SHA-256.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AwsClient } from 'aws4fetch'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const STEP_TIMEOUT_MS = 60_000
/** How long a poll waits for what the page shows (uploads take seconds on a busy machine). */
const POLL = { timeout: 30_000 }
const SETUP_TIMEOUT_MS = 300_000
/** The Vite apps' key admits these types under `vite/` (test/browser/global-setup.ts). */
const ACCEPT = 'image/*,text/plain,application/octet-stream'
/** Where the apps store: a prefix of their key's own, apart from the other tests' objects. */
const PREFIX = 'vite/'
const REFUSED_TYPE =
  'contentType: must be one of image/*, text/plain, application/octet-stream for this caller'

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

async function storedSha256(key: string) {
  const url = `${demo.s3.endpoint}/${demo.s3.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`
  const response = await s3.fetch(url, { signal: AbortSignal.timeout(30_000) })
  return { status: response.status, sha256: sha256(new Uint8Array(await response.arrayBuffer())) }
}

let tmp: string
const servers: ChildProcess[] = []
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

/**
 * The example copied outside the workspace, installed with the tarball and built as its README
 * says, then served by `vite preview` (what `npm run preview` runs) on `origin`.
 */
async function buildAndServe(example: string, tarball: string, origin: string) {
  const app = join(tmp, example)
  cpSync(join(ROOT, 'examples', example), app, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|dist)$/.test(source),
  })
  // npm's cache holds these versions (the repository pins the same ones): no download needed.
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], app)
  run('npm', ['run', 'build'], app)
  const vite = join(app, 'node_modules', 'vite', 'bin', 'vite.js')
  const { port } = new URL(origin)
  const server = spawn(
    process.execPath,
    [vite, 'preview', '--host', '127.0.0.1', '--strictPort', '--port', port],
    { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  servers.push(server)
  let output = ''
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const deadline = Date.now() + 30_000
  for (;;) {
    if (server.exitCode !== null) {
      throw new Error(`${example}'s vite preview exited (${server.exitCode}):\n${output}`)
    }
    const up = await fetch(`${origin}/`).then(
      (response) => response.ok,
      () => false,
    )
    if (up) return
    if (Date.now() > deadline) {
      throw new Error(`${example} did not answer on ${origin}; vite preview said:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'waybill-vite-'))
  // The client as npm publishes it (prepack builds it).
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '-w', 'client', '--json', '--pack-destination', tmp], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as [{ filename: string }]
  const tarball = join(tmp, packed.filename)
  await buildAndServe('vite-react', tarball, demo.viteOrigins.react)
  await buildAndServe('vite-vue', tarball, demo.viteOrigins.vue)
  browser = await chromium.launch({
    executablePath: demo.chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic'],
    timeout: STEP_TIMEOUT_MS,
  })
}, SETUP_TIMEOUT_MS)

afterAll(async () => {
  await browser?.close()
  for (const server of servers) server.kill('SIGTERM')
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

function makeFile(name: string, size: number) {
  const bytes = randomBytes(size)
  const path = join(tmp, name)
  writeFileSync(path, bytes)
  return { name, path, bytes }
}

/** The app at `origin`, for the app's key, with every request it sends recorded. */
async function openApp(origin: string): Promise<{ page: Page; sent: URL[] }> {
  const page = await browser.newPage()
  page.setDefaultTimeout(STEP_TIMEOUT_MS)
  page.on('pageerror', (error) => console.error(`pageerror: ${error.message}`))
  // File choosers are intercepted from the start: turned on by the first listener, interception
  // could otherwise come after a key press that opens one.
  page.on('filechooser', () => {})
  const sent: URL[] = []
  page.on('request', (request) => {
    const url = new URL(request.url())
    if (url.origin !== origin) sent.push(url)
  })
  const fragment = new URLSearchParams({
    waybill: demo.baseUrl,
    key: demo.viteApiKey,
    prefix: PREFIX,
  })
  await page.goto(`${origin}/#${fragment}`)
  return { page, sent }
}

const uploadCalls = (sent: readonly URL[]) =>
  sent.filter((url) => url.origin === demo.baseUrl && url.pathname === '/v1/uploads').length

/** The key an outcome line names for `name`: `<name>: stored at <key>`. */
async function storedKey(page: Page, section: string, name: string) {
  const lines = await page.locator(`${section} output p`).allTextContents()
  const line = lines.find((text) => text.startsWith(`${name}: `))
  return /: stored at (.+)$/.exec(line ?? '')?.[1]
}

describe('apps built with Vite from the packed client', () => {
  it('React: rules before picking, a batch through the hooks, the button and the drop zone', async () => {
    const { page, sent } = await openApp(demo.viteOrigins.react)
    try {
      // The rules, before any file: the input offers what the grant admits.
      await expect.poll(() => page.locator('#rules').getAttribute('data-accept'), POLL).toBe(ACCEPT)
      const input = page.locator('#hooks input[type=file]')
      expect(await input.getAttribute('accept')).toBe(ACCEPT)

      // A file the rules refuse fails at once, with waybill's words, and nothing is sent.
      const before = sent.length
      await input.setInputFiles(makeFile('page.html', 2_000).path)
      await expect
        .poll(() => page.locator('#hooks output').textContent(), POLL)
        .toBe(`page.html: ${REFUSED_TYPE}`)
      expect(
        await page.locator('#hooks li[data-name="page.html"]').getAttribute('data-state'),
      ).toBe('failed')
      expect(sent.slice(before).map(String)).toEqual([])

      // A batch through the hooks: each file's outcome awaited; the refused one sends nothing.
      const toBucket = (url: URL) => url.origin === bucketOrigin
      await page.route(toBucket, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 500))
        await route.continue().catch(() => undefined)
      })
      const batch = [
        makeFile('notes.txt', 300_000),
        makeFile('photo.png', 1_500_000),
        makeFile('other.html', 1_000),
      ]
      const calls = uploadCalls(sent)
      await input.setInputFiles(batch.map((file) => file.path))
      await expect.poll(() => page.locator('#hooks .busy').textContent(), POLL).toBe('uploading')
      await expect.poll(() => page.locator('#hooks output p').count(), POLL).toBe(3)
      expect(await page.locator('#hooks .busy').textContent()).toBe('idle')
      expect((await page.locator('#hooks output p').allTextContents())[2]).toBe(
        `other.html: ${REFUSED_TYPE}`,
      )
      // One request per file sent, and none that names the refused one.
      expect(uploadCalls(sent) - calls).toBe(2)
      expect(sent.some((url) => url.href.includes('other.html'))).toBe(false)
      for (const file of batch.slice(0, 2)) {
        const key = await storedKey(page, '#hooks', file.name)
        expect(key).toMatch(new RegExp(`^${PREFIX}[0-9a-f-]{36}-${file.name.replace('.', '\\.')}$`))
        expect(await storedSha256(key!)).toEqual({ status: 200, sha256: sha256(file.bytes) })
        expect(await page.locator(`#hooks li[data-name="${file.name}"]`).textContent()).toContain(
          '100%',
        )
      }
      await page.unroute(toBucket)

      // <UploadButton>: a native button opens the file chooser; its live region tells the end.
      const components = page.locator('#components')
      const button = components.getByRole('button', { name: 'Upload files' })
      const status = components.locator(`#${await button.getAttribute('aria-describedby')}`)
      expect(await status.getAttribute('role')).toBe('status')
      expect(await status.getAttribute('aria-live')).toBe('polite')
      const viaButton = [makeFile('a.txt', 20_000), makeFile('b.png', 40_000)]
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), button.click()])
      expect(chooser.isMultiple()).toBe(true)
      await chooser.setFiles(viaButton.map((file) => file.path))
      await expect.poll(() => status.textContent(), POLL).toBe('2 of 2 uploaded')
      await expect.poll(() => components.locator('.stored li').count(), POLL).toBe(2)

      // <UploadDropzone>: focusable, Enter opens the chooser; a drop uploads; a refusal is told.
      const zone = components.getByRole('button', { name: 'Drop files here, or press to choose' })
      const zoneStatus = components.locator(`#${await zone.getAttribute('aria-describedby')}`)
      await zone.focus()
      const viaKeyboard = makeFile('c.png', 30_000)
      const [keyboardChooser] = await Promise.all([
        page.waitForEvent('filechooser'),
        page.keyboard.press('Enter'),
      ])
      await keyboardChooser.setFiles(viaKeyboard.path)
      await expect.poll(() => zoneStatus.textContent(), POLL).toBe('1 of 1 uploaded')
      const dropped = randomBytes(5_000)
      const transfer = await page.evaluateHandle((bytes) => {
        const data = new DataTransfer()
        data.items.add(new File([new Uint8Array(bytes)], 'd.txt', { type: 'text/plain' }))
        data.items.add(new File(['<p>'], 'e.html', { type: 'text/html' }))
        return data
      }, Array.from(dropped))
      await zone.dispatchEvent('dragover', { dataTransfer: transfer })
      await expect.poll(() => zone.getAttribute('data-dragging'), POLL).toBe('true')
      await zone.dispatchEvent('drop', { dataTransfer: transfer })
      await expect
        .poll(() => zoneStatus.textContent(), POLL)
        .toBe(`1 of 2 uploaded. e.html: ${REFUSED_TYPE}`)
      expect(await zone.getAttribute('data-dragging')).toBeNull()

      const keys = await components.locator('.stored li').allTextContents()
      const expected = [
        ...viaButton.map((file) => [file.name, file.bytes] as const),
        [viaKeyboard.name, viaKeyboard.bytes] as const,
        ['d.txt', new Uint8Array(dropped)] as const,
      ]
      expect(keys).toHaveLength(expected.length)
      for (const [name, bytes] of expected) {
        const key = keys.find((stored) => stored.endsWith(`-${name}`))
        expect(key, name).toMatch(new RegExp(`^${PREFIX}[0-9a-f-]{36}-`))
        expect(await storedSha256(key!)).toEqual({ status: 200, sha256: sha256(bytes) })
      }
    } finally {
      await page.close()
    }
  })

  it('Vue: the upload store uploads a batch, refusing what the rules refuse before any request', async () => {
    const { page, sent } = await openApp(demo.viteOrigins.vue)
    try {
      const input = page.locator('input[type=file]')
      await expect.poll(() => input.getAttribute('data-ready'), POLL).toBe('true')
      expect(await input.getAttribute('accept')).toBe(ACCEPT)
      const batch = [
        makeFile('vue-notes.txt', 200_000),
        makeFile('vue-photo.png', 600_000),
        makeFile('vue-page.html', 1_000),
      ]
      const calls = uploadCalls(sent)
      await input.setInputFiles(batch.map((file) => file.path))
      await expect.poll(() => page.locator('output p').count(), POLL).toBe(3)
      expect((await page.locator('output p').allTextContents())[2]).toBe(
        `vue-page.html: ${REFUSED_TYPE}`,
      )
      expect(await page.locator('li[data-name="vue-page.html"]').getAttribute('data-state')).toBe(
        'failed',
      )
      expect(uploadCalls(sent) - calls).toBe(2)
      expect(sent.some((url) => url.href.includes('vue-page'))).toBe(false)
      for (const file of batch.slice(0, 2)) {
        expect(await page.locator(`li[data-name="${file.name}"]`).getAttribute('data-state')).toBe(
          'done',
        )
        const key = await storedKey(page, 'main', file.name)
        expect(key).toMatch(new RegExp(`^${PREFIX}[0-9a-f-]{36}-${file.name.replace('.', '\\.')}$`))
        expect(await storedSha256(key!)).toEqual({ status: 200, sha256: sha256(file.bytes) })
      }
      expect(await page.locator('.busy').textContent()).toBe('idle')
    } finally {
      await page.close()
    }
  })
})
