// The data plane's entrypoint for the admin plane: a named entrypoint of the data-plane Worker,
// reached only through a service binding (the admin Worker's WAYBILL_DATA_PLANE), never over HTTP.
// Its methods answer from the data plane's own configuration and control plane, as its requests
// are answered.

import { WorkerEntrypoint } from 'cloudflare:workers'
import { loadConfig } from '../config'
import type { Env } from '../env'
import { ControlPlane, type Defer } from '../control/plane'
import { deploymentOfEnv } from './deployment'
import { explain } from './explain'
import type { DataPlaneBridge, Deployment, Explained, ExplainInput } from '../schemas/bridge'

/** The control plane's caches for explain: per isolate, as the app's are. */
const control = new ControlPlane()

/**
 * The bridge over `env`: what the entrypoint answers, for a caller in the same Worker (tests give
 * the admin app this, where a deployment gives it the service binding). `defer` runs work after
 * the answer (the entrypoint's waitUntil).
 *
 * @example
 * const deployment = await bridgeOf(env).deployment()
 */
export function bridgeOf(env: Env, defer: Defer = (work) => void work): DataPlaneBridge {
  return {
    deployment: () => Promise.resolve(deploymentOfEnv(env)),
    explain: (input) => {
      const result = loadConfig(env)
      if (!result.ok) return Promise.resolve({ ok: false, errors: result.errors })
      return explain(result.config, control, input, new Date(), defer)
    },
  }
}

/** `WAYBILL_DATA_PLANE` in wrangler.admin.jsonc: `{ "service": "waybill", "entrypoint": "DataPlane" }`. */
export class DataPlane extends WorkerEntrypoint<Env> implements DataPlaneBridge {
  deployment(): Promise<Deployment> {
    return bridgeOf(this.env).deployment()
  }

  explain(input: ExplainInput): Promise<Explained> {
    return bridgeOf(this.env, (work) => this.ctx.waitUntil(work)).explain(input)
  }
}
