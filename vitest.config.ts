import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { configDefaults, defineConfig } from 'vitest/config'
import { outbound } from './test/outbound.ts'
import type { S3TestServer, TestApiKey } from './test/provided-context.ts'

export default defineConfig({
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
          // The Worker under test (`exports.default`) gets an origin on the versitygw the global
          // setup started, in both addressing styles, and one API key for it.
          bindings: {
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
            WAYBILL_GRANTS: JSON.stringify(
              ['e2e', 'e2e-virtual'].map((origin) => ({
                to: 'apiKey:e2e',
                origin,
                actions: ['read', 'write', 'delete', 'list'],
              })),
            ),
          },
        },
      }
    }),
  ],
  test: {
    globalSetup: ['./test/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    // Node-side browser tests have their own config (vitest.browser.config.ts).
    exclude: [...configDefaults.exclude, 'test/browser/**'],
    testTimeout: 30_000,
    // Console output (request log lines, fuzz seeds) only for tests that fail.
    silent: 'passed-only',
  },
})
