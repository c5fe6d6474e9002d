// What the admin plane asks the data plane, over a service binding to its `DataPlane` entrypoint
// (src/bridge/index.ts). The admin Worker holds no origin credentials, token secrets or signing
// keys: what it must know of the deployment's origins, keys and grants, and what a request would
// be answered, it asks the Worker that holds them. Plain data only: it crosses an RPC boundary.

import type { FieldError } from '../errors'
import type { KeyPolicy } from '../config/types'

/** What the admin plane must know of an origin to judge a grant or a quota on it. */
export interface OriginTraits {
  readonly name: string
  readonly type: 's3' | 'cloudfront'
  readonly keys: KeyPolicy
  /** CloudFront: the distribution forwards response-* query strings (false for S3). */
  readonly responseOverrides: boolean
  /** S3: the store accepts POST uploads (false for CloudFront). */
  readonly postPolicy: boolean
}

/** The data plane's configuration as the admin plane needs it, or why it has none. */
export type Deployment =
  | {
      readonly ok: true
      readonly origins: readonly OriginTraits[]
      /** WAYBILL_API_KEYS, by id (never a hash). */
      readonly apiKeys: readonly { readonly id: string; readonly label?: string | undefined }[]
      /** WAYBILL_GRANTS, each as the control plane stores a grant (canonical JSON). */
      readonly grants: readonly Record<string, unknown>[]
      /** Whether the data plane can count quotas (its WAYBILL_QUOTAS is bound). */
      readonly quotaCounters: boolean
    }
  | { readonly ok: false; readonly errors: readonly FieldError[] }

/** The data plane's answers to the admin plane. */
export interface DataPlaneBridge {
  deployment(): Promise<Deployment>
}
