// The admin UI (public-admin/, src/admin/ui/main.ts) in a real Chromium against the admin plane's
// `wrangler dev`, an operator's first session: sign in, create a key (shown once), grant it,
// explain a refusal, set a quota and see its use after an upload the key makes, revoke the key,
// and read the audit trail. A screenshot of each step goes to test-output/admin-ui-<step>.png;
// the page's policy allows no inline script, and the walk fails on any console error.

import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { afterUsageWritten } from '../helpers/local-d1'

const demo = inject('browserDemo')
const ROOT = join(import.meta.dirname, '..', '..')
const SCREENSHOT_DIR = join(ROOT, 'test-output')
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

let browser: Browser
/** Each step crosses processes (the admin Worker, the data plane, a counter) on a busy machine. */
const POLL = { timeout: 10_000 }

beforeAll(async () => {
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  browser = await chromium.launch({ executablePath: demo.chromiumPath, args: CHROMIUM_ARGS })
  // Not while the data plane still writes the usage of the files before this one: then the upload
  // below is written at once, before the revocation.
  await afterUsageWritten()
})
afterAll(async () => {
  await browser?.close()
})

const shot = (page: Page, step: string) =>
  page.screenshot({ path: join(SCREENSHOT_DIR, `admin-ui-${step}.png`), fullPage: true })

/** The text of the table row that holds `text`. */
const rowWith = (page: Page, table: string, text: string) =>
  page.locator(`#${table} tbody tr`, { hasText: text })

describe('the admin UI', () => {
  it('creates a key (shown once), grants it, explains a refusal, counts an upload, revokes it, shows the trail', async () => {
    const page = await browser.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    const answered = await page.goto(`${demo.adminUrl}/`)
    expect(answered?.headers()['content-security-policy']).toContain("script-src 'self'")
    await expect
      .poll(() => page.textContent('#status'), POLL)
      .toMatch(/^Sign in with an admin token/)

    // Sign in: the token stays in this tab.
    await page.fill('#signin input[name="token"]', demo.adminToken)
    await page.click('#signin button[type="submit"]')
    await expect.poll(() => page.textContent('#who'), POLL).toMatch(/signed in/)
    // Before it, the page asked once and was told to sign in (the one 401 the console shows).
    expect(problems).toEqual([expect.stringContaining('401')])
    problems.length = 0

    // A key, shown once.
    await page.fill('#key-create input[name="label"]', 'the ui walk')
    await page.fill('#key-create input[name="expires"]', '30d')
    await page.click('#key-create button[type="submit"]')
    await page.waitForSelector('#key-shown:not([hidden])')
    const id = (await page.textContent('#key-shown-id'))!
    const key = (await page.textContent('#key-shown-key'))!
    expect(key).toMatch(/^wb_[A-Za-z0-9_-]{43}$/)
    await expect.poll(() => rowWith(page, 'key-list', id).count(), POLL).toBe(1)
    await shot(page, '1-key-created')
    await page.click('#key-shown-done')
    expect(await page.isHidden('#key-shown')).toBe(true)
    // Nowhere on the page any more, nor in what the API lists.
    expect(await page.content()).not.toContain(key)

    // A grant: read and write under ui/ on "demo".
    await page.fill('#grant-create input[name="to"]', `apiKey:${id}`)
    await page.fill('#grant-create input[name="origin"]', 'demo')
    await page.fill('#grant-create input[name="prefix"]', 'ui/')
    await page.check('#grant-create input[value="write"]')
    await page.click('#grant-create button[type="submit"]')
    await expect
      .poll(() => rowWith(page, 'grant-list', `apiKey:${id}`).textContent(), POLL)
      .toContain('read, write')
    await shot(page, '2-granted')

    // Explain a refusal: the key may not delete.
    await page.fill('#explain-form input[name="key"]', id)
    await page.selectOption('#explain-form select[name="action"]', 'delete')
    await page.fill('#explain-form input[name="origin"]', 'demo')
    await page.fill('#explain-form input[name="object"]', 'ui/a.txt')
    await page.click('#explain-form button[type="submit"]')
    await expect
      .poll(() => page.textContent('#explain-answer .refused'), POLL)
      .toBe('Refused (403)')
    expect(await page.textContent('#explain-answer .rule')).toMatch(/^Refused by: forbidden/)
    expect(await page.textContent('#explain-answer table')).toContain('refuses')
    await shot(page, '3-explained')

    // A quota of two uploads; one upload by the key; its use, read from the counter.
    await page.fill('#quota-create input[name="to"]', `apiKey:${id}`)
    await page.fill('#quota-create input[name="origin"]', 'demo')
    await page.fill('#quota-create input[name="maxObjects"]', '2')
    // A year's window: one that ends between the upload and its count resets the counter.
    await page.fill('#quota-create input[name="windowS"]', String(366 * 86_400))
    await page.click('#quota-create button[type="submit"]')
    await expect
      .poll(() => rowWith(page, 'quota-list', `apiKey:${id}`).textContent(), POLL)
      .toContain('0 of 2')
    const issued = await fetch(`${demo.baseUrl}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        origin: 'demo',
        key: `ui/${id}.txt`,
        contentType: 'text/plain',
        contentLength: 5,
      }),
    })
    expect(issued.status, await issued.clone().text()).toBe(200)
    const upload = (await issued.json()) as { url: string; headers: Record<string, string> }
    const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: 'hello' })
    expect(put.status).toBe(200)
    await page.click('#quota-refresh')
    await expect
      .poll(() => rowWith(page, 'quota-list', `apiKey:${id}`).textContent(), POLL)
      .toContain('1 of 2')
    // Room left: one more upload in this window.
    expect(
      await rowWith(page, 'quota-list', `apiKey:${id}`).locator('td:nth-child(6)').textContent(),
    ).toBe('1')
    await shot(page, '4-quota-used')

    // Revoked: the key's row says since when, and the key no longer signs.
    await rowWith(page, 'key-list', id).getByRole('button', { name: 'Revoke' }).click()
    await expect.poll(() => page.textContent('#status'), POLL).toBe(`Key ${id} revoked.`)
    await expect.poll(() => rowWith(page, 'revocation-list', id).count(), POLL).toBe(1)
    await expect
      .poll(
        async () =>
          (
            await fetch(`${demo.baseUrl}/v1/sign`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify({ origin: 'demo', keys: ['ui/a.txt'] }),
            })
          ).status,
        { timeout: 10_000, interval: 500 },
      )
      .toBe(401)
    await shot(page, '5-revoked')

    // The trail: every write, by whom, on what.
    await page.fill('#audit-filter input[name="key"]', id)
    await page.click('#audit-filter button[type="submit"]')
    const actions = () => page.locator('#audit-list tbody tr td:nth-child(3)').allTextContents()
    // Newest first; the key's refusals after its revocation (auth.refused) are in it too.
    await expect
      .poll(async () => (await actions()).filter((action) => action !== 'auth.refused'), POLL)
      .toEqual(['revocation.create', 'quota.create', 'grant.create', 'key.create'])
    const rows = await page.locator('#audit-list tbody tr').allTextContents()
    for (const row of rows.filter((text) => !text.includes('auth.refused'))) {
      expect(row).toContain('admin:')
    }
    await shot(page, '6-audit')
    expect(problems).toEqual([])
    await page.close()
  })
})
