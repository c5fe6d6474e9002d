import type { MiddlewareHandler } from 'hono'
import type { Principal } from '../principal'
import type { Action, Config } from '../config'
import type { Env } from '../env'
import type { AdminConfig, AdminEnv } from '../config/admin'
import type { AuditEntry } from '../control/admin-store'
import type { Clock } from '../clock'
import type { ControlPlane } from '../control/plane'
import type { LinkUseCount } from '../services/links'

/** What the request log line says about a request; routes fill in what they know. */
export interface LogFields {
  principal?: string
  origin?: string
  action?: Action
  /** Uploads: put, post or multipart. */
  mode?: string
  items?: number
  /** Uploads: bytes signed (declared), or bytes checked complete. */
  bytesReserved?: number
  bytesCompleted?: number
  /** A stored API key refused (revoked, expired, its secret retired): its id, never the key. */
  keyId?: string
  refusal?: 'revoked' | 'expired' | 'retired'
  /** The admin plane: what a write did (`key.create`), and the records it wrote. */
  event?: string
  target?: string
}

/** What every route factory is given by the app. */
export interface RouteDeps {
  /** Signing and token-checking time. */
  readonly clock: Clock
  /** The control plane's per-isolate caches (D1 keys, grants, quotas, link revocations). */
  readonly control: ControlPlane
  /** Authentication (Bearer, Access) and the rate limit: what every signing route runs first. */
  readonly authenticated: MiddlewareHandler<AppEnv>
  /** The same, also accepting the JWT cookie: for links a browser follows (redirects). */
  readonly authenticatedByCookie: MiddlewareHandler<AppEnv>
}

/** The request's id (src/middleware/request-log.ts): `cf-ray`, or a UUID. */
export interface RequestIdVariables {
  requestId: string
}

/** Hono's environment for every route: bindings, and what middleware puts on the context. */
export interface AppEnv {
  Bindings: Env
  Variables: RequestIdVariables & {
    config: Config
    principal: Principal
    /** The request's time as authentication read it (the audit event's, read once). */
    authenticatedAt: Date
    /** A followed link's issuer, as the link names it (a hash), for the audit trail. */
    linkIssuer: string
    /** A followed link's uses, when it counts them: how many it allows, and how many are left. */
    linkUses: LinkUseCount
    log: LogFields
  }
}

/** What every admin route factory is given by the admin app (src/admin/app.ts). */
export interface AdminRouteDeps {
  /** The time of the admin's writes. */
  readonly clock: Clock
  /** An admin token or an Access admin, never a caller's key (src/auth/admin.ts). */
  readonly adminAuthenticated: MiddlewareHandler<AdminAppEnv>
  /** Idempotency-Key, on every POST (src/routes/admin/idempotency.ts); after authentication. */
  readonly idempotent: MiddlewareHandler<AdminAppEnv>
}

/** Hono's environment for the admin Worker's routes. */
export interface AdminAppEnv {
  Bindings: AdminEnv
  Variables: RequestIdVariables & {
    config: AdminConfig
    /** Who called: `admin:<token id>` or `admin:access:<email>`. */
    admin: string
    /** The audit records of the request's writes (src/routes/admin/index.ts). */
    audited: AuditEntry[]
    log: LogFields
  }
}
