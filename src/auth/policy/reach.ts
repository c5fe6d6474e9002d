// What a signed artifact lets its holder do, before it is signed: a `Reach`, one variant per kind
// of artifact (URLs, a wildcard policy, a listing, an upload, links). `authorize` judges one.

import type { Action, Origin } from '../../config'
import type { FieldError } from '../../errors'
import type { ObjectItem, UrlMethod } from '../../origins/types'

export function actionFor(method: UrlMethod): 'read' | 'write' | 'delete' {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return 'read'
    case 'PUT':
      return 'write'
    case 'DELETE':
      return 'delete'
  }
}

/** Upload limits a signature enforces itself: a signed Content-Type, length, checksum, no-overwrite. */
export interface Content {
  /** The signed Content-Type, canonical (src/core/media-type.ts); absent: the URL signs none. */
  type?: { value: string; path: string } | undefined
  /**
   * The signed length: exactly `exact` bytes, at most `atMost`, or at most the justifying grant's
   * own limit (`'grant'`, resolved into the permit). Absent: unsigned, any size.
   */
  length?: { exact: number } | { atMost: number } | { atMost: 'grant' } | undefined
  /** The request field that sets the length, to name when it is missing or too large. */
  lengthPath?: string | undefined
  /** The signed SHA-256 of the body (base64), when the caller gave one. */
  checksumSha256?: string | undefined
  /**
   * Whether the artifact can replace an existing object: absent or false, it signs
   * `If-None-Match: *`. `path` names what makes it replace one (`overwrite`, or `mode` for a POST
   * form, which cannot refuse to).
   */
  overwrite?: { path: string; unsigned?: boolean } | undefined
}

interface ReachCommon {
  origin: string
  /** Requested lifetime and signing window; undefined: the defaults, within the justifying grant. */
  expiresIn?: number | undefined
  signingWindow?: number | undefined
  /** What the origin's type cannot do; checked once the caller is known to hold a grant there. */
  fits?: ((origin: Origin) => readonly FieldError[]) | undefined
}

/** Entries an artifact carries, against the grants' `maxBatch`. */
export interface Count {
  n: number
  path: string
}

/** Exact keys, each one a target. */
export interface Items {
  items: readonly ObjectItem[]
  /** The field naming item `i`'s key (`keys.3`, `items.3.key`). */
  itemPath: (i: number) => string
  /** The field naming item `i`'s Content-Type override. */
  overridePath?: ((i: number) => string) | undefined
}

/** What a signed artifact lets its holder do, before it is signed: one variant per artifact. */
export type Reach =
  /** Presigned (or canned CloudFront) URLs for exact keys: `/v1/sign`, the redirect. */
  | (ReachCommon & Items & { kind: 'urls'; action: 'read' | 'write' | 'delete' })
  /** The debug view of URLs: its own grant, on the same keys. */
  | (ReachCommon & Items & { kind: 'debug' })
  /** One CloudFront policy for every key under `pattern` (a wildcard batch, or cookies). */
  | (ReachCommon &
      Items & {
        kind: 'wildcard'
        /** Every key under it; the items (none for cookies) are where the URLs point, inside it. */
        pattern: { prefix: string; path: string }
        count?: Count | undefined
      })
  /** A listing of whole prefixes; `limit` entries when the request gives one. */
  | (ReachCommon & {
      kind: 'listing'
      prefixes: readonly { prefix: string; path: string }[]
      limit?: Count | undefined
    })
  /** The URLs of a listing's objects: objects no grant covers are left out, not refused. */
  | (ReachCommon & { kind: 'listed'; items: readonly ObjectItem[] })
  /**
   * One upload: a PUT URL, a POST policy or a multipart upload's parts, for an exact key, or
   * (POST on origins with keys "any") any key under `keyPrefix`.
   */
  | (ReachCommon & {
      kind: 'upload'
      /** `chosen`: the grant's uploadKey chose the key, which the caller never saw. */
      target:
        | { key: string; path: string; chosen?: boolean | undefined }
        | { keyPrefix: string; path: string }
      content: Content
      count?: Count | undefined
    })
  /** Signed links to exact keys: their lifetime is judged against `maxLinkExpiresIn`. */
  | (ReachCommon & Items & { kind: 'links' })

export function actionOf(reach: Reach): Action {
  switch (reach.kind) {
    case 'urls':
      return reach.action
    case 'debug':
      return 'debug'
    case 'wildcard':
    case 'listed':
    case 'links':
      return 'read'
    case 'listing':
      return 'list'
    case 'upload':
      return 'write'
  }
}
