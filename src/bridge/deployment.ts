// The data plane's configuration as the admin plane needs it (./types.ts): no credential, secret or
// hash crosses; origins by their traits, env keys by id, env grants as the control plane stores
// grants.

import { loadConfig, type Config, type Origin } from '../config'
import type { Env } from '../env'
import { grantJson } from '../config/grants'
import type { Deployment, OriginTraits } from '../schemas/bridge'

function traitsOf(origin: Origin): OriginTraits {
  return {
    name: origin.name,
    type: origin.type,
    keys: origin.keys,
    grantProblems: {
      exact: origin.grantProblem?.({ wildcard: false }) ?? null,
      wildcard: origin.grantProblem?.({ wildcard: true }) ?? null,
    },
    uploads: origin.uploads !== undefined,
  }
}

/** `config` as the admin plane sees it. */
function deploymentOf(config: Config): Deployment {
  return {
    ok: true,
    origins: [...config.origins.values()].map(traitsOf),
    apiKeys: config.apiKeys.map(({ id, label }) => (label === undefined ? { id } : { id, label })),
    grants: config.grants.map(grantJson),
    quotaCounters: config.control?.quotaCounters !== undefined,
    maxBatch: config.maxBatch,
  }
}

/** The deployment of the Worker whose bindings are `env`; its config's problems when invalid. */
export function deploymentOfEnv(env: Env): Deployment {
  const result = loadConfig(env)
  return result.ok ? deploymentOf(result.config) : { ok: false, errors: result.errors }
}
