// Runs in Node before the browser test: makes sure Chromium is there, starts versitygw with fresh
// credentials and two buckets ("demo" with the browser-upload CORS rules for the page's origin
// and an app's, "plain" with none), and `wrangler dev` on a free port whose "demo" origin (and
// "nopost", the same bucket without POST uploads) points at that versitygw, with three API keys
// and their grants, and the admin plane's `wrangler dev` on another port with an admin token,
// sharing its local state, then hands the details to the tests.
//
// The Worker gets what `npm start -- --app-origin <app>` gives it (scripts/dev.mjs: WAYBILL_CORS
// for the app, signed links on), with this run's origins, keys and grants in the place of
// .dev.vars, and the bucket npm start's CORS rules: the example app (test/browser/example.test.ts)
// runs on its own origin against those settings.

import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { applyBucketCors } from '../../scripts/bucket-cors.mjs'
import { bucketOrigins, envFileText, workerVars } from '../../scripts/dev.mjs'
import { ensureChromium } from '../../scripts/chromium.mjs'
import { portBelowEphemeral, startVersitygw } from '../../scripts/versitygw.mjs'
import { startWranglerDev } from '../../scripts/wrangler-dev.mjs'
import { buildVendorAssets } from '../../scripts/docs-assets.mjs'

export interface BrowserDemoContext {
  /** The Worker's origin, which is also the demo page's origin: http://127.0.0.1:<port>. */
  baseUrl: string
  /** The admin Worker's origin (the admin UI, the admin API under /admin/v1). */
  adminUrl: string
  /** An admin token for the admin Worker (WAYBILL_ADMIN_TOKENS). */
  adminToken: string
  /**
   * Key "demo": everything on the "demo" origin (its uploadKey names uploads sent with a file
   * name `uploads/demo/<uuid>-<name>`), reading and writing on "nopost"; everything but debug
   * on "demo-r2" (R2 through the Worker's binding), with the same uploadKey.
   */
  apiKey: string
  /** Key "limited": images of at most 1 MiB under `limited/` on "demo", written only. */
  limitedApiKey: string
  /**
   * An app's own origin (http://127.0.0.1:<port>, the port free for it to listen on), which
   * WAYBILL_CORS and the bucket's CORS rules allow, as `npm start -- --app-origin` does.
   */
  appOrigin: string
  /**
   * The origins of the Vite apps (examples/vite-react, examples/vite-vue), allowed as `appOrigin`
   * is: each port free for `vite preview` to listen on.
   */
  viteOrigins: { react: string; vue: string }
  /** The one page origin the "demo-r2" origin's CORS setting allows (a port free to listen on). */
  r2PageOrigin: string
  /** Key "vite": as "app", under `vite/`, for the Vite apps (what they store is apart). */
  viteApiKey: string
  /**
   * Key "app": reads, lists and writes under `app/` on "demo" images, text and binary files,
   * nothing else (so an HTML page is refused).
   */
  appApiKey: string
  chromiumPath: string
  s3: {
    endpoint: string
    region: string
    accessKeyId: string
    secretAccessKey: string
    /** Has the browser-upload CORS rules for `baseUrl`; the Worker's "demo" origin. */
    bucket: string
    /** Has no CORS configuration until a test applies one. */
    plainBucket: string
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    browserDemo: BrowserDemoContext
  }
}

export default async function setup(project: TestProject) {
  const chromiumPath = ensureChromium()
  const stops: Array<() => Promise<void> | void> = []
  const teardown = async () => {
    for (const stop of stops.reverse()) await stop()
  }
  try {
    const tmp = mkdtempSync(join(tmpdir(), 'waybill-browser-'))
    stops.push(() => rmSync(tmp, { recursive: true, force: true }))

    const region = 'us-east-1'
    const accessKeyId = `BROWSER${randomBytes(8).toString('hex').toUpperCase()}`
    const secretAccessKey = randomBytes(30).toString('base64url')
    const bucket = 'demo'
    const plainBucket = 'plain'
    const s3 = await startVersitygw({
      dataDir: join(tmp, 's3'),
      accessKeyId,
      secretAccessKey,
      region,
      buckets: [bucket, plainBucket],
    })
    stops.push(s3.stop)

    const port = await portBelowEphemeral()
    const baseUrl = `http://127.0.0.1:${port}`
    const adminPort = await portBelowEphemeral()
    const adminUrl = `http://127.0.0.1:${adminPort}`
    const adminToken = `wba_browser_${randomBytes(24).toString('base64url')}`
    // The pages' origins are named in the Worker's CORS setting now and served by the test files
    // later: below the ephemeral range, no other process's socket takes one in between (a vite
    // preview once found its port held, and its file failed).
    const appOrigin = `http://127.0.0.1:${await portBelowEphemeral()}`
    const viteOrigins = {
      react: `http://127.0.0.1:${await portBelowEphemeral()}`,
      vue: `http://127.0.0.1:${await portBelowEphemeral()}`,
    }
    const appOrigins = [appOrigin, viteOrigins.react, viteOrigins.vue]
    // The page the R2 origin's CORS setting allows (test/browser/r2.test.ts serves it).
    const r2PageOrigin = `http://127.0.0.1:${await portBelowEphemeral()}`
    await applyBucketCors({
      endpoint: s3.endpoint,
      bucket,
      region,
      accessKeyId,
      secretAccessKey,
      allowedOrigins: bucketOrigins(port, appOrigins),
    })

    const apiKey = `wb_browser_${randomBytes(24).toString('base64url')}`
    const limitedApiKey = `wb_browser_${randomBytes(24).toString('base64url')}`
    const appApiKey = `wb_browser_${randomBytes(24).toString('base64url')}`
    const viteApiKey = `wb_browser_${randomBytes(24).toString('base64url')}`
    const sha256 = (key: string) => createHash('sha256').update(key).digest('hex')
    // wrangler dev lets --env-file values replace the `vars` of wrangler.jsonc, so this points the
    // "demo" origin at this run's versitygw instead of the fixed 127.0.0.1:7070 of `npm start`.
    const demoOrigin = {
      type: 's3',
      bucket,
      region,
      endpoint: s3.endpoint,
      style: 'path',
      credentials: 'DEMO',
    }
    // "nopost": the same bucket as a store without browser POST uploads (as R2 is).
    // "demo-r2": wrangler.jsonc's local R2 bucket, through the Worker's binding, as npm start has.
    const origins = {
      demo: demoOrigin,
      nopost: { ...demoOrigin, postPolicy: false },
      // The R2 test's page, and the example app (test/browser/example.test.ts), which also runs
      // against this origin.
      'demo-r2': { type: 'r2', binding: 'DEMO_R2', cors: { origins: [r2PageOrigin, appOrigin] } },
    }
    const grants = [
      {
        to: 'apiKey:demo',
        origin: 'demo',
        actions: ['read', 'write', 'delete', 'list', 'debug'],
        uploadKey: 'uploads/{apiKey}/{uuid}-{filename}',
        // The demo page's POST forms cannot refuse to replace an object.
        overwrite: true,
      },
      {
        to: 'apiKey:demo',
        origin: 'demo-r2',
        actions: ['read', 'write', 'delete', 'list'],
        uploadKey: 'uploads/{apiKey}/{uuid}-{filename}',
        overwrite: true,
      },
      // Overwrite: the client's POST forms (which need it) fall back to PUTs there.
      { to: 'apiKey:demo', origin: 'nopost', actions: ['read', 'write'], overwrite: true },
      {
        to: 'apiKey:limited',
        origin: 'demo',
        prefix: 'limited/',
        actions: ['write'],
        contentTypes: ['image/*'],
        maxContentLength: 1024 * 1024,
      },
      {
        to: 'apiKey:app',
        origin: 'demo',
        prefix: 'app/',
        actions: ['read', 'write', 'list'],
        contentTypes: ['image/*', 'text/plain', 'application/octet-stream'],
      },
      {
        to: 'apiKey:app',
        origin: 'demo-r2',
        prefix: 'app/',
        actions: ['read', 'write', 'list'],
        contentTypes: ['image/*', 'text/plain', 'application/octet-stream'],
      },
      {
        to: 'apiKey:vite',
        origin: 'demo',
        prefix: 'vite/',
        actions: ['read', 'write', 'list'],
        contentTypes: ['image/*', 'text/plain', 'application/octet-stream'],
      },
    ]
    const apiKeys = [
      { id: 'demo', sha256: sha256(apiKey), label: 'browser test' },
      { id: 'limited', sha256: sha256(limitedApiKey), label: 'browser test, limited' },
      { id: 'app', sha256: sha256(appApiKey), label: 'browser test, an app' },
      { id: 'vite', sha256: sha256(viteApiKey), label: 'browser test, the Vite apps' },
    ]
    // What npm start gives the Worker for this app, this run's values in the place of .dev.vars
    // (its origins too: wrangler.jsonc's, which npm start points at its own versitygw, are not
    // needed).
    const worker = workerVars({
      wranglerVars: {},
      devVars: {
        DEMO_ACCESS_KEY_ID: accessKeyId,
        DEMO_SECRET_ACCESS_KEY: secretAccessKey,
        WAYBILL_API_KEYS: JSON.stringify(apiKeys),
        WAYBILL_ORIGINS: JSON.stringify(origins),
        WAYBILL_GRANTS: JSON.stringify(grants),
        // A page load sends several requests at once; wrangler dev 4.124 can drop its proxy
        // connection when each of them logs (cloudflare/workers-sdk#15451), so log failures only.
        WAYBILL_REQUEST_LOG: 'errors',
        // Credentialed, as for an app whose users sign in with a cookie: the app's origin is
        // then as close to the admin API as CORS can bring it (test/browser/admin-cors.test.ts).
        WAYBILL_CORS: JSON.stringify({ origins: [appOrigin], credentials: true }),
      },
      s3Endpoint: s3.endpoint,
      // npm start's admin token, for the admin UI's test (the page's keys above come as .dev.vars's
      // would).
      adminTokenSha256: sha256(adminToken),
      // Generated per run: it seals links, upload handles and receipts, listing cursors.
      tokenSecrets: [{ id: 'browser', secret: randomBytes(32).toString('base64url') }],
      appOrigins,
    })
    // GET /docs loads Scalar's bundle, the demo page the client's, the admin UI its own, from the
    // Workers' assets.
    await buildVendorAssets()
    // Both Workers on one local state (D1, Durable Objects), as npm start runs them.
    const persistTo = join(tmp, 'state')
    for (const [config, vars, workerPort] of [
      ['wrangler.jsonc', worker.vars, port],
      ['wrangler.admin.jsonc', worker.adminVars, adminPort],
    ] as const) {
      const envFile = join(tmp, `${config}.vars`)
      writeFileSync(envFile, envFileText(vars), { mode: 0o600 })
      const wrangler = await startWranglerDev({
        name: config,
        port: workerPort,
        envFile,
        config,
        persistTo,
        // npm start may hold wrangler's default inspector port.
        inspectorPort: await portBelowEphemeral(),
        quiet: process.env.WAYBILL_TEST_VERBOSE !== '1',
      })
      stops.push(wrangler.stop)
    }

    project.provide('browserDemo', {
      baseUrl,
      adminUrl,
      adminToken,
      apiKey,
      limitedApiKey,
      appOrigin,
      r2PageOrigin,
      viteOrigins,
      viteApiKey,
      appApiKey,
      chromiumPath,
      s3: { endpoint: s3.endpoint, region, accessKeyId, secretAccessKey, bucket, plainBucket },
    })
  } catch (error) {
    await teardown()
    throw error
  }
  return teardown
}
