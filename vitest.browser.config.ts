// The browser test: Node-side vitest (not the workers pool) driving Debian's Chromium through
// playwright-core against `wrangler dev` and versitygw, which its own global setup starts.
//
//   vitest run -c vitest.browser.config.ts
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['./test/browser/global-setup.ts'],
    // One browser, one wrangler dev: files run one after another.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    // Console output only for tests that fail.
    silent: 'passed-only',
  },
})
