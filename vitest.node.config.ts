// Node-side tests that need neither workerd nor a browser: the client package as an app installs
// it, and the scripts behind `npm start`. Files end in `.node.test.ts`.
//
//   vitest run -c vitest.node.config.ts
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.node.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Console output only for tests that fail.
    silent: 'passed-only',
  },
})
