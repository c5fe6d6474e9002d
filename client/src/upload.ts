// The upload engine behind upload(), uploadMany(), startUpload(), startUploads() and the Uppy
// adapter: a file straight to the bucket by PUT, POST form or multipart (multipart.ts), as a task
// that can be paused, resumed and cancelled (task.ts), with progress, retries, URLs signed again
// before they expire (signed.ts), files and parts through one pool (pool.ts), and the completion
// check.

import {
  DEFAULT_FILE_CONCURRENCY,
  DEFAULT_MULTIPART_THRESHOLD_BYTES,
  MAX_HASHED_PUT_BYTES,
} from './constants.ts'
import { WaybillError } from './errors.ts'
import { sha256Base64 } from './hash.ts'
import type { CallOptions } from './http.ts'
import { multipartBody } from './multipart.ts'
import { createPool, type Pool } from './pool.ts'
import { fingerprintOf, resumeRecords, type ResumeRecord, type UploadTarget } from './resume.ts'
import { throwIfAborted } from './retry.ts'
import { signedNow, stale, type Signed } from './signed.ts'
import { createTask, type TaskBody, type UploadTask } from './task.ts'
import { sendSigned } from './transfer.ts'
import type { PostGrant, PutGrant, UploadGrant } from './types.ts'
import {
  badAnswer,
  named,
  withUrl,
  type UploadContext,
  type UploadOptions,
  type UploadProgress,
  type UploadResult,
} from './upload-common.ts'

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

/** Many uploads under way: a task per file, in order of the entries. */
export interface UploadBatch {
  readonly tasks: readonly UploadTask[]
  /** Each file's outcome, in order, once every one has settled. */
  readonly done: Promise<PromiseSettledResult<UploadResult>[]>
}

interface Target extends UploadTarget {
  /** The name a POST form gives the file. */
  formName: string
}

type SingleGrant = PutGrant | PostGrant
/** A PUT URL or POST policy, received when `signed` says, and what it was asked for. */
interface Issued {
  grant: SingleGrant
  signed: Signed
  single: Single
}
/** What a PUT or POST upload asks for beside its target: metadata, checksum, overwrite. */
type Extra = Record<string, unknown>

const invalidArgument = (message: string) => new WaybillError('invalid_argument', message)

/** The destination of one file: its key, or the file name the grant's `uploadKey` uses. */
function targetOf(
  file: Blob,
  origin: string,
  entry: Pick<UploadOptions, 'key' | 'filename' | 'contentType'>,
): Target {
  const name = (file as Partial<File>).name
  if (entry.key !== undefined && entry.filename !== undefined) {
    throw invalidArgument('Send a key, or a filename for the grant to choose one; not both.')
  }
  const filename = entry.key === undefined ? (entry.filename ?? name) : undefined
  if (entry.key === undefined && !filename) {
    throw invalidArgument("An upload needs a key, or a filename for the grant's uploadKey.")
  }
  return {
    origin,
    key: entry.key,
    filename,
    contentType: entry.contentType ?? (file.type || 'application/octet-stream'),
    formName: entry.filename ?? name ?? entry.key?.split('/').pop() ?? 'file',
  }
}

/** True when waybill refused `mode: "post"` because the origin's store takes no POST uploads. */
const postRefused = (error: unknown) =>
  error instanceof WaybillError &&
  error.code === 'invalid_request' &&
  error.errors.some((e) => e.path === 'mode')

/** One file to upload by PUT or POST: where, and what it asks for beside (checksum, …). */
interface Single {
  target: Target
  size: number
  extra: Extra
}

/** What a PUT or POST of `file` asks for: its target, and its SHA-256 unless it is not hashed. */
const singleOf = async (
  file: Blob,
  origin: string,
  entry: Pick<
    UploadOptions,
    'key' | 'filename' | 'contentType' | 'metadata' | 'checksumSha256' | 'checksum' | 'overwrite'
  >,
): Promise<Single> => ({
  target: targetOf(file, origin, entry),
  size: file.size,
  extra: {
    metadata: entry.metadata,
    checksumSha256:
      entry.checksumSha256 ??
      (entry.checksum === false || file.size > MAX_HASHED_PUT_BYTES
        ? undefined
        : await sha256Base64(file)),
    overwrite: entry.overwrite || undefined,
  },
})

/**
 * PUT URLs or POST policies for `singles`, in one call (`items` when more than one: authorized
 * all or nothing); a store without POST uploads gets PUTs instead.
 */
async function issueSingles(
  ctx: UploadContext,
  mode: 'put' | 'post',
  singles: readonly Single[],
  options: Pick<UploadOptions, 'expiresIn' | 'signal' | 'retries'>,
): Promise<Issued[]> {
  const item = ({ target, size, extra }: Single) => ({
    ...named(target),
    contentType: target.contentType,
    contentLength: size,
    ...extra,
  })
  const common = { origin: singles[0]!.target.origin, expiresIn: options.expiresIn }
  // A POST form is asked for only where every file says overwrite (see below).
  const formOf = (single: Single) => ({ ...item(single), overwrite: true as const })
  const call = async (chosen: 'put' | 'post') => {
    const answer = await ctx.calls.createUpload(
      chosen === 'post'
        ? singles.length === 1
          ? { ...common, mode: chosen, ...formOf(singles[0]!) }
          : { ...common, mode: chosen, items: singles.map(formOf) }
        : singles.length === 1
          ? { ...common, mode: chosen, ...item(singles[0]!) }
          : { ...common, mode: chosen, items: singles.map(item) },
      options,
    )
    const grants: UploadGrant[] = 'uploads' in answer ? answer.uploads : [answer]
    return singles.map((single, i) => {
      const grant = grants[i]
      if (grant === undefined || grant.mode === 'multipart' || grant.key === undefined) {
        throw badAnswer('waybill did not answer an upload for each file.')
      }
      return { grant, signed: signedNow(ctx.http, grant.url, grant.expiresAt), single }
    })
  }
  // A POST form replaces what is at its key: it is asked for only where every file says
  // `overwrite` (waybill refuses it otherwise); the others go as PUTs, which never replace.
  if (mode === 'put' || !singles.every((single) => single.extra.overwrite)) return call('put')
  try {
    return await call('post')
  } catch (error) {
    if (!postRefused(error)) throw error
    return call('put')
  }
}

/**
 * What the Uppy adapter asks for a file it sends by PUT or POST itself: the grant, with the
 * file's SHA-256 signed unless `checksum` is false.
 */
export async function issueOne(
  ctx: UploadContext,
  file: Blob,
  options: Pick<
    UploadOptions,
    'origin' | 'mode' | 'key' | 'filename' | 'contentType' | 'checksum' | 'overwrite'
  >,
): Promise<SingleGrant> {
  const [issued] = await issueSingles(
    ctx,
    singleMode(options),
    [await singleOf(file, options.origin, options)],
    {},
  )
  return issued!.grant
}

/**
 * A PUT or POST upload: sends the file with its URL or policy (retrying, and issuing a new one
 * when it is about to expire or a transfer failed), then checks the stored object against the
 * receipt. `prepare` answers the first grant.
 */
function singleBody(
  ctx: UploadContext,
  file: Blob,
  options: Omit<UploadOptions, 'origin'>,
  prepare: () => Promise<Issued>,
): TaskBody {
  let prepared: Promise<Issued> | undefined
  let current: Issued | undefined
  // A transfer of these bytes was started before: a 412 (no overwrite) may then meet the object
  // that one stored before its answer was lost (or a pause dropped it); the completion check
  // decides whether it is this upload's.
  let tried = false
  let resent = false
  return {
    async run(signal, report) {
      const call = { signal, retries: options.retries ?? ctx.http.retries }
      prepared ??= prepare().catch((error: unknown) => {
        prepared = undefined
        throw error
      })
      current ??= await prepared
      const { target, extra } = current.single
      const key = current.grant.key!
      // The key is now fixed (a grant's uploadKey chose it once): a new URL is asked for that key.
      const fixed = { target: { ...target, key, filename: undefined }, size: file.size, extra }
      const progress = (loaded: number) => report({ loaded, total: file.size })
      let precondition: WaybillError | undefined
      const sent = await sendSigned(
        ctx.http.fetch,
        { ...call, baseDelayMs: ctx.http.retryBaseDelayMs },
        async (again) => {
          if (stale(current!.signed, again)) {
            // Part of one attempt: the attempts are its retries.
            const [fresh] = await issueSingles(ctx, current!.grant.mode, [fixed], {
              ...options,
              signal,
              retries: 0,
            })
            current = fresh!
          }
          const { grant } = current!
          let body: Blob | FormData = file
          if (grant.mode === 'post') {
            body = new FormData()
            for (const [name, value] of Object.entries(grant.fields)) body.append(name, value)
            // S3 ignores every field after the file, so it goes last.
            body.append('file', file, target.formName)
          }
          resent = tried
          tried = true
          return {
            method: grant.method,
            url: grant.url,
            headers: grant.mode === 'put' ? grant.headers : undefined,
            body,
            size: file.size,
            what: grant.mode === 'post' ? 'the POST form' : 'the PUT',
          }
        },
        progress,
        (error) =>
          resent &&
          error instanceof WaybillError &&
          error.status === 412 &&
          (precondition = error) !== undefined,
      )
      try {
        // The checksum names this upload's bytes; without one, the ETag the store answered does.
        const etag = sent?.etag
        const stored = await ctx.calls.checkUpload(
          {
            origin: target.origin,
            key,
            receipt: current.grant.receipt,
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

/**
 * Uploads one file as a task; see WaybillClient.startUpload. In a batch, `pool` is the batch's
 * and `prepare` the batch's grant for this file.
 */
export function startUpload(
  ctx: UploadContext,
  file: Blob,
  options: UploadOptions,
  pool?: Pool,
  prepare: () => Promise<Issued> = async () =>
    (
      await issueSingles(
        ctx,
        singleMode(options),
        [await singleOf(file, options.origin, options)],
        options,
      )
    )[0]!,
): UploadTask {
  let body: TaskBody
  try {
    body = multipartFor(file.size, options)
      ? multipartBody(ctx, file, targetOf(file, options.origin, options), options)
      : singleBody(ctx, file, options, prepare)
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

/** Uploads many files as tasks; see WaybillClient.startUploads. */
export function startUploads(
  ctx: UploadContext,
  entries: readonly UploadEntry[],
  options: UploadManyOptions,
): UploadBatch & { failure: () => { error: unknown } | undefined } {
  const pool = createPool(options.concurrency ?? DEFAULT_FILE_CONCURRENCY)
  // Without continueOnError, one call for every PUT or POST (authorized all or nothing), once
  // each file is hashed (one after another: one file's bytes held at a time); with it, each file
  // asks for its own, so that a refusal is that file's alone.
  const singles = options.continueOnError
    ? []
    : entries.flatMap((entry, i) => (multipartFor(entry.file.size, options) ? [] : [i]))
  let issued: Promise<Issued[]> | undefined
  const issueAll = async () => {
    const items = []
    for (const i of singles) {
      throwIfAborted(options.signal)
      const { file, ...entry } = entries[i]!
      items.push(await singleOf(file, options.origin, { ...options, ...entry }))
    }
    return issueSingles(ctx, singleMode(options), items, options)
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

  let failure: { error: unknown } | undefined
  const stopped = new DOMException('Stopped: another file of the batch failed.', 'AbortError')
  const tasks: UploadTask[] = entries.map((entry, i) => {
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
      j < 0 ? undefined : async () => (await (issued ??= issueAll()))[j]!,
    )
    task.done.then(
      () => {
        loaded[i] = entry.file.size
        filesDone++
        report()
      },
      (error: unknown) => {
        // Without continueOnError, the first failure stops the rest (a multipart upload it stops
        // stays resumable).
        if (options.continueOnError || failure || task.status.state !== 'failed') return
        failure = { error }
        for (const other of tasks) (other as ReturnType<typeof createTask>).stop(stopped)
      },
    )
    return task
  })
  return {
    tasks,
    done: Promise.allSettled(tasks.map((task) => task.done)),
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
