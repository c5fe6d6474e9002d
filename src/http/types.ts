import type { Principal } from '../auth/principal'
import type { Config } from '../config'
import type { Env } from '../config/env'

/** What the request log line says about a request; routes fill in what they know. */
export interface LogFields {
  principal?: string
  origin?: string
  action?: string
  items?: number
}

/** Hono's environment for every route: bindings, and what middleware puts on the context. */
export interface AppEnv {
  Bindings: Env
  Variables: {
    config: Config
    principal: Principal
    log: LogFields
  }
}
