import { createApp } from './app'

export default createApp()

// The Durable Object classes (wrangler.jsonc "durable_objects"): upload quota counters, and the
// use counters of links with `maxUses`.
export { QuotaCounter } from './control/quota-counter'
export { LinkUses } from './control/link-uses'
// The parts of R2 multipart uploads, which R2's binding cannot list (wrangler.jsonc, README).
export { UploadParts } from './origins/r2/parts'

// What the admin Worker asks the data plane, over a service binding (never HTTP): src/bridge/.
export { DataPlane } from './bridge'

export type { WaybillApi } from './app'
