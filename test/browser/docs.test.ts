// GET /docs in a real Chromium: the API reference page loads Scalar from the Worker's own assets
// (no CDN: this machine has no network), reads /openapi.json and lists every operation.

import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

const demo = inject('browserDemo')
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

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: demo.chromiumPath, args: CHROMIUM_ARGS })
})
afterAll(async () => {
  await browser.close()
})

describe('GET /docs', () => {
  it('renders the reference and lists every operation of /openapi.json', async () => {
    const document = (await (await fetch(`${demo.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { summary: string }>>
    }
    const summaries = Object.values(document.paths).flatMap((operations) =>
      Object.values(operations).map((operation) => operation.summary),
    )
    expect(summaries.length).toBeGreaterThanOrEqual(11)

    const page = await browser.newPage()
    const failed: string[] = []
    page.on('requestfailed', (request) => failed.push(request.url()))
    const loaded: string[] = []
    page.on('response', (response) => loaded.push(`${response.status()} ${response.url()}`))
    const served = await page.goto(`${demo.baseUrl}/docs`)
    // A static asset with its own policy (public/_headers): no inline script runs on it.
    expect(served?.headers()['content-security-policy']).toContain("script-src 'self';")
    // Scalar renders each operation's summary once it has read the document.
    for (const summary of summaries) {
      await expect
        .poll(() => page.getByText(summary, { exact: true }).count(), { timeout: 30_000 })
        .toBeGreaterThan(0)
    }
    // No chrome pointing at Scalar's outside services, although this page is on a loopback address
    // (where Scalar shows it unless configured not to).
    for (const chrome of ['Ask AI', 'Generate MCP', 'Deploy']) {
      expect(await page.getByText(chrome, { exact: true }).count(), chrome).toBe(0)
    }
    expect(loaded).toContain(`200 ${demo.baseUrl}/vendor/scalar-api-reference.js`)
    expect(loaded).toContain(`200 ${demo.baseUrl}/openapi.json`)
    // Everything the page needed came from this Worker.
    expect(failed.filter((url) => url.startsWith(demo.baseUrl))).toEqual([])
    await page.close()
  })
})
