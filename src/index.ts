import { createApp } from './app'

export default createApp()

// The upload quota counters' Durable Object class (wrangler.jsonc "durable_objects").
export { QuotaCounter } from './control/quota-counter'

export type { WaybillApi } from './app'
