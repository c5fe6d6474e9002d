import { createApp } from './app'

export default createApp()

// The upload quota counters' Durable Object class (wrangler.jsonc "durable_objects").
export { QuotaCounter } from './control/quota-counter'

// What the admin Worker asks the data plane, over a service binding (never HTTP): src/bridge/.
export { DataPlane } from './bridge'

export type { WaybillApi } from './app'
