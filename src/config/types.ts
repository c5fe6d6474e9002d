import type { JwkSet } from '../core/jwt/types'
import type { TokenSecret } from '../core/token'
import type { FieldError } from '../errors'
import type { Origin } from '../origins/types'
import type { GrantSubject } from '../principal/subjects'
import type { NotifyConfig } from './notify'
import type { CorsConfig } from '../schemas/cors'

export type { Origin } from '../origins/types'
export type { GrantSubject } from '../principal/subjects'

export interface ApiKey {
  readonly id: string
  readonly label?: string | undefined
  /** SHA-256 of the key, 32 bytes. The raw key is never stored. */
  readonly sha256: Uint8Array
}

export interface JwtConfig {
  readonly issuer: string
  readonly audience: readonly string[]
  /** Accepted `alg` values; asymmetric ones need `jwksUrl` or `jwks`, HS256 needs the secret. */
  readonly algorithms: readonly string[]
  readonly clockToleranceS: number
  readonly jwksUrl?: string | undefined
  readonly jwks?: JwkSet | undefined
  readonly hs256Secret?: Uint8Array | undefined
  /** Claim holding the caller's roles (a string or an array of strings). */
  readonly rolesClaim: string
  /** Cookie that may carry the token on `GET /v1/redirect/…` only. */
  readonly cookie?: string | undefined
}

export interface AccessConfig {
  /** `https://<team>.cloudflareaccess.com` */
  readonly teamDomain: string
  /** The Access application's AUD tag. */
  readonly aud: string
  readonly clockToleranceS: number
  /** Verified Access emails that hold the admin role: they may call the admin API (/admin/v1). */
  readonly admins: ReadonlySet<string>
}

/** `debug`: may see the canonical request and string to sign behind URLs (never a key). */
export type Action = 'read' | 'write' | 'delete' | 'list' | 'debug'

export interface Grant {
  readonly subject: GrantSubject
  readonly origin: string
  /** Key prefix, possibly with `{claim}` placeholders; `''` for the whole origin. */
  readonly prefix: string
  readonly actions: ReadonlySet<Action>
  readonly maxExpiresIn: number
  /** How long a signed link to an object may work (default: maxExpiresIn). */
  readonly maxLinkExpiresIn: number
  readonly maxBatch: number
  /**
   * For `write`: allowed content types, exact (`image/svg+xml`) or a family (`image/*`, its passive
   * types only: src/core/media-type.ts), or undefined for any.
   */
  readonly contentTypes?: readonly string[] | undefined
  /** For `write`: largest object in bytes, or undefined for S3's own limit. */
  readonly maxContentLength?: number | undefined
  /**
   * For `read`: the types a `response.contentType` override may set, exact or a family (its
   * passive types only); undefined for any passive type. Anything else only when named exactly.
   */
  readonly responseContentTypes?: readonly string[] | undefined
  /** For CloudFront: may the caller get wildcard policies and cookies under the prefix. */
  readonly wildcard: boolean
  /**
   * For `write`: where an upload sent with a `filename` goes, such as `users/{sub}/{uuid}-{filename}`
   * (`{uuid}` a fresh UUID, `{filename}` the sanitized name, other placeholders as in `prefix`).
   */
  readonly uploadKey?: string | undefined
  /** For `write`: delete an object whose completion check finds it is not what was signed. */
  readonly deleteMismatched: boolean
  /**
   * For `write`: may an artifact replace an existing object. Without it, upload URLs sign
   * `If-None-Match: *` and artifacts that cannot refuse to replace (POST forms, bare PUT URLs from
   * `/v1/sign`) are not covered.
   */
  readonly overwrite: boolean
}

/**
 * An upload quota (the control plane's, in D1): at most `maxObjects` uploads and `maxBytes` bytes
 * per `windowS` seconds, for each caller `subject` matches, on `origin`.
 */
export interface Quota {
  readonly id: string
  readonly subject: GrantSubject
  readonly origin: string
  readonly maxObjects?: number | undefined
  readonly maxBytes?: number | undefined
  readonly windowS: number
}

/** The control plane's bindings: present when WAYBILL_DB is bound. */
export interface ControlConfig {
  /** Keys (hashes), grants, revocations, quota settings and usage. */
  readonly db: D1Database
  /** One quota counter per quota and caller; without it, no quota can be enforced. */
  // Untyped here: config sits below the control plane, whose QuotaCounter class types the calls
  // (src/services/quotas.ts gives the namespace that type where it makes a stub).
  readonly quotaCounters?: DurableObjectNamespace | undefined
}

/** Where audit events go: an Analytics Engine dataset and/or a Queue; neither, nowhere. */
export interface AuditConfig {
  readonly dataset?: Pick<AnalyticsEngineDataset, 'writeDataPoint'> | undefined
  readonly queue?: Pick<Queue, 'send'> | undefined
}

export interface Config {
  readonly origins: ReadonlyMap<string, Origin>
  /** Upload notifications: a signed webhook and/or a Queue; neither set, none sent. */
  readonly notify: NotifyConfig
  readonly apiKeys: readonly ApiKey[]
  readonly jwt?: JwtConfig | undefined
  readonly access?: AccessConfig | undefined
  readonly grants: readonly Grant[]
  readonly cors?: CorsConfig | undefined
  readonly maxBatch: number
  readonly defaultExpiresIn: number
  /** RSA signatures (canned CloudFront URLs) one request may cost. */
  readonly maxRsaSignatures: number
  /** Which requests get a log line: every one, or those answered with 400 and above. */
  readonly requestLog: 'all' | 'errors'
  /** What seals tokens (links, upload handles and receipts, cursors): the first seals, all open. */
  readonly tokenSecrets: readonly TokenSecret[]
  readonly linkRevocations: readonly LinkRevocation[]
  /**
   * The use counters of links with `maxUses`, one per link; without them no such link can be
   * issued, or followed. Untyped here, as `ControlConfig.quotaCounters` is: src/services/links.ts
   * gives the namespace its class (src/control/link-uses.ts) where it makes a stub.
   */
  readonly linkUses?: DurableObjectNamespace | undefined
  /** The control plane (D1, Durable Objects), when bound. */
  readonly control?: ControlConfig | undefined
  /** Audit event sinks. */
  readonly audit: AuditConfig
  /**
   * The upload quotas that apply to the request's caller: none in the env's own config; the
   * control plane's, once the caller is known (src/control/plane.ts adds them with its grants).
   */
  readonly quotas: readonly Quota[]
}

/** Links issued before `issuedBefore` (ms), on `origin` and by `principal` when given, are refused. */
export interface LinkRevocation {
  readonly issuedBefore: number
  readonly origin?: string | undefined
  /** As the request log names a caller: `jwt:alice`, `apiKey:web`, `access:…`. */
  readonly principal?: string | undefined
}

export type ConfigResult =
  | { readonly ok: true; readonly config: Config }
  | { readonly ok: false; readonly errors: readonly FieldError[] }
