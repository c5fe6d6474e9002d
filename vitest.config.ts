// Five projects; `vitest run` (npm test) runs them all, `vitest run --project <name>` one.
//
// - unit: inside workerd, no servers. Route tests call createApp() with their own env. Runs in
//   seconds: `npm run test:unit`.
// - e2e: inside workerd, after test/global-setup.ts has started versitygw, a webhook receiver and
//   a node:crypto service. The Worker under test gets an origin on that versitygw.
// - node: in Node, without servers: the client package as an app installs it, the scripts.
// - browser: in Node, driving Chromium against `wrangler dev` and versitygw, which
//   test/browser/global-setup.ts starts; after the other two, so they never compete for the CPU.
// - schemathesis: in Node, Schemathesis (from PyPI, installed into .tools/ on first run) against
//   its own `wrangler dev` and versitygw (test/schemathesis/); last.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin'
import { configDefaults, defineConfig } from 'vitest/config'
import ts from 'typescript'
import { makeTestKeys } from './test/helpers/crypto-service.ts'
import { outbound } from './test/helpers/outbound.ts'
import type { S3TestServer, TestApiKey } from './test/helpers/provided-context.ts'

/**
 * Tests that need test/global-setup.ts: the Worker's own bindings (versitygw, its API key), the
 * webhook receiver, or the node:crypto service that checks CloudFront signatures outside workerd.
 */
const NEEDS_SERVERS = [
  'test/e2e/**/*.test.ts',
  'test/origins/**/*.test.ts',
  'test/security/**/*.test.ts',
  'test/leaks.test.ts',
  'test/routes/bad-input.test.ts',
  'test/middleware/json-body.test.ts',
  'test/core/cloudfront/*.test.ts',
  'test/routes/cloudfront.test.ts',
]

/**
 * Node-side tests that need neither workerd nor a browser: the client package as an app installs
 * it, and the scripts behind `npm start`.
 */
const NODE_TESTS = 'test/**/*.node.test.ts'

// PEM keys for this run, in every form the tests need (never committed): made here, in Node,
// since Web Crypto exports no PKCS#1 or SEC1.
const testKeys = makeTestKeys()

// What the e2e Worker seals tokens with: made for this run.
const TOKEN_SECRET = randomBytes(32).toString('base64url')

// The control plane's schema (migrations/), applied to the local D1 by test/apply-migrations.ts.
const migrations = await readD1Migrations('migrations')

// Every answer an app gives in these tests is checked against docs/openapi.json.
const workerd = {
  testTimeout: 30_000,
  provide: { testKeys },
  setupFiles: ['./test/apply-migrations.ts', './test/contract/setup.ts'],
}

// What wrangler.jsonc's "alias" swaps in the deploy bundle (build/) and its "define" sets (DOCS:
// src/docs.d.ts), so that the e2e project's Worker is the one that ships. Not the unit project's:
// it checks the OpenAPI document, which needs the real generator and the descriptions.
// (TypeScript's reader takes JSON with comments and trailing commas.)
const wrangler = ts.parseConfigFileTextToJson(
  'wrangler.jsonc',
  readFileSync('wrangler.jsonc', 'utf8'),
) as { config: { alias: Record<string, string>; define: Record<string, string> } }
const shipped = Object.entries(wrangler.config.alias).map(([find, replacement]) => ({
  find,
  replacement: resolve(replacement),
}))

export default defineConfig({
  test: {
    // Console output (request log lines, fuzz seeds) only for tests that fail.
    silent: 'passed-only',
    // The browser project's global setup stops wrangler dev and versitygw.
    teardownTimeout: 30_000,
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: './wrangler.jsonc' },
            miniflare: { bindings: { TEST_MIGRATIONS: migrations } },
          }),
        ],
        // The build that carries the descriptions (src/docs.d.ts), as the document's generator.
        define: { DOCS: 'true' },
        test: {
          ...workerd,
          name: 'unit',
          // The files share one module graph per worker, a third of the time: they keep no state
          // between them (they pass in any order: --sequence.shuffle.files).
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: [
            ...configDefaults.exclude,
            'test/browser/**',
            'test/schemathesis/**',
            NODE_TESTS,
            ...NEEDS_SERVERS,
          ],
        },
      },
      {
        plugins: [
          cloudflareTest(({ inject }) => {
            const s3 = inject<S3TestServer>('s3')
            const apiKey = inject<TestApiKey>('apiKey')
            return {
              wrangler: { configPath: './wrangler.jsonc' },
              miniflare: {
                // Reaches bucket-in-host URLs (e2e.localhost:<port>) on machines where *.localhost
                // does not resolve.
                outboundService: outbound,
                // A database no migration was applied to: readiness before and after migrating
                // (test/e2e/readiness.test.ts).
                d1Databases: ['TEST_BLANK_DB'],
                // The Worker under test (`exports.default`) gets an origin on the versitygw the
                // global setup started, in both addressing styles, and one API key for it.
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  WAYBILL_ORIGINS: JSON.stringify({
                    e2e: {
                      type: 's3',
                      bucket: s3.bucket,
                      region: 'us-east-1',
                      endpoint: s3.endpoint,
                      style: 'path',
                      credentials: 'E2E',
                      // The suite signs every key S3 accepts, including ones the safe policy refuses.
                      keys: 'any',
                    },
                    'e2e-virtual': {
                      type: 's3',
                      bucket: s3.bucket,
                      region: 'us-east-1',
                      endpoint: `http://localhost:${s3.port}`,
                      style: 'virtual',
                      credentials: 'E2E',
                      keys: 'any',
                    },
                  }),
                  E2E_ACCESS_KEY_ID: s3.accessKeyId,
                  E2E_SECRET_ACCESS_KEY: s3.secretAccessKey,
                  WAYBILL_API_KEYS: JSON.stringify([{ id: 'e2e', sha256: apiKey.sha256 }]),
                  // Made per run: it seals links, upload handles and receipts, cursors.
                  WAYBILL_TOKEN_SECRETS: JSON.stringify([{ id: 'e2e', secret: TOKEN_SECRET }]),
                  WAYBILL_GRANTS: JSON.stringify(
                    ['e2e', 'e2e-virtual'].map((origin) => ({
                      to: 'apiKey:e2e',
                      origin,
                      actions: ['read', 'write', 'delete', 'list'],
                      // The suite's PUT URLs from /v1/sign replace objects; tests of the default
                      // (no overwrite) use grants of their own.
                      overwrite: true,
                    })),
                  ),
                },
              },
            }
          }),
        ],
        resolve: { alias: shipped },
        define: wrangler.config.define,
        test: {
          ...workerd,
          name: 'e2e',
          // As unit: one module graph per worker, about two thirds of the time (the files keep no
          // state between them; they pass in any order: --sequence.shuffle.files).
          isolate: false,
          globalSetup: ['./test/global-setup.ts'],
          include: NEEDS_SERVERS,
          exclude: [...configDefaults.exclude, NODE_TESTS],
        },
      },
      {
        define: { DOCS: 'true' },
        test: {
          name: 'node',
          include: [NODE_TESTS],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['./test/browser/global-setup.ts'],
          // After unit and e2e (group 0).
          sequence: { groupOrder: 1 },
          // One browser, one wrangler dev: files run one after another.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'schemathesis',
          include: ['test/schemathesis/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['./test/schemathesis/global-setup.ts'],
          // Last, after the browser project: its own wrangler dev and versitygw, and the CPU.
          sequence: { groupOrder: 2 },
          testTimeout: 600_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
