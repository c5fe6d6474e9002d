import type { Principal } from '../auth/principal'
import type { Config } from '../config'
import type { Env } from '../env'

/** Hono's environment for every route: bindings, and what middleware puts on the context. */
export interface AppEnv {
  Bindings: Env
  Variables: {
    config: Config
    principal: Principal
  }
}
