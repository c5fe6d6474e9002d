// The upload engine behind upload(), uploadMany(), startUpload(), startUploads() and the Uppy
// adapter: a file straight to the bucket by PUT, POST form or multipart (multipart.ts), as a task
// that can be paused, resumed and cancelled (task.ts), with progress, retries, URLs signed again
// before they expire (signed.ts), files and parts through one pool (pool.ts), and the completion
// check.

import type { UploadCalls } from './calls.ts'
import {
  DEFAULT_FILE_CONCURRENCY,
  DEFAULT_MULTIPART_THRESHOLD_BYTES,
  MAX_HASHED_PUT_BYTES,
} from './constants.ts'
import { WaybillError } from './errors.ts'
import { sha256Base64 } from './hash.ts'
import type { CallOptions, Http } from './http.ts'
import { multipartBody } from './multipart.ts'
import { createPool, type Pool } from './pool.ts'
import {
  fingerprintOf,
  resumeRecords,
  type ResumeRecord,
  type ResumeStorage,
  type UploadTarget,
} from './resume.ts'
import { throwIfAborted, withRetries } from './retry.ts'
import { signedNow, stale, type Signed } from './signed.ts'
import { createTask, type TaskBody, type UploadTask } from './task.ts'
import { isExpiredRefusal, transfer } from './transfer.ts'
import type { PostGrant, PutGrant, SignAnswer, SignRequest, UploadGrant } from './types.ts'

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
   * Replace an object already at the key (needs a grant with `overwrite`). By default a PUT or
   * multipart upload never does: the store answers 412. A POST form always may.
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

/** One file of `uploadMany()`. */
export interface UploadEntry {
  file: Blob
  key?: string | undefined
  filename?: string | undefined
  contentType?: string | undefined
  metadata?: Record<string, string> | undefined
}

/** Options of `uploadMany()`: those of `upload()` that apply to every file. */
export interface UploadManyOptions extends Omit<
  UploadOptions,
  'key' | 'filename' | 'contentType' | 'metadata' | 'checksumSha256' | 'onProgress'
> {
  /** Files in flight at once. Default 4. */
  concurrency?: number | undefined
  /**
   * Keep going when a file fails (or is refused): `uploadMany()` then resolves to each file's
   * outcome, as `Promise.allSettled` does. Default false: the first failure stops the rest, and
   * `uploadMany()` rejects with it (a multipart upload it stopped stays resumable).
   */
  continueOnError?: boolean | undefined
  /** Progress over all files together. */
  onProgress?:
    ((progress: UploadProgress & { filesDone: number; files: number }) => void) | undefined
  /** Progress of file `index` (of `entries`). */
  onFileProgress?: ((index: number, progress: UploadProgress) => void) | undefined
}

/**
 * Many uploads under way: a task per file, in order of the entries, and what the batch does to
 * all of them at once.
 */
export interface UploadBatch {
  readonly tasks: readonly UploadTask[]
  /** Each file's outcome, in order, once every one has settled. */
  readonly done: Promise<PromiseSettledResult<UploadResult>[]>
  pause(): void
  resume(): void
  cancel(): Promise<void>
}

/** What the upload functions share: the client's connection, calls and resume records. */
export interface UploadContext {
  http: Http
  calls: UploadCalls
  storage: ResumeStorage | undefined
  sign(request: SignRequest, options?: CallOptions): Promise<SignAnswer>
}

interface Target extends UploadTarget {
  /** The name a POST form gives the file. */
  formName: string
}

type SingleGrant = PutGrant | PostGrant
/** A PUT URL or POST policy, received when `signed` says, and what it was asked for with. */
interface Issued {
  grant: SingleGrant
  signed: Signed
  extra: Extra
}
/** What a PUT or POST upload asks for beside its target: metadata, checksum, overwrite. */
type Extra = Record<string, unknown>

const invalidArgument = (message: string) => new WaybillError('invalid_argument', message)
export const badAnswer = (message: string) => new WaybillError('bad_answer', message)

/** The destination of one file: its key, or the file name the grant's `uploadKey` uses. */
function targetOf(
  file: Blob,
  origin: string,
  entry: Pick<UploadOptions, 'key' | 'filename' | 'contentType'>,
): Target {
  const name = (file as Partial<File>).name
  if (entry.key !== undefined && entry.filename !== undefined) {
    throw invalidArgument(
      'Send either a key or a filename for the grant to choose the key, not both.',
    )
  }
  const filename = entry.key === undefined ? (entry.filename ?? name) : undefined
  if (entry.key === undefined && !filename) {
    throw invalidArgument(
      "An upload needs a key, or a filename for the grant's uploadKey to name the object by (a File has one).",
    )
  }
  return {
    origin,
    key: entry.key,
    filename,
    contentType: entry.contentType ?? (file.type || 'application/octet-stream'),
    formName: entry.filename ?? name ?? entry.key?.split('/').pop() ?? 'file',
  }
}

export const named = (target: UploadTarget) =>
  target.key === undefined ? { filename: target.filename } : { key: target.key }

/** True when waybill refused `mode: "post"` because the origin's store takes no POST uploads. */
const postRefused = (error: unknown) =>
  error instanceof WaybillError &&
  error.code === 'invalid_request' &&
  error.errors.some((e) => e.path === 'mode')

/**
 * PUT URLs or POST policies for `items` (one call, `items` when more than one); a store without
 * POST uploads gets PUTs instead.
 */
export async function issueSingles(
  ctx: UploadContext,
  mode: 'put' | 'post',
  items: ReadonlyArray<{ target: UploadTarget; size: number; extra: Extra }>,
  options: Pick<UploadOptions, 'expiresIn' | 'signal' | 'retries'>,
): Promise<SingleGrant[]> {
  const item = ({ target, size, extra }: (typeof items)[number]) => ({
    ...named(target),
    contentType: target.contentType,
    contentLength: size,
    ...extra,
  })
  const call = async (chosen: 'put' | 'post') => {
    const common = { origin: items[0]!.target.origin, mode: chosen, expiresIn: options.expiresIn }
    const answer = await ctx.calls.createUpload(
      items.length === 1
        ? { ...common, ...item(items[0]!) }
        : { ...common, items: items.map(item) },
      options,
    )
    const grants: UploadGrant[] = 'uploads' in answer ? answer.uploads : [answer]
    const singles = grants.filter((g): g is SingleGrant => g.mode !== 'multipart')
    if (singles.length !== items.length) {
      throw badAnswer(`waybill answered ${grants.length} uploads for ${items.length} files.`)
    }
    return singles
  }
  if (mode === 'put') return call('put')
  try {
    return await call('post')
  } catch (error) {
    if (!postRefused(error)) throw error
    return call('put')
  }
}

/** A file's SHA-256 for a PUT or POST, unless checksums are off or it is too large to hash whole. */
export function checksumOf(
  file: Blob,
  options: Pick<UploadOptions, 'checksum'>,
): Promise<string | undefined> {
  if (options.checksum === false || file.size > MAX_HASHED_PUT_BYTES) {
    return Promise.resolve(undefined)
  }
  return sha256Base64(file)
}

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

/**
 * A PUT or POST upload: sends the file with its URL or policy (retrying, and issuing a new one
 * when it is about to expire or a transfer failed), then checks the stored object against the
 * receipt. `prepare` answers the first grant and what it asked for.
 */
function singleBody(
  ctx: UploadContext,
  file: Blob,
  target: Target,
  options: Omit<UploadOptions, 'origin'>,
  prepare: () => Promise<Issued>,
): TaskBody {
  let prepared: Promise<Issued> | undefined
  let grant: SingleGrant | undefined
  let signed: Signed | undefined
  // A transfer of these bytes was started before: a 412 (no overwrite) may then meet the object
  // that one stored before its answer was lost (or a pause dropped it); the completion check
  // decides whether it is this upload's.
  let tried = false
  return {
    async run(signal, report) {
      const call = { signal, retries: options.retries ?? ctx.http.retries }
      prepared ??= prepare().catch((error: unknown) => {
        prepared = undefined
        throw error
      })
      const first = await prepared
      const { extra } = first
      grant ??= first.grant
      signed ??= first.signed
      const key = grant.key
      if (key === undefined) throw badAnswer('waybill answered an upload without its key.')
      // The key is now fixed (a grant's uploadKey chose it once): a new URL is asked for that key.
      const fixed: UploadTarget = { ...target, key, filename: undefined }
      const progress = (loaded: number) => report({ loaded, total: file.size })
      let precondition: WaybillError | undefined
      const policy = { ...call, baseDelayMs: ctx.http.retryBaseDelayMs }
      const sent = await withRetries(policy, async (attempt) => {
        for (let expired = false; ;) {
          if (stale(signed, attempt > 0 || expired)) {
            // Part of one attempt: the attempts are its retries.
            const [fresh] = await issueSingles(
              ctx,
              grant!.mode,
              [{ target: fixed, size: file.size, extra }],
              {
                ...options,
                signal,
                retries: 0,
              },
            )
            grant = fresh!
            signed = signedNow(ctx.http, grant.url, grant.expiresAt)
          }
          const current = grant!
          let body: Blob | FormData = file
          if (current.mode === 'post') {
            body = new FormData()
            for (const [name, value] of Object.entries(current.fields)) body.append(name, value)
            // S3 ignores every field after the file, so it goes last.
            body.append('file', file, target.formName)
          }
          const again = tried
          tried = true
          try {
            progress(0)
            return await transfer(ctx.http.fetch, {
              method: current.method,
              url: current.url,
              headers: current.mode === 'put' ? current.headers : undefined,
              body,
              size: file.size,
              what: current.mode === 'post' ? 'the POST form' : 'the PUT',
              signal,
              onProgress: progress,
            })
          } catch (error) {
            progress(0)
            if (again && error instanceof WaybillError && error.status === 412) {
              precondition = error
              return undefined
            }
            if (expired || !isExpiredRefusal(error)) throw error
            expired = true
          }
        }
      })
      try {
        // The checksum names this upload's bytes; without one, the ETag the store answered does.
        const etag = sent?.etag
        const stored = await ctx.calls.checkUpload(
          {
            origin: target.origin,
            key,
            receipt: grant.receipt,
            ...(etag === undefined ? {} : { etag }),
          },
          call,
        )
        if (precondition !== undefined) progress(file.size)
        return await withUrl(ctx, { ...stored }, options, call)
      } catch (error) {
        // Another object than this upload's: the store's refusal stands.
        if (precondition !== undefined && error instanceof WaybillError && !error.retryable) {
          throw precondition
        }
        throw error
      }
    },
    drop: async () => {},
  }
}

const multipartFor = (size: number, options: Pick<UploadOptions, 'mode' | 'multipartThreshold'>) =>
  options.mode === 'multipart' ||
  ((options.mode ?? 'auto') === 'auto' &&
    size >= (options.multipartThreshold ?? DEFAULT_MULTIPART_THRESHOLD_BYTES))

const singleMode = (options: Pick<UploadOptions, 'mode'>) =>
  options.mode === 'post' ? 'post' : 'put'

/** What a PUT or POST of `file` asks for beside its target. */
const extraOf = async (
  file: Blob,
  options: Pick<UploadOptions, 'metadata' | 'checksumSha256' | 'checksum' | 'overwrite'>,
) => ({
  metadata: options.metadata,
  checksumSha256: options.checksumSha256 ?? (await checksumOf(file, options)),
  overwrite: options.overwrite || undefined,
})

/**
 * Uploads one file as a task; see WaybillClient.startUpload. In a batch, `pool` is the batch's
 * and `prepare` the batch's grant for this file.
 */
export function startUpload(
  ctx: UploadContext,
  file: Blob,
  options: UploadOptions,
  pool?: Pool,
  prepare?: () => Promise<Issued>,
): UploadTask {
  let body: TaskBody
  try {
    const target = targetOf(file, options.origin, options)
    body = multipartFor(file.size, options)
      ? multipartBody(ctx, file, target, options)
      : singleBody(
          ctx,
          file,
          target,
          options,
          prepare ??
            (async () => {
              const extra = await extraOf(file, options)
              const [grant] = await issueSingles(
                ctx,
                singleMode(options),
                [{ target, size: file.size, extra }],
                options,
              )
              return {
                grant: grant!,
                signed: signedNow(ctx.http, grant!.url, grant!.expiresAt),
                extra,
              }
            }),
        )
  } catch (error) {
    body = {
      run: () => {
        throw error
      },
      drop: async () => {},
    }
  }
  return createTask(body, file.size, {
    signal: options.signal,
    onProgress: options.onProgress,
    pool,
  })
}

const ITEM = /^items\.(\d+)(?:\.(.*))?$/

/**
 * When `error` refuses some items of a batch and nothing else (each field error names an item),
 * each such item's own error, by its index.
 */
function itemErrors(error: unknown): Map<number, WaybillError> | undefined {
  if (!(error instanceof WaybillError) || error.retryable || error.errors.length === 0) return
  const byItem = new Map<number, { path: string; message: string }[]>()
  for (const { path, message } of error.errors) {
    const match = ITEM.exec(path)
    if (match === null) return
    const i = Number(match[1])
    byItem.set(i, [...(byItem.get(i) ?? []), { path: match[2] ?? '', message }])
  }
  return new Map(
    [...byItem].map(([i, errors]) => [
      i,
      new WaybillError(
        error.code,
        errors.map(({ path, message }) => (path ? `${path}: ${message}` : message)).join('; '),
        {
          status: error.status,
          type: error.type,
          title: error.title,
          errors,
          requestId: error.requestId,
        },
      ),
    ]),
  )
}

/** Uploads many files as tasks; see WaybillClient.startUploads. */
export function startUploads(
  ctx: UploadContext,
  entries: readonly UploadEntry[],
  options: UploadManyOptions,
): UploadBatch & { failure: () => { error: unknown } | undefined } {
  const pool = createPool(options.concurrency ?? DEFAULT_FILE_CONCURRENCY)
  const singles: number[] = []
  entries.forEach((entry, i) => {
    if (!multipartFor(entry.file.size, options)) singles.push(i)
  })
  // One call for every PUT or POST once each file is hashed (one after another: one file's bytes
  // held at a time). With continueOnError, the items a refusal names fail and the others are
  // asked for again.
  let issued: Promise<(Issued | { error: unknown })[]> | undefined
  const issueAll = async () => {
    const out: (Issued | { error: unknown })[] = []
    const items: { target: Target; size: number; extra: Extra }[] = []
    for (const [j, i] of singles.entries()) {
      const entry = entries[i]!
      try {
        throwIfAborted(options.signal)
        const target = targetOf(entry.file, options.origin, entry)
        items[j] = {
          target,
          size: entry.file.size,
          extra: await extraOf(entry.file, { ...options, metadata: entry.metadata }),
        }
      } catch (error) {
        out[j] = { error }
      }
    }
    let left = singles.map((_, j) => j).filter((j) => out[j] === undefined)
    while (left.length > 0) {
      try {
        const grants = await issueSingles(
          ctx,
          singleMode(options),
          left.map((j) => items[j]!),
          options,
        )
        left.forEach(
          (j, k) =>
            (out[j] = {
              grant: grants[k]!,
              signed: signedNow(ctx.http, grants[k]!.url, grants[k]!.expiresAt),
              extra: items[j]!.extra,
            }),
        )
        break
      } catch (error) {
        const refused = options.continueOnError && left.length > 1 ? itemErrors(error) : undefined
        if (refused === undefined) {
          for (const j of left) out[j] = { error }
          break
        }
        left = left.filter((j, k) => {
          const own = refused.get(k)
          if (own !== undefined) out[j] = { error: own }
          return own === undefined
        })
      }
    }
    return out
  }

  const total = entries.reduce((sum, entry) => sum + entry.file.size, 0)
  const loaded = entries.map(() => 0)
  let filesDone = 0
  const report = () =>
    options.onProgress?.({
      loaded: loaded.reduce((a, b) => a + b, 0),
      total,
      filesDone,
      files: entries.length,
    })

  const tasks = entries.map((entry, i) => {
    const j = singles.indexOf(i)
    const task = startUpload(
      ctx,
      entry.file,
      {
        ...options,
        ...entry,
        onProgress: (progress) => {
          loaded[i] = progress.loaded
          options.onFileProgress?.(i, progress)
          report()
        },
      },
      pool,
      j < 0
        ? undefined
        : async () => {
            const one = (await (issued ??= issueAll()))[j]!
            if ('error' in one) throw one.error
            return one
          },
    )
    task.done.then(
      () => {
        loaded[i] = entry.file.size
        filesDone++
        report()
      },
      () => {},
    )
    return task
  })

  let failure: { error: unknown } | undefined
  if (!options.continueOnError) {
    // The first failure stops the rest; a multipart upload it stopped stays resumable.
    const stopped = new DOMException('Stopped: another file of the batch failed.', 'AbortError')
    for (const task of tasks) {
      task.done.catch((error: unknown) => {
        if (failure !== undefined || task.status.state !== 'failed') return
        failure = { error }
        for (const other of tasks) (other as ReturnType<typeof createTask>).stop(stopped)
      })
    }
  }
  return {
    tasks,
    done: Promise.allSettled(tasks.map((task) => task.done)),
    pause: () => tasks.forEach((task) => task.pause()),
    resume: () => tasks.forEach((task) => task.resume()),
    async cancel() {
      await Promise.all(tasks.map((task) => task.cancel()))
    },
    failure: () => failure,
  }
}

/** Uploads many files; see WaybillClient.uploadMany. */
export async function uploadMany(
  ctx: UploadContext,
  entries: readonly UploadEntry[],
  options: UploadManyOptions,
): Promise<UploadResult[] | PromiseSettledResult<UploadResult>[]> {
  const batch = startUploads(ctx, entries, options)
  const settled = await batch.done
  throwIfAborted(options.signal)
  if (options.continueOnError) return settled
  const failure = batch.failure()
  if (failure !== undefined) throw failure.error
  return settled.map((outcome) => {
    if (outcome.status === 'rejected') throw outcome.reason
    return outcome.value
  })
}

/** The remembered multipart upload of a file, if there is one; see WaybillClient.resumableUpload. */
export function findResumable(
  ctx: UploadContext,
  file: Blob,
  options: Pick<UploadOptions, 'origin' | 'key' | 'filename' | 'contentType' | 'storage'>,
): ResumeRecord | undefined {
  const target = targetOf(file, options.origin, options)
  return resumeRecords(options.storage ?? ctx.storage).get(fingerprintOf(file, target))
}

/** Aborts and forgets the remembered upload of a file; see WaybillClient.discardUpload. */
export async function discardResumable(
  ctx: UploadContext,
  file: Blob,
  options: Pick<UploadOptions, 'origin' | 'key' | 'filename' | 'contentType' | 'storage'> &
    CallOptions,
): Promise<boolean> {
  const record = findResumable(ctx, file, options)
  if (record === undefined) return false
  try {
    await ctx.calls.abortMultipart(
      { origin: record.origin, key: record.key, uploadId: record.uploadId },
      options,
    )
  } catch (error) {
    // Already gone (completed, aborted, expired): forgetting it is all that is left to do.
    if (!(error instanceof WaybillError && error.status === 404)) throw error
  }
  resumeRecords(options.storage ?? ctx.storage).delete(record.fingerprint)
  return true
}
