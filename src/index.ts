import { createApp } from './app'

export default createApp()

// The upload quota counters' Durable Object class (wrangler.jsonc "durable_objects").
export { QuotaCounter } from './control/quota-counter'
// The parts of R2 multipart uploads, which R2's binding cannot list (wrangler.jsonc, README).
export { UploadParts } from './origins/r2/parts'

export type { WaybillApi } from './app'
