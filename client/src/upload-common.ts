// What the upload modules share: an upload's options, progress and result, the context the
// upload functions run in, and the helpers both the single (upload.ts) and the multipart
// (multipart.ts) paths use. Below both, so neither imports the other's module to get them.

import type { UploadCalls } from './calls.ts'
import { WaybillError } from './errors.ts'
import type { CallOptions, Http } from './http.ts'
import type { ResumeStorage, UploadTarget } from './resume.ts'
import type { SignAnswer, SignRequest } from './types.ts'

/** How far an upload has come. */
export interface UploadProgress {
  /** Bytes of the file sent (a part that fails and is sent again counts from 0 again). */
  loaded: number
  /** The file's size. */
  total: number
  /** Multipart: parts the bucket holds, and of how many. */
  partsDone?: number
  partCount?: number
}

/**
 * `auto` (default): one PUT below `multipartThreshold`, multipart from there. `put`, `post` (a
 * POST form; PUT when the origin's store takes no POST uploads) and `multipart` choose.
 */
export type UploadMode = 'auto' | 'put' | 'post' | 'multipart'

/** Where an object goes and what it is, for `upload()`. */
export interface UploadOptions extends CallOptions {
  origin: string
  /** The object's key. Without it, the grant's `uploadKey` names the object after `filename`. */
  key?: string | undefined
  /** The file name the grant's `uploadKey` chooses the key from. Default: the File's name. */
  filename?: string | undefined
  /** Default: the file's type, or `application/octet-stream`. */
  contentType?: string | undefined
  mode?: UploadMode | undefined
  /** Bytes from which `auto` uploads are multipart. Default 16 MiB. */
  multipartThreshold?: number | undefined
  /** Multipart: bytes per part (at least 5 MiB). Default: waybill's rule. */
  partSize?: number | undefined
  /** Multipart: parts in flight at once. Default 4. */
  partConcurrency?: number | undefined
  /** Called as bytes leave: from XMLHttpRequest's upload progress in browsers, per transfer elsewhere. */
  onProgress?: ((progress: UploadProgress) => void) | undefined
  /** `x-amz-meta-*` metadata. */
  metadata?: Record<string, string> | undefined
  /** Seconds the signed URLs live (capped by the grant). */
  expiresIn?: number | undefined
  /**
   * Hash what is sent with SHA-256 (Web Crypto, off the main thread): each PUT, POST form or
   * part then signs its checksum, and the store refuses bytes altered or cut off on the way.
   * Default true. (A single PUT or POST over 64 MiB goes without one, checked by its ETag.)
   */
  checksum?: boolean | undefined
  /** PUT and POST: the file's base64 SHA-256, when the caller has it already. */
  checksumSha256?: string | undefined
  /**
   * Replace an object already at the key (needs a grant with `overwrite`). By default an upload
   * never does: the store answers 412. A POST form cannot refuse to replace, so `mode: 'post'`
   * sends one only with `overwrite: true`, and a PUT otherwise.
   */
  overwrite?: boolean | undefined
  /**
   * Multipart: remember the upload (in `storage`) until it completes, so the same file uploaded
   * again after a reload or a failure sends only the missing parts. Default true.
   */
  resume?: boolean | undefined
  /** Where to remember resumable uploads. Default: the client's (localStorage). */
  storage?: ResumeStorage | undefined
  /**
   * Sign a URL to show the stored object (`POST /v1/sign` once it is checked): the result's `url`
   * and `urlExpiresAt`, absent where the caller may not read it.
   */
  display?: boolean | undefined
}

/** An uploaded object, as waybill checked it in the store. */
export interface UploadResult {
  origin: string
  key: string
  size: number
  contentType: string
  etag: string
  lastModified?: string | undefined
  checksumSha256?: string | undefined
  /** How it was sent: `post` may have become `put` on a store without POST uploads. */
  mode: 'put' | 'post' | 'multipart'
  /** Multipart: the upload's parts. */
  partCount?: number | undefined
  /** Multipart: parts this call sent (fewer than `partCount` when it resumed an upload). */
  partsSent?: number | undefined
  /** Multipart: true when an interrupted upload was finished. */
  resumed?: boolean | undefined
  /** With `display`: a signed GET URL of the object, where the caller may read it. */
  url?: string | undefined
  /** When `url` expires. */
  urlExpiresAt?: string | undefined
}

/** What the upload functions share: the client's connection, calls and resume records. */
export interface UploadContext {
  http: Http
  calls: UploadCalls
  storage: ResumeStorage | undefined
  sign(request: SignRequest, options?: CallOptions): Promise<SignAnswer>
}

/** waybill answered something the client cannot use. */
export const badAnswer = (message: string) => new WaybillError('bad_answer', message)

/** The target's key, or the file name the grant's `uploadKey` chooses one from. */
export const named = (target: UploadTarget) =>
  target.key === undefined ? { filename: target.filename } : { key: target.key }

/** `result`, with a URL to show it when `display` asks for one (where the caller may read it). */
export async function withUrl(
  ctx: UploadContext,
  result: UploadResult,
  options: Pick<UploadOptions, 'display' | 'expiresIn'>,
  call: CallOptions,
): Promise<UploadResult> {
  if (!options.display) return result
  try {
    const { urls, expiresAt } = await ctx.sign(
      { origin: result.origin, keys: [result.key], expiresIn: options.expiresIn },
      call,
    )
    return { ...result, url: urls[0]?.url, urlExpiresAt: expiresAt }
  } catch {
    // Stored and checked all the same: only the URL to show it is missing.
    return result
  }
}
