import { env as workerEnv } from 'cloudflare:workers'
import { createApp } from './app'
import { loadConfig } from './config'
import { logIsolateStart } from './middleware/request-log'
import type { Env } from './env'

const app = createApp()
// Open-typed as the config module reads it (src/env.ts), not as `wrangler types` names it.
const env: Env = { ...workerEnv }

// The configuration is parsed once per isolate and cached by its env object (src/config/load.ts).
// Parsed here, that happens while the isolate starts (on Cloudflare, during the TLS handshake before
// the first request), not inside the first request. Each request then goes to the app with this
// same env object: workerd hands a request a copy of it, holding the same bindings, which would
// miss that cache. A configuration that does not parse is kept as its errors, for each request to
// answer 503 with.
// Its outcome is the isolate's first log line (src/middleware/request-log.ts).
logIsolateStart(loadConfig(env))

export default {
  fetch: (request: Request, _env: unknown, ctx: ExecutionContext) => app.fetch(request, env, ctx),
} satisfies ExportedHandler

// The Durable Object classes (wrangler.jsonc "durable_objects"): upload quota counters, and the
// use counters of links with `maxUses`.
export { QuotaCounter } from './control/quota-counter'
export { LinkUses } from './control/link-uses'
// The parts of R2 multipart uploads, which R2's binding cannot list (wrangler.jsonc, docs/r2.md).
export { UploadParts } from './origins/r2/parts'

// What the admin Worker asks the data plane, over a service binding (never HTTP): src/bridge/.
export { DataPlane } from './bridge'

export type { WaybillApi } from './app'
