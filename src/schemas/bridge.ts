// What the admin plane asks the data plane, over a service binding to its `DataPlane` entrypoint
// (src/bridge/index.ts). The admin Worker holds no origin credentials, token secrets or signing
// keys: what it must know of the deployment's origins, keys and grants, and what a request would
// be answered, it asks the Worker that holds them. Plain data only: it crosses an RPC boundary.

import type { FieldError } from '../errors'
import type { KeyPolicy } from './config'

/**
 * What the admin plane must know of an origin to judge a grant or a quota on it: what its driver
 * says, asked on the data plane (a driver's functions do not cross).
 */
export interface OriginTraits {
  readonly name: string
  /** The type it was configured with: for messages, never for deciding anything. */
  readonly type: string
  readonly keys: KeyPolicy
  /** What the origin's `grantProblem` says of an exact grant, and of a wildcard one. */
  readonly grantProblems: {
    readonly exact: FieldError | null
    readonly wildcard: FieldError | null
  }
  /** Whether it takes uploads (and so can hold a quota). */
  readonly uploads: boolean
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
      /** WAYBILL_MAX_BATCH: what a stored grant without its own `maxBatch` is read with. */
      readonly maxBatch: number
    }
  | { readonly ok: false; readonly errors: readonly FieldError[] }

/** A question for explain: would this caller's request be allowed? */
export interface ExplainInput {
  /** An API key by its id, or the claims a verified JWT or Access token would carry. */
  readonly caller:
    | { readonly key: string }
    | { readonly claims: Readonly<Record<string, unknown>>; readonly via: 'jwt' | 'access' }
  readonly action: 'read' | 'write' | 'delete' | 'list' | 'debug'
  readonly origin: string
  /** The object's key (for `list`, the prefix listed). */
  readonly key: string
  /** `write`: what the upload would declare. */
  readonly contentType?: string | undefined
  readonly contentLength?: number | undefined
  readonly overwrite?: boolean | undefined
  readonly expiresIn?: number | undefined
}

/** What the request would be answered: allowed, or the problem it would get. */
export type Verdict =
  | { readonly allowed: true; readonly status: number }
  | {
      readonly allowed: false
      readonly status: number
      readonly code: string
      readonly detail: string
      readonly errors: readonly FieldError[]
    }

/** Explain's answer, from the data plane's own configuration and code. */
export type Explained =
  | {
      readonly ok: true
      /** The caller as the request log names it, and what its grants may name it by. */
      readonly caller: {
        readonly principal: string
        readonly subjects: readonly string[]
        /** A stored key revoked or past its expiry, or no such key; null when it stands. */
        readonly fallen: 'revoked' | 'expired' | 'unknown' | null
      }
      /** The request explained, as a caller would send it. */
      readonly request: { readonly method: string; readonly path: string; readonly body?: unknown }
      readonly verdict: Verdict
      /** Each grant on the origin that reaches the caller, and what it alone would answer. */
      readonly grants: readonly {
        readonly source: 'env' | 'stored'
        readonly grant: Record<string, unknown>
        readonly verdict: Verdict
      }[]
      /** The quota that counts the caller's uploads on the origin, when one does. */
      readonly quota: {
        readonly id: string
        readonly to: string
        readonly maxObjects: number | null
        readonly maxBytes: number | null
        readonly windowS: number
      } | null
    }
  | { readonly ok: false; readonly errors: readonly FieldError[] }

/** The data plane's answers to the admin plane. */
export interface DataPlaneBridge {
  deployment(): Promise<Deployment>
  explain(input: ExplainInput): Promise<Explained>
}
