// Types for `import { env, exports } from 'cloudflare:workers'` in tests.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import('../src/index')
  }
}
