// The admin API never shares the callers' CORS, in a real Chromium against `wrangler dev`: a page
// on an app origin that WAYBILL_CORS allows (with credentials) may call /v1, but the admin API is
// not on the callers' Worker at all, and its own Worker (which takes the Access cookie) answers no
// CORS, so the page can never read its answers.

import { createServer, type Server } from 'node:http'
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
let app: Server

beforeAll(async () => {
  // The app's page, served on its origin from a loopback address: a page Chromium got from
  // nowhere (route.fulfill) would count as public, and be refused the loopback Worker outright.
  app = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end('<!doctype html><title>app</title>')
  })
  const { hostname, port } = new URL(demo.appOrigin)
  await new Promise<void>((resolve) => app.listen(Number(port), hostname, resolve))
  browser = await chromium.launch({ executablePath: demo.chromiumPath, args: CHROMIUM_ARGS })
})
afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => app?.close(resolve))
})

describe('CORS on the admin API', () => {
  it('a page on an allowed app origin passes CORS on /v1, and fails it on /admin/v1 on either host', async () => {
    const page = await browser.newPage()
    await page.goto(`${demo.appOrigin}/`)
    const answers = await page.evaluate(
      async ({ baseUrl, adminUrl, appApiKey }) => {
        const outcome = (call: Promise<Response>) =>
          call.then(
            (response) => `${response.status}`,
            (error: unknown) => (error instanceof TypeError ? 'TypeError' : String(error)),
          )
        return {
          sign: await outcome(
            fetch(`${baseUrl}/v1/sign`, {
              method: 'POST',
              headers: { authorization: `Bearer ${appApiKey}`, 'content-type': 'application/json' },
              body: JSON.stringify({ origin: 'demo', keys: ['app/cors.txt'] }),
              credentials: 'include',
            }),
          ),
          // Not on the callers' Worker: its 404 may carry the callers' CORS, never an admin answer.
          callersHost: await outcome(fetch(`${baseUrl}/admin/v1/keys`, { credentials: 'include' })),
          admin: await outcome(
            fetch(`${adminUrl}/admin/v1/keys`, {
              headers: { authorization: 'Bearer x' },
              credentials: 'include',
            }),
          ),
        }
      },
      { baseUrl: demo.baseUrl, adminUrl: demo.adminUrl, appApiKey: demo.appApiKey },
    )
    expect(answers).toEqual({ sign: '200', callersHost: 'TypeError', admin: 'TypeError' })
    await page.close()

    // The preflight the browser sent, as the admin Worker answers it: no CORS header at all.
    const preflight = await fetch(`${demo.adminUrl}/admin/v1/keys`, {
      method: 'OPTIONS',
      headers: {
        origin: demo.appOrigin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    })
    await preflight.body?.cancel()
    const cors: string[] = []
    preflight.headers.forEach((_, name) => {
      if (name.startsWith('access-control-')) cors.push(name)
    })
    expect(cors).toEqual([])
  })
})
