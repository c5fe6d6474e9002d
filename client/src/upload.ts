// upload() and uploadMany(): a file straight to the bucket by PUT, POST form or multipart, with
// progress, retries, URLs signed again before they expire, the completion check, and multipart
// uploads that survive a reload.

import type { UploadCalls } from './calls.ts'
import {
  DEFAULT_FILE_CONCURRENCY,
  DEFAULT_MULTIPART_THRESHOLD_BYTES,
  DEFAULT_PART_CONCURRENCY,
  FRESH_URL_MS,
  MAX_HASHED_PUT_BYTES,
  MIN_URL_LIFE_MS,
  PART_URL_BATCH,
  partSizeFor,
  PREHASH_BYTES,
} from './constants.ts'
import { WaybillError } from './errors.ts'
import { sha256Base64 } from './hash.ts'
import type { CallOptions, Http } from './http.ts'
import {
  fingerprintOf,
  resumeRecords,
  type ResumeRecord,
  type ResumeStorage,
  type UploadTarget,
} from './resume.ts'
import { anySignal, throwIfAborted, withRetries, type RetryPolicy } from './retry.ts'
import { isExpiredRefusal, transfer } from './transfer.ts'
import type { MultipartGrant, PostGrant, PutGrant, UploadGrant } from './types.ts'

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
  /** Multipart: bytes per part (at least 5 MiB). Default: waybill's choice. */
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
  /** Progress over all files together. */
  onProgress?:
    ((progress: UploadProgress & { filesDone: number; files: number }) => void) | undefined
}

/** What the upload functions share: the client's connection, calls and resume records. */
export interface UploadContext {
  http: Http
  calls: UploadCalls
  storage: ResumeStorage | undefined
}

interface Target extends UploadTarget {
  /** The name a POST form gives the file. */
  formName: string
}

type SingleGrant = PutGrant | PostGrant

/** A signed URL, and when it was received and stops working on this machine's clock. */
interface Signed {
  url: string
  receivedAt: number
  deadline: number
}

const invalidArgument = (message: string) => new WaybillError('invalid_argument', message)
const badAnswer = (message: string) => new WaybillError('bad_answer', message)

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

const named = (target: UploadTarget) =>
  target.key === undefined ? { filename: target.filename } : { key: target.key }

/** True when waybill refused `mode: "post"` because the origin's store takes no POST uploads. */
const postRefused = (error: unknown) =>
  error instanceof WaybillError &&
  error.code === 'invalid_request' &&
  error.errors.some((e) => e.path === 'mode')

/**
 * True when a URL should be signed again before a transfer: a transfer with it failed (an expired
 * URL often fails as a CORS error: a store's 403 carries no CORS headers), or it has less than a
 * minute left. A URL received a moment ago counts as fresh whatever its stated life, so a short
 * grant or a skewed clock cannot make this loop.
 */
function stale(signed: Signed, afterFailure: boolean): boolean {
  if (afterFailure) return true
  const now = Date.now()
  return now - signed.receivedAt >= FRESH_URL_MS && signed.deadline - now < MIN_URL_LIFE_MS
}

/**
 * PUT URLs or POST policies for `items` (one call, `items` when more than one); a store without
 * POST uploads gets PUTs instead.
 */
async function issueSingles(
  ctx: UploadContext,
  mode: 'put' | 'post',
  items: ReadonlyArray<{ target: UploadTarget; size: number; extra?: Record<string, unknown> }>,
  options: UploadManyOptions,
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

/**
 * Sends a file with its PUT URL or POST policy (retrying, and issuing a new one when it is about
 * to expire or a transfer failed), then checks the stored object against the receipt.
 */
async function sendSingle(
  ctx: UploadContext,
  file: Blob,
  target: Target,
  first: SingleGrant,
  receivedAt: number,
  policy: RetryPolicy,
  options: UploadManyOptions,
  extra: Record<string, unknown> | undefined,
  onLoaded: (loaded: number) => void,
): Promise<UploadResult> {
  let grant = first
  let signed: Signed = { url: grant.url, receivedAt, deadline: ctx.http.localTime(grant.expiresAt) }
  const key = grant.key
  if (key === undefined) throw badAnswer('waybill answered an upload without its key.')
  // The key is now fixed (a grant's uploadKey chose it once): a new URL is asked for that key.
  const fixed: UploadTarget = { ...target, key, filename: undefined }
  const what = grant.mode === 'post' ? 'the POST form' : 'the PUT'
  // A retry's 412 (no overwrite) may meet the object its own attempt stored before the answer was
  // lost: the completion check then decides whether it is this upload's.
  let precondition: WaybillError | undefined
  const sent = await withRetries(policy, async (attempt) => {
    for (let expired = false; ;) {
      if (stale(signed, attempt > 0 || expired)) {
        // Part of one attempt: the attempts are its retries.
        const [fresh] = await issueSingles(
          ctx,
          grant.mode,
          [{ target: fixed, size: file.size, extra }],
          { ...options, signal: policy.signal, retries: 0 },
        )
        if (fresh === undefined) throw badAnswer('waybill answered no upload.')
        grant = fresh
        signed = {
          url: grant.url,
          receivedAt: Date.now(),
          deadline: ctx.http.localTime(grant.expiresAt),
        }
      }
      const current = grant
      let body: Blob | FormData = file
      if (current.mode === 'post') {
        const form = new FormData()
        for (const [name, value] of Object.entries(current.fields)) form.append(name, value)
        // S3 ignores every field after the file, so it goes last.
        form.append('file', file, target.formName)
        body = form
      }
      try {
        onLoaded(0)
        return await transfer(ctx.http.fetch, {
          method: current.method,
          url: current.url,
          headers: current.mode === 'put' ? current.headers : undefined,
          body,
          size: file.size,
          what,
          signal: policy.signal,
          onProgress: onLoaded,
        })
      } catch (error) {
        onLoaded(0)
        if (attempt > 0 && error instanceof WaybillError && error.status === 412) {
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
      { signal: policy.signal, retries: policy.retries },
    )
    if (precondition !== undefined) onLoaded(file.size)
    return { ...stored }
  } catch (error) {
    // Another object than this upload's: the store's refusal stands.
    if (precondition !== undefined && error instanceof WaybillError && !error.retryable) {
      throw precondition
    }
    throw error
  }
}

const essence = (type: string) => type.split(';')[0]!.trim().toLowerCase()

interface Plan {
  key: string
  uploadId: string
  partSize: number
  partCount: number
  urls: Map<number, Signed>
  /** Each part's URL signs its SHA-256 (the upload was created with partChecksums). */
  checksums: boolean
  /** The parts' SHA-256s, each computed once. */
  sumOf: PartHasher
}

type PartHasher = ReturnType<typeof partHasher>

/**
 * The SHA-256 of each part of `file`, computed once when first asked for; `done` holds the parts
 * whose sums are known.
 */
function partHasher(file: Blob, partSize: number) {
  const sums = new Map<number, Promise<string>>()
  const done = new Set<number>()
  const sumOf = (n: number): Promise<string> => {
    let sum = sums.get(n)
    if (sum === undefined) {
      const start = (n - 1) * partSize
      sum = sha256Base64(file.slice(start, Math.min(start + partSize, file.size)))
      sums.set(n, sum)
      void sum.then(() => done.add(n)).catch(() => {})
    }
    return sum
  }
  return Object.assign(sumOf, { done })
}

/** Parts hashed before a multipart upload starts: its first PREHASH_BYTES, or what runs at once. */
const prehashed = (partCount: number, partSize: number, concurrency: number) =>
  Math.min(partCount, Math.max(concurrency, Math.floor(PREHASH_BYTES / partSize)))

const partBounds = (plan: Pick<Plan, 'partSize'>, size: number, n: number) => {
  const start = (n - 1) * plan.partSize
  return { start, end: Math.min(start + plan.partSize, size) }
}

/** Checks that waybill's part plan covers the file exactly. */
function checkPlan(plan: Pick<Plan, 'partSize' | 'partCount'>, size: number): void {
  const { partSize, partCount } = plan
  if (
    !(partSize > 0) ||
    !(partCount > 0) ||
    partCount * partSize < size ||
    (partCount - 1) * partSize >= Math.max(size, 1)
  ) {
    throw badAnswer(`waybill's part plan (${partCount} × ${partSize} bytes) does not fit the file.`)
  }
}

/** How a waybill call says a multipart upload is gone (completed, aborted, expired) or not ours. */
const GONE_STATUSES: ReadonlySet<number> = new Set([403, 404, 410])

const unquoted = (etag: string) => etag.replace(/^"(.*)"$/, '$1')

/**
 * The upload a record names, if it can still be finished with this file: its plan and the parts
 * to keep, those the store lists with the right size that the record holds as stored, with the
 * same ETag (any other is sent again). Undefined, and the record forgotten, when the upload is
 * gone (completed, aborted, expired) or not this caller's; any other failure is thrown, and the
 * record kept for a later try.
 */
async function resumePlan(
  ctx: UploadContext,
  record: ResumeRecord,
  file: Blob,
  target: UploadTarget,
  policy: RetryPolicy,
  stored: Map<number, string | undefined>,
): Promise<Plan | undefined> {
  const records = resumeRecords(ctx.storage)
  const ref = { origin: record.origin, key: record.key, uploadId: record.uploadId }
  let listed
  try {
    listed = await ctx.calls.listParts(ref, { signal: policy.signal, retries: policy.retries })
  } catch (error) {
    if (error instanceof WaybillError && GONE_STATUSES.has(error.status)) {
      records.delete(record.fingerprint)
      return undefined
    }
    throw error
  }
  const plan: Plan = {
    ...ref,
    partSize: listed.partSize,
    partCount: listed.partCount,
    urls: new Map(),
    checksums: record.checksums === true || listed.parts.some((p) => p.checksumSha256),
    sumOf: partHasher(file, listed.partSize),
  }
  if (
    listed.contentLength !== file.size ||
    listed.partSize !== record.partSize ||
    essence(listed.contentType) !== essence(target.contentType)
  ) {
    // Not this file's upload after all: it can never complete with these bytes.
    await ctx.calls.abortMultipart(ref, { retries: 0 }).catch(() => {})
    records.delete(record.fingerprint)
    return undefined
  }
  checkPlan(plan, file.size)
  // A store may list a part whose transfer was cut off, zero-filled to its full length (versitygw
  // 1.8.0 does): only parts the bucket answered 2xx for here are kept. One recorded without an
  // ETag (the bucket's CORS rules hid it) is kept on its number and size.
  // A part stored with its checksum is whole (the store checked it): kept when it is this file's.
  const recorded = new Map(record.parts?.map((p) => [p.partNumber, p.etag]))
  const { sumOf } = plan
  for (const part of listed.parts) {
    const { start, end } = partBounds(plan, file.size, part.partNumber)
    const etag = recorded.get(part.partNumber)
    if (part.partNumber > plan.partCount || part.size !== end - start) continue
    const whole =
      part.checksumSha256 !== undefined
        ? part.checksumSha256 === (await sumOf(part.partNumber))
        : recorded.has(part.partNumber) &&
          (etag === undefined || unquoted(etag) === unquoted(part.etag))
    if (whole) stored.set(part.partNumber, part.etag)
  }
  return plan
}

async function startMultipart(
  ctx: UploadContext,
  file: Blob,
  target: UploadTarget,
  options: UploadOptions,
  policy: RetryPolicy,
): Promise<Plan> {
  // With checksums the plan is the client's (the checksums are of its parts): the parts the
  // first workers send are hashed before the upload starts, the others as they go.
  const checksums = options.checksum !== false
  const partSize = options.partSize ?? (checksums ? partSizeFor(file.size) : undefined)
  let partChecksums: string[] | undefined
  const sumOf = partSize === undefined ? undefined : partHasher(file, partSize)
  if (checksums && sumOf !== undefined && partSize !== undefined) {
    const first = prehashed(
      Math.max(1, Math.ceil(file.size / partSize)),
      partSize,
      options.partConcurrency ?? DEFAULT_PART_CONCURRENCY,
    )
    // One after another: at most one part's bytes are held at a time.
    partChecksums = []
    for (let n = 1; n <= first; n++) partChecksums.push(await sumOf(n))
  }
  const answer = await ctx.calls.createUpload(
    {
      origin: target.origin,
      mode: 'multipart',
      ...named(target),
      contentType: target.contentType,
      contentLength: file.size,
      partSize,
      partChecksums,
      metadata: options.metadata,
      expiresIn: options.expiresIn,
      overwrite: options.overwrite || undefined,
    },
    { signal: policy.signal, retries: policy.retries },
  )
  if ('uploads' in answer || answer.mode !== 'multipart') {
    throw badAnswer('waybill did not answer a multipart upload.')
  }
  const grant: MultipartGrant = answer
  const receivedAt = Date.now()
  const deadline = ctx.http.localTime(grant.expiresAt)
  const plan: Plan = {
    key: grant.key,
    uploadId: grant.uploadId,
    partSize: grant.partSize,
    partCount: grant.partCount,
    urls: new Map(grant.parts.map((p) => [p.partNumber, { url: p.url, receivedAt, deadline }])),
    checksums: partChecksums !== undefined,
    sumOf:
      sumOf !== undefined && grant.partSize === partSize ? sumOf : partHasher(file, grant.partSize),
  }
  checkPlan(plan, file.size)
  return plan
}

/**
 * A multipart upload, resumed from its record when there is one. `cancel` is the caller's own
 * signal: when it aborts, the upload is aborted and forgotten; when only `policy.signal` does (a
 * sibling file of a batch failed), or a part fails, it stays resumable.
 */
async function uploadMultipart(
  ctx: UploadContext,
  file: Blob,
  target: Target,
  options: UploadOptions,
  policy: RetryPolicy,
  cancel: AbortSignal | undefined,
): Promise<UploadResult> {
  const storage = options.storage ?? ctx.storage
  const records = resumeRecords(storage)
  const resume = options.resume !== false && storage !== undefined
  const fingerprint = fingerprintOf(file, target)
  // Part number → its ETag (undefined when the bucket's CORS rules hide it).
  const stored = new Map<number, string | undefined>()
  const record = resume ? records.get(fingerprint) : undefined
  const resumedPlan =
    record === undefined
      ? undefined
      : await resumePlan({ ...ctx, storage }, record, file, target, policy, stored)
  const plan = resumedPlan ?? (await startMultipart(ctx, file, target, options, policy))
  const remembered: ResumeRecord =
    record !== undefined && resumedPlan !== undefined
      ? record
      : {
          origin: target.origin,
          key: plan.key,
          uploadId: plan.uploadId,
          partSize: plan.partSize,
          fingerprint,
          startedAt: new Date().toISOString(),
          checksums: plan.checksums,
        }
  const remember = () =>
    records.set({
      ...remembered,
      parts: [...stored].map(([partNumber, etag]) => ({ partNumber, etag })),
    })
  // Without a record nothing could resume it: a failed upload is then aborted, not left behind.
  const resumable = resume && (resumedPlan !== undefined || remember())
  const ref = { origin: target.origin, key: plan.key, uploadId: plan.uploadId }

  // The first part that fails for good stops the others.
  const failed = new AbortController()
  const linked = anySignal([policy.signal, failed.signal])
  const partPolicy = { ...policy, signal: linked.signal }

  const todo = Array.from({ length: plan.partCount }, (_, i) => i + 1).filter((n) => !stored.has(n))
  const sending = new Map<number, number>()
  let storedBytes = 0
  for (const n of stored.keys()) {
    const { start, end } = partBounds(plan, file.size, n)
    storedBytes += end - start
  }
  const report = () => {
    let loaded = storedBytes
    for (const bytes of sending.values()) loaded += bytes
    options.onProgress?.({
      loaded,
      total: file.size,
      partsDone: stored.size,
      partCount: plan.partCount,
    })
  }

  // Part URLs are asked for in batches shared by the workers: the part a worker needs and the next
  // ones of the queue without a usable URL. With checksums, a part's URL signs its SHA-256, so
  // each is asked for once its part is hashed.
  const signing = new Map<number, Promise<void>>()
  const { sumOf } = plan
  let next = 0
  const urlFor = async (n: number, afterFailure: boolean): Promise<string> => {
    const have = plan.urls.get(n)
    if (have !== undefined && !stale(have, afterFailure)) return have.url
    // Its URL signs its checksum; the batch takes the parts hashed by then.
    if (plan.checksums) await sumOf(n)
    if (!signing.has(n)) {
      const numbers = [n]
      for (let i = next; i < todo.length && numbers.length < PART_URL_BATCH; i++) {
        const m = todo[i]!
        const url = plan.urls.get(m)
        const ready = !plan.checksums || sumOf.done.has(m)
        if (m !== n && ready && !signing.has(m) && (url === undefined || stale(url, false))) {
          numbers.push(m)
        }
      }
      numbers.sort((a, b) => a - b)
      const checksums = plan.checksums ? await Promise.all(numbers.map(sumOf)) : undefined
      const batch = ctx.calls
        .signParts(
          { ...ref, partNumbers: numbers, checksums, expiresIn: options.expiresIn },
          // Part of one attempt to send a part: the attempts are its retries.
          { signal: partPolicy.signal, retries: 0 },
        )
        .then((answer) => {
          const receivedAt = Date.now()
          const deadline = ctx.http.localTime(answer.expiresAt)
          for (const part of answer.parts) {
            plan.urls.set(part.partNumber, { url: part.url, receivedAt, deadline })
          }
        })
        .finally(() => {
          for (const m of numbers) signing.delete(m)
        })
      for (const m of numbers) signing.set(m, batch)
    }
    await signing.get(n)
    const url = plan.urls.get(n)
    if (url === undefined) throw badAnswer(`waybill signed no URL for part ${n}.`)
    return url.url
  }

  // With checksums the parts still to send are hashed in the background, ahead of their transfers.
  if (plan.checksums) {
    void (async () => {
      for (const n of todo) {
        if (partPolicy.signal.aborted) return
        await sumOf(n)
      }
    })().catch(() => {})
  }

  let sent = 0
  const worker = async () => {
    while (next < todo.length) {
      throwIfAborted(partPolicy.signal)
      const n = todo[next++]!
      const { start, end } = partBounds(plan, file.size, n)
      const blob = file.slice(start, end)
      const result = await withRetries(partPolicy, async (attempt) => {
        for (let expired = false; ;) {
          const url = await urlFor(n, attempt > 0 || expired)
          try {
            return await transfer(ctx.http.fetch, {
              method: 'PUT',
              url,
              headers: plan.checksums ? { 'x-amz-checksum-sha256': await sumOf(n) } : undefined,
              body: blob,
              size: end - start,
              what: `part ${n}`,
              signal: partPolicy.signal,
              onProgress: (loaded) => {
                sending.set(n, loaded)
                report()
              },
            })
          } catch (error) {
            sending.delete(n)
            report()
            if (expired || !isExpiredRefusal(error)) throw error
            expired = true
          }
        }
      })
      sending.delete(n)
      stored.set(n, result.etag)
      // A record that fails to follow only makes a later resume send this part again.
      if (resumable) remember()
      storedBytes += end - start
      sent++
      report()
    }
  }

  try {
    report()
    const workers = Array.from(
      {
        length: Math.max(
          1,
          Math.min(options.partConcurrency ?? DEFAULT_PART_CONCURRENCY, todo.length),
        ),
      },
      () =>
        worker().catch((error: unknown) => {
          failed.abort(error)
          throw error
        }),
    )
    await Promise.all(workers)
    const parts = [...stored.entries()]
      .sort(([a], [b]) => a - b)
      .map(([partNumber, etag]) => ({ partNumber, etag }))
    // Without every ETag (CORS rules that do not expose it), waybill completes from the store's list.
    const known = parts.every(
      (p): p is { partNumber: number; etag: string } => p.etag !== undefined,
    )
    const done = await ctx.calls.completeMultipart(known ? { ...ref, parts } : ref, {
      signal: policy.signal,
      retries: policy.retries,
    })
    records.delete(fingerprint)
    return {
      ...done,
      mode: 'multipart',
      partCount: plan.partCount,
      partsSent: sent,
      resumed: resumedPlan !== undefined,
    }
  } catch (error) {
    if (cancel?.aborted || !resumable) {
      // Cancelled (or not resumable): the upload and its parts are dropped, not kept for later.
      await ctx.calls.abortMultipart(ref, { retries: 1 }).catch(() => {})
      records.delete(fingerprint)
    }
    throwIfAborted(policy.signal)
    throw error
  } finally {
    linked.dispose()
  }
}

const retryPolicy = (ctx: UploadContext, options: CallOptions): RetryPolicy => ({
  retries: options.retries ?? ctx.http.retries,
  baseDelayMs: ctx.http.retryBaseDelayMs,
  signal: options.signal,
})

const multipartFor = (size: number, options: Pick<UploadOptions, 'mode' | 'multipartThreshold'>) =>
  options.mode === 'multipart' ||
  ((options.mode ?? 'auto') === 'auto' &&
    size >= (options.multipartThreshold ?? DEFAULT_MULTIPART_THRESHOLD_BYTES))

/** A file's SHA-256 for a PUT or POST, unless checksums are off or it is too large to hash whole. */
function checksumOf(file: Blob, options: Pick<UploadOptions, 'checksum'>) {
  if (options.checksum === false || file.size > MAX_HASHED_PUT_BYTES) return undefined
  return sha256Base64(file)
}

/** Uploads one file; see WaybillClient.upload. */
export async function upload(
  ctx: UploadContext,
  file: Blob,
  options: UploadOptions,
): Promise<UploadResult> {
  throwIfAborted(options.signal)
  const target = targetOf(file, options.origin, options)
  const policy = retryPolicy(ctx, options)
  if (multipartFor(file.size, options)) {
    return uploadMultipart(ctx, file, target, options, policy, options.signal)
  }
  const extra = {
    metadata: options.metadata,
    checksumSha256: options.checksumSha256 ?? (await checksumOf(file, options)),
    overwrite: options.overwrite || undefined,
  }
  const [grant] = await issueSingles(
    ctx,
    options.mode === 'post' ? 'post' : 'put',
    [{ target, size: file.size, extra }],
    options,
  )
  const receivedAt = Date.now()
  const report = (loaded: number) => options.onProgress?.({ loaded, total: file.size })
  return sendSingle(ctx, file, target, grant!, receivedAt, policy, options, extra, report)
}

/** Uploads many files; see WaybillClient.uploadMany. */
export async function uploadMany(
  ctx: UploadContext,
  entries: readonly UploadEntry[],
  options: UploadManyOptions,
): Promise<UploadResult[]> {
  throwIfAborted(options.signal)
  if (entries.length === 0) return []
  const targets = entries.map((entry) => targetOf(entry.file, options.origin, entry))
  const multipart = entries.map((entry) => multipartFor(entry.file.size, options))
  // Hashed one after another: at most one file's bytes are held at a time.
  const singles: { i: number; target: Target; size: number; extra: Record<string, unknown> }[] = []
  for (const [i, entry] of entries.entries()) {
    if (multipart[i]) continue
    const checksumSha256 = await checksumOf(entry.file, options)
    throwIfAborted(options.signal)
    singles.push({
      i,
      target: targets[i]!,
      size: entry.file.size,
      extra: {
        metadata: entry.metadata,
        checksumSha256,
        overwrite: options.overwrite || undefined,
      },
    })
  }

  const failed = new AbortController()
  const linked = anySignal([options.signal, failed.signal])
  const policy = { ...retryPolicy(ctx, options), signal: linked.signal }
  const total = entries.reduce((sum, entry) => sum + entry.file.size, 0)
  const loaded = new Array<number>(entries.length).fill(0)
  let filesDone = 0
  const report = () =>
    options.onProgress?.({
      loaded: loaded.reduce((a, b) => a + b, 0),
      total,
      filesDone,
      files: entries.length,
    })

  try {
    // One call for every PUT or POST, authorized all or nothing.
    const grants =
      singles.length === 0
        ? []
        : await issueSingles(ctx, options.mode === 'post' ? 'post' : 'put', singles, {
            ...options,
            signal: linked.signal,
          })
    const receivedAt = Date.now()
    const grantOf = new Map(singles.map((single, j) => [single.i, grants[j]!]))
    const results = new Array<UploadResult>(entries.length)
    let next = 0
    const worker = async () => {
      while (next < entries.length) {
        throwIfAborted(linked.signal)
        const i = next++
        const entry = entries[i]!
        const onLoaded = (bytes: number) => {
          loaded[i] = bytes
          report()
        }
        const grant = grantOf.get(i)
        results[i] =
          grant === undefined
            ? await uploadMultipart(
                ctx,
                entry.file,
                targets[i]!,
                {
                  ...options,
                  metadata: entry.metadata,
                  signal: linked.signal,
                  onProgress: (p) => onLoaded(p.loaded),
                },
                policy,
                options.signal,
              )
            : await sendSingle(
                ctx,
                entry.file,
                targets[i]!,
                grant,
                receivedAt,
                policy,
                options,
                singles.find((single) => single.i === i)?.extra,
                onLoaded,
              )
        loaded[i] = entry.file.size
        filesDone++
        report()
      }
    }
    const concurrency = Math.max(
      1,
      Math.min(options.concurrency ?? DEFAULT_FILE_CONCURRENCY, entries.length),
    )
    await Promise.all(
      Array.from({ length: concurrency }, () =>
        worker().catch((error: unknown) => {
          failed.abort(error)
          throw error
        }),
      ),
    )
    return results
  } catch (error) {
    throwIfAborted(options.signal)
    throw error
  } finally {
    linked.dispose()
  }
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
