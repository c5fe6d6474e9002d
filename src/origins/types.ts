// What an origin is to everything above src/origins/: a name, a key policy, a signing window, and
// what it can serve, each a capability its driver fills in or leaves out (reads always; wildcard
// policies and cookies, listing, uploads where the store takes them). Code above the drivers asks
// for a capability and never for the origin's type: an origin that lacks one refuses the request
// with the problem its route documents. Adding a store is a driver (a folder here), a line in
// ./index.ts, and a call of test/origins/conformance.ts (docs/adding-an-origin.md).
//
// The vocabulary here is the domain's, not a store's: an object item, upload terms, a part plan.
// Each driver turns it into its store's (S3's PresignItem, signed headers and POST policies,
// CloudFront's policies).

import type * as v from 'valibot'
import type { ResponseOverrides } from '../core/s3/presign'
import type { TokenSecret } from '../core/token'
import type { SigningTime } from '../core/window'
import type { FieldError } from '../errors'
import type { Env } from '../env'
import type { KeyPolicy } from '../schemas/config'

/** The response headers a read URL may set for its object: S3's `response-*` parameters. */
export type { ResponseOverrides }
import type { UploadMode } from '../schemas/fields'

/** One object a URL is signed for: its key, its version, what its answer should say. */
export interface ObjectItem {
  readonly key: string
  readonly versionId?: string | undefined
  readonly response?: ResponseOverrides | undefined
}

/** What a URL lets its holder do to one object. */
export type UrlMethod = 'GET' | 'HEAD' | 'PUT' | 'DELETE'

/** Signs the URLs of one batch, in order. */
export interface BatchSigner {
  readonly expiresAt: Date
  /** The signing time (the start of the signing window when there is one). */
  readonly signedAt: Date
  /** URLs for items `from` to `to` (default: all of them). */
  sign(from?: number, to?: number): Promise<string[]>
  /** What was signed for an item, for a caller chasing a signature mismatch. Never key material. */
  explain(item: ObjectItem): SigningSteps
}

/**
 * S3: the canonical request and string to sign. CloudFront: the policy signed. Waybill's own URLs:
 * the MAC's prefix, and the message whose SHA-256 (hex) follows it.
 */
type SigningSteps =
  | { canonicalRequest: string; stringToSign: string }
  | { policy: string }
  | { prefix: string; message: string }

/**
 * Who a URL is minted for and where: what an origin whose URLs the Worker serves itself signs into
 * them (its host, and the API key that answers for them). Others leave it unread.
 */
export interface Minting {
  /** The Worker's own origin as the request reached it: `https://files.example.com`. */
  readonly base: string
  /** The API key that asks, or null for a token's caller. */
  readonly issuer: string | null
  /** The token secrets: the first signs, every one verifies. */
  readonly secrets: readonly TokenSecret[]
}

/** Read (and bare write and delete) URLs for exact keys: every origin has them. */
export interface Urls {
  /** The methods its URLs may carry. */
  readonly methods: readonly UrlMethod[]
  /** Whether a URL may name an object version. */
  readonly versions: boolean
  /** Whether a URL may carry response overrides (download names, served types). */
  readonly overrides: boolean
  /**
   * What one URL costs in RSA signatures (WAYBILL_MAX_RSA_SIGNATURES bounds a request's): 0 where
   * signing is an HMAC.
   */
  readonly rsaSignatures: number
  /** A signer for `items`, all with `method`, at `time`. */
  signer(
    items: readonly ObjectItem[],
    method: UrlMethod,
    time: SigningTime,
    minting: Minting,
  ): BatchSigner
}

/** One policy for every key under a prefix: batches whose URLs share it, and signed cookies. */
export interface Wildcards {
  /** A signer for `items` (all under `prefix`), one signature for them all. */
  signer(prefix: string, items: readonly ObjectItem[], time: SigningTime): BatchSigner
  /** The cookies that carry the policy for `prefix`, and how to set them. */
  cookies(prefix: string, expiresAt: Date): Promise<SignedCookies>
}

export interface SignedCookies {
  /** The resource the policy grants, as the store names it (`https://…/prefix/*`). */
  readonly resource: string
  readonly values: Readonly<Record<string, string>>
  readonly settings: CookieSettings
}

export interface CookieSettings {
  readonly domain?: string | undefined
  readonly path: string
  readonly secure: boolean
  readonly httpOnly: boolean
  readonly sameSite: 'Strict' | 'Lax' | 'None'
}

/** An object as a listing shows it. */
export interface ListedObject {
  key: string
  size: number
  etag: string
  lastModified: string
}

export interface ListPageInput {
  prefix: string
  delimiter?: string | undefined
  maxKeys: number
  continuationToken?: string | undefined
  startAfter?: string | undefined
}

export interface ListPage {
  objects: ListedObject[]
  prefixes: string[]
  /** Continuation token when the listing goes on. */
  next: string | undefined
}

/** Listing the objects behind an origin, a page at a time, in the store's (UTF-8 byte) order. */
export interface Listing {
  /** At most `input.maxKeys` entries (the store's own page limit below that). */
  page(input: ListPageInput): Promise<ListPage>
  /** The most entries one page may hold. */
  readonly pageMax: number
}

/** What an upload's artifact pins, whatever the store: the driver signs each into it. */
export interface UploadTerms {
  /** The exact key, or with `keyPrefix` the prefix a form may choose any key under. */
  readonly key: string
  readonly keyIsPrefix: boolean
  readonly contentType: string
  /** The exact length, or the most a form admits, in bytes; none: any (a PUT without a length). */
  readonly length?: { exact: number } | { atMost: number } | undefined
  readonly checksumSha256?: string | undefined
  /** Whether it may replace an object at its key; otherwise the store refuses to (412). */
  readonly overwrite: boolean
  /** `x-amz-meta-*` metadata (the upload's tag among it), signed exactly. */
  readonly metadata: Readonly<Record<string, string>>
  /** Seconds it is valid from `now`. */
  readonly expiresIn: number
  readonly now: Date
  readonly minting: Minting
}

/** What HeadObject says of an object. */
export interface ObjectHead {
  size: number
  contentType: string
  etag: string
  lastModified: string
  /** The stored SHA-256 checksum (base64, `-<parts>` for a multipart upload's), when kept. */
  checksumSha256?: string | undefined
  /** The metadata `x-amz-meta-<tagName>`, when the object carries it. */
  tag?: string | undefined
}

export interface UploadedPart {
  partNumber: number
  etag: string
  size: number
  /** The part's SHA-256 (base64), when the upload was created with checksums. */
  checksumSha256?: string | undefined
}

export interface CompletedPart {
  partNumber: number
  etag: string
  checksumSha256?: string | undefined
}

/** Uploads straight from browsers, and what their follow-ups ask of the store. */
export interface Uploads {
  /** The modes the store takes (`post` only where it accepts browser forms). */
  readonly modes: readonly UploadMode[]
  /**
   * The most one request to the store may carry (a PUT, a form, a part) where that is less than
   * S3's: a store reached through the Worker takes no more than a Worker's request body.
   */
  readonly maxBodyBytes?: number | undefined
  /**
   * Whether a form's key is checked against the origin's key policy when the form comes back (the
   * Worker reads it), so a safe origin may take a key prefix; a store's starts-with cannot.
   */
  readonly checksFormKeys?: boolean | undefined
  /** A PUT URL that signs every term, and the headers to send with it. */
  putUrl(
    terms: UploadTerms,
  ): Promise<{ url: string; headers: Record<string, string>; expiresAt: Date }>
  /** A browser form whose policy pins every term; its fields go first, then the file. */
  postForm(
    terms: UploadTerms & { successActionStatus?: 200 | 201 | 204 | undefined },
  ): Promise<{ url: string; fields: Record<string, string>; expiresAt: Date }>
  /** Starts a multipart upload at the store: its id there. */
  createMultipart(
    key: string,
    input: { contentType: string; metadata: Readonly<Record<string, string>>; checksums: boolean },
  ): Promise<string>
  /** Part URLs, each pinning its part's exact size (and SHA-256, when given). */
  partUrls(
    key: string,
    uploadId: string,
    parts: readonly { partNumber: number; size: number; checksumSha256?: string | undefined }[],
    expiresIn: number,
    now: Date,
    minting: Minting,
  ): Promise<{ parts: { partNumber: number; url: string }[]; expiresAt: Date }>
  /** The parts the store holds, ascending. */
  listParts(key: string, uploadId: string): Promise<UploadedPart[]>
  /** Completes with these parts (ascending); unless `overwrite`, an object at the key is a 412. */
  complete(
    key: string,
    uploadId: string,
    parts: readonly CompletedPart[],
    options: { overwrite: boolean },
  ): Promise<{ etag: string }>
  abort(key: string, uploadId: string): Promise<void>
  /** The object at `key` with the metadata `tagName`; undefined when there is none. */
  head(key: string, tagName: string): Promise<ObjectHead | undefined>
  /** Deletes the object only while it is the one with `etag` (412 otherwise). */
  deleteIfMatch(key: string, etag: string): Promise<void>
}

/** What serving a request needs from above the driver: the clock, the secrets, the control plane. */
export interface ServeContext {
  readonly now: Date
  readonly secrets: readonly TokenSecret[]
  /**
   * Why the issuer of a URL no longer stands (its API key revoked, expired or gone), or undefined
   * while it does: every use of a URL answers to its issuer (src/auth/standing.ts). A promise
   * only where a stored key must be looked up.
   */
  fallen(issuer: string | null): string | undefined | Promise<string | undefined>
  /** Work that may finish after the answer (filling the edge cache). */
  waitUntil(promise: Promise<unknown>): void
}

/**
 * An origin whose URLs point at the Worker, which serves them: it verifies each URL, then reads
 * or stores the object itself (R2 through its binding). The route `/o/<origin>/…` hands it every
 * request for the origin.
 */
export interface Served {
  /** The answer to `request` (any method: a URL's, a form's POST, a preflight). */
  serve(request: Request, context: ServeContext): Promise<Response>
}

/** A configured origin: what it is, and the capabilities its driver gives it. */
export interface Origin {
  readonly name: string
  /** The type it was configured with: for messages and logs, never for deciding anything. */
  readonly type: string
  readonly keys: KeyPolicy
  /** Seconds; 0 signs at the request time. See core/window.ts. */
  readonly signingWindow: number
  readonly urls: Urls
  readonly wildcards?: Wildcards | undefined
  readonly listing?: Listing | undefined
  readonly uploads?: Uploads | undefined
  readonly served?: Served | undefined
  /**
   * What this origin cannot let a grant say (the field, in the grant), or undefined: a wildcard
   * grant where its URLs carry overrides a policy's `*` cannot pin.
   */
  grantProblem?(grant: { wildcard: boolean }): FieldError | undefined
  /** Work done once per isolate before the origin signs (importing keys): its problems. */
  prepare?(): Promise<readonly FieldError[]>
}

/** What a driver adds to the configuration: its `type`, its schema, and how it makes an origin. */
export interface OriginDriver<TSettings = unknown> {
  readonly type: string
  /**
   * The schema of one WAYBILL_ORIGINS entry of this type, for an env that holds the secrets it
   * names (a valibot object schema with `type: v.literal(<type>)`, for the registry's variant).
   */
  schema(env: Env): v.GenericSchema<unknown, TSettings>
  /**
   * The origin `name` with these settings. `others` reaches the configuration's other origins (a
   * CloudFront origin lists through the S3 origin over its bucket), once all are made.
   */
  create(name: string, settings: TSettings, others: (name: string) => Origin | undefined): Origin
  /** Problems with settings that name other origins, once all are made: field errors under `at`. */
  check?(
    settings: TSettings,
    others: (name: string) => Origin | undefined,
  ): readonly { path: string; message: string }[]
}
