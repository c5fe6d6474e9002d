// The data plane's entrypoint for the admin plane: a named entrypoint of the data-plane Worker,
// reached only through a service binding (the admin Worker's WAYBILL_DATA_PLANE), never over HTTP.
// Its methods answer from the data plane's own configuration, as its requests are answered.

import { WorkerEntrypoint } from 'cloudflare:workers'
import type { Env } from '../config/env'
import { deploymentOfEnv } from './deployment'
import type { DataPlaneBridge, Deployment } from './types'

/**
 * The bridge over `env`: what the entrypoint answers, for a caller in the same Worker (tests give
 * the admin app this, where a deployment gives it the service binding).
 *
 * @example
 * const deployment = await bridgeOf(env).deployment()
 */
export function bridgeOf(env: Env): DataPlaneBridge {
  return {
    deployment: () => Promise.resolve(deploymentOfEnv(env)),
  }
}

/** `WAYBILL_DATA_PLANE` in wrangler.admin.jsonc: `{ "service": "waybill", "entrypoint": "DataPlane" }`. */
export class DataPlane extends WorkerEntrypoint<Env> implements DataPlaneBridge {
  deployment(): Promise<Deployment> {
    return bridgeOf(this.env).deployment()
  }
}
