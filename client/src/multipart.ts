// Multipart uploads, for upload() and the Uppy adapter alike: a session holds one upload's plan,
// its parts' SHA-256s (each computed once) and their signed URLs, signed in batches as parts
// need them; the body sends the missing parts through a pool and completes.

import { DEFAULT_PART_CONCURRENCY, PART_URL_BATCH, PREHASH_BYTES } from './constants.ts'
import { WaybillError } from './errors.ts'
import { sha256Base64 } from './hash.ts'
import type { CallOptions } from './http.ts'
import { partRange, partSizeFor, planFor, type PartPlan } from './plan.ts'
import { createPool } from './pool.ts'
import { fingerprintOf, resumeRecords, type ResumeRecord, type UploadTarget } from './resume.ts'
import { anySignal, throwIfAborted, type RetryPolicy } from './retry.ts'
import { signedNow, stale, type Signed } from './signed.ts'
import type { TaskBody } from './task.ts'
import { sendSigned } from './transfer.ts'
import type { ListPartsAnswer } from './types.ts'
import {
  badAnswer,
  named,
  withUrl,
  type UploadContext,
  type UploadOptions,
  type UploadResult,
} from './upload-common.ts'

/** The SHA-256 of each part, computed once when first asked for; `done` holds those known. */
function partHasher(file: Blob, plan: PartPlan) {
  const sums = new Map<number, Promise<string>>()
  const done = new Set<number>()
  const sumOf = (n: number): Promise<string> => {
    let sum = sums.get(n)
    if (sum === undefined) {
      sum = sha256Base64(file.slice(...partRange(plan, n)))
      sums.set(n, sum)
      void sum.then(
        () => done.add(n),
        () => sums.delete(n),
      )
    }
    return sum
  }
  return Object.assign(sumOf, { done })
}

/** One multipart upload being sent from `file`. */
export interface Session extends PartPlan {
  origin: string
  key: string
  uploadId: string
  /** Each part's URL signs its SHA-256 (the upload was created with partChecksums). */
  checksums: boolean
  sumOf: ReturnType<typeof partHasher>
  urls: Map<number, Signed>
  signing: Map<number, Promise<void>>
}

export const refOf = ({ origin, key, uploadId }: Session) => ({ origin, key, uploadId })

const session = (file: Blob, origin: string, plan: PartPlan, checksums: boolean): Session => ({
  origin,
  key: '',
  uploadId: '',
  ...plan,
  checksums,
  sumOf: partHasher(file, plan),
  urls: new Map(),
  signing: new Map(),
})

/**
 * Starts a multipart upload of `file`, with the client's plan (the checksums are of its parts):
 * the parts the first transfers send are hashed first, one after another (one part's bytes held
 * at a time), so their URLs come with the upload.
 */
export async function startSession(
  ctx: UploadContext,
  file: Blob,
  target: UploadTarget,
  options: Omit<UploadOptions, 'origin'>,
  call: CallOptions,
): Promise<Session> {
  const checksums = options.checksum !== false
  const s = session(
    file,
    target.origin,
    planFor(file.size, Math.max(options.partSize ?? 0, partSizeFor(file.size))),
    checksums,
  )
  const first = Math.min(
    s.partCount,
    Math.max(
      options.partConcurrency ?? DEFAULT_PART_CONCURRENCY,
      Math.floor(PREHASH_BYTES / s.partSize),
    ),
  )
  const partChecksums = []
  for (let n = 1; checksums && n <= first; n++) partChecksums.push(await s.sumOf(n))
  const grant = await ctx.calls.createUpload(
    {
      origin: target.origin,
      mode: 'multipart',
      ...named(target),
      contentType: target.contentType,
      contentLength: file.size,
      partSize: s.partSize,
      partChecksums: checksums ? partChecksums : undefined,
      metadata: options.metadata,
      expiresIn: options.expiresIn,
      overwrite: options.overwrite || undefined,
    },
    call,
  )
  if ('uploads' in grant || grant.mode !== 'multipart' || grant.partCount !== s.partCount) {
    throw badAnswer("waybill did not start this file's multipart upload.")
  }
  s.key = grant.key
  s.uploadId = grant.uploadId
  for (const part of grant.parts) {
    s.urls.set(part.partNumber, signedNow(ctx.http, part.url, grant.expiresAt))
  }
  return s
}

/** How a waybill call says a multipart upload is gone (completed, aborted, expired) or not ours. */
const GONE_STATUSES = [403, 404, 410]

const unquoted = (etag: string) => etag.replace(/^"(.*)"$/, '$1')

/**
 * The upload `ref` names, resumed with `file`: its session and the parts to keep, those the store
 * lists with the plan's size whose SHA-256 is this file's part's, or (stored without one) that
 * `recorded` holds as answered 2xx with the same ETag; without `recorded` (Uppy keeps no such
 * record), any part of the right size. Undefined when the upload is gone or not this file's (it
 * is then aborted: it could never complete with these bytes).
 */
export async function resumeSession(
  ctx: UploadContext,
  { origin, key, uploadId }: { origin: string; key: string; uploadId: string },
  file: Blob,
  recorded: ResumeRecord | undefined,
  call: CallOptions,
): Promise<{ session: Session; stored: Map<number, string> } | undefined> {
  const ref = { origin, key, uploadId }
  let listed: ListPartsAnswer
  try {
    listed = await ctx.calls.listParts(ref, call)
  } catch (error) {
    if (error instanceof WaybillError && GONE_STATUSES.includes(error.status)) return undefined
    throw error
  }
  const plan = planFor(file.size, listed.partSize)
  // (The record's fingerprint holds the file's size and type, and the upload was started for
  // them: its size is checked again, since a page may restore another file under an upload id.)
  if (listed.contentLength !== file.size || plan.partCount !== listed.partCount) {
    await ctx.calls.abortMultipart(ref, { retries: 0 }).catch(() => {})
    return undefined
  }
  const s = Object.assign(
    session(
      file,
      origin,
      plan,
      recorded?.checksums === true || listed.parts.some((p) => p.checksumSha256),
    ),
    { key, uploadId },
  )
  // A store may list a part whose transfer was cut off, zero-filled to its full length (versitygw
  // 1.8.0 does): a part stored with its checksum is whole (the store checked it); any other only
  // when this browser saw the bucket accept it.
  const record = recorded && new Map(recorded.parts?.map((p) => [p.partNumber, p.etag]))
  const stored = new Map<number, string>()
  for (const part of listed.parts) {
    const [start, end] = partRange(s, part.partNumber)
    if (part.partNumber > s.partCount || part.size !== end - start) continue
    const etag = record?.get(part.partNumber)
    const whole =
      part.checksumSha256 !== undefined
        ? part.checksumSha256 === (await s.sumOf(part.partNumber))
        : record === undefined ||
          (record.has(part.partNumber) &&
            (etag === undefined || unquoted(etag) === unquoted(part.etag)))
    if (whole) stored.set(part.partNumber, part.etag)
  }
  return { session: s, stored }
}

/**
 * Part `n`'s URL (and, with checksums, the SHA-256 it signs): the one held while fresh, else one
 * signed in a batch with the `upcoming` parts that need one too (with checksums, those hashed by
 * then). Concurrent callers share a batch.
 */
export async function partUrl(
  ctx: UploadContext,
  s: Session,
  n: number,
  afterFailure: boolean,
  upcoming: Iterable<number>,
  options: Pick<UploadOptions, 'expiresIn' | 'signal'>,
): Promise<{ url: string; checksum?: string | undefined }> {
  const checksum = s.checksums ? await s.sumOf(n) : undefined
  if (stale(s.urls.get(n), afterFailure)) {
    if (!s.signing.has(n)) {
      const numbers = [n]
      for (const m of upcoming) {
        if (numbers.length >= PART_URL_BATCH) break
        const ready = !s.checksums || s.sumOf.done.has(m)
        if (m !== n && ready && !s.signing.has(m) && stale(s.urls.get(m))) numbers.push(m)
      }
      numbers.sort((a, b) => a - b)
      const batch = (async () => {
        const answer = await ctx.calls.signParts(
          {
            ...refOf(s),
            partNumbers: numbers,
            checksums: s.checksums ? await Promise.all(numbers.map(s.sumOf)) : undefined,
            expiresIn: options.expiresIn,
          },
          // Part of one attempt to send a part: the attempts are its retries.
          { signal: options.signal, retries: 0 },
        )
        for (const part of answer.parts) {
          s.urls.set(part.partNumber, signedNow(ctx.http, part.url, answer.expiresAt))
        }
      })().finally(() => {
        for (const m of numbers) s.signing.delete(m)
      })
      for (const m of numbers) s.signing.set(m, batch)
    }
    await s.signing.get(n)
  }
  const url = s.urls.get(n)
  if (url === undefined) throw badAnswer(`waybill signed no URL for part ${n}.`)
  return { url: url.url, checksum }
}

/** Hashes `parts` one after another in the background, ahead of their transfers. */
export function hashAhead(s: Session, parts: Iterable<number>, signal: AbortSignal): void {
  if (!s.checksums) return
  void (async () => {
    for (const n of parts) {
      if (signal.aborted) return
      await s.sumOf(n)
    }
  })().catch(() => {})
}

/**
 * upload()'s multipart body: starts the upload, or resumes it from its record (after a reload)
 * or from where the last run stopped (a pause), sends the missing parts through a pool of
 * `partConcurrency`, and completes. A failed upload stays open and remembered to be resumed,
 * unless there is no record to resume it from; a cancelled one is aborted and forgotten.
 */
export function multipartBody(
  ctx: UploadContext,
  file: Blob,
  target: UploadTarget,
  options: Omit<UploadOptions, 'origin'>,
): TaskBody {
  const storage = options.storage ?? ctx.storage
  const records = resumeRecords(storage)
  const fingerprint = fingerprintOf(file, target)
  const resume = options.resume !== false && storage !== undefined
  // Part number → its ETag (undefined when the bucket's CORS rules hide it).
  const stored = new Map<number, string | undefined>()
  let s: Session | undefined
  let record: ResumeRecord | undefined
  let resumed = false
  let resumable = false
  let sent = 0
  const remember = () =>
    records.set({
      ...record!,
      parts: [...stored].map(([partNumber, etag]) => ({ partNumber, etag })),
    })

  return {
    async run(signal, report) {
      const policy: RetryPolicy = {
        retries: options.retries ?? ctx.http.retries,
        baseDelayMs: ctx.http.retryBaseDelayMs,
        signal,
      }
      const call = { signal, retries: policy.retries }
      if (s === undefined) {
        const known = resume ? records.get(fingerprint) : undefined
        const found = known && (await resumeSession(ctx, known, file, known, call))
        if (known && !found) records.delete(fingerprint)
        if (found) {
          for (const [n, etag] of found.stored) stored.set(n, etag)
          record = known
          resumed = true
        }
        s = found?.session ?? (await startSession(ctx, file, target, options, call))
        record ??= {
          ...refOf(s),
          partSize: s.partSize,
          fingerprint,
          startedAt: new Date().toISOString(),
          checksums: s.checksums,
        }
        // Without a record nothing could resume it: a failed upload is then aborted.
        resumable = resume && (resumed || remember())
      }
      const session = s

      // The first part that fails for good stops the others.
      const failed = anySignal([signal])
      // Bytes of each part sent (all of a stored one).
      const moved = new Map<number, number>()
      const size = (n: number) => {
        const [start, end] = partRange(session, n)
        return end - start
      }
      for (const n of stored.keys()) moved.set(n, size(n))
      const progress = () => {
        let loaded = 0
        for (const bytes of moved.values()) loaded += bytes
        report({ loaded, total: file.size, partsDone: stored.size, partCount: session.partCount })
      }
      // Parts not yet started, in order: the ones a URL batch signs ahead.
      const pending = new Set<number>()
      for (let n = 1; n <= session.partCount; n++) if (!stored.has(n)) pending.add(n)
      hashAhead(session, [...pending], failed.signal)

      const pool = createPool(options.partConcurrency ?? DEFAULT_PART_CONCURRENCY)
      const sendPart = async (n: number) => {
        throwIfAborted(failed.signal)
        pending.delete(n)
        const result = await sendSigned(
          ctx.http.fetch,
          { ...policy, signal: failed.signal },
          async (again) => {
            const { url, checksum } = await partUrl(ctx, session, n, again, pending, {
              expiresIn: options.expiresIn,
              signal: failed.signal,
            })
            return {
              method: 'PUT',
              url,
              headers: checksum === undefined ? undefined : { 'x-amz-checksum-sha256': checksum },
              body: file.slice(...partRange(session, n)),
              size: size(n),
              what: `part ${n}`,
            }
          },
          (loaded) => {
            moved.set(n, loaded)
            progress()
          },
        )
        stored.set(n, result!.etag)
        // A record that fails to follow only makes a later resume send this part again.
        if (resumable) remember()
        sent++
        progress()
      }

      try {
        progress()
        await Promise.all(
          [...pending].map((n) =>
            pool(() => sendPart(n)).catch((error: unknown) => {
              failed.abort(error)
              throw error
            }),
          ),
        )
      } finally {
        failed.dispose()
      }
      const parts = [...stored]
        .sort(([a], [b]) => a - b)
        .map(([partNumber, etag]) => ({ partNumber, etag }))
      // Without every ETag (CORS rules that hide it), waybill completes from the store's list.
      const known = parts.every(
        (p): p is { partNumber: number; etag: string } => p.etag !== undefined,
      )
      const done = await ctx.calls.completeMultipart(
        known ? { ...refOf(session), parts } : refOf(session),
        call,
      )
      records.delete(fingerprint)
      const result: UploadResult = {
        ...done,
        mode: 'multipart',
        partCount: session.partCount,
        partsSent: sent,
        resumed,
      }
      return withUrl(ctx, result, options, call)
    },
    async drop(cancelled) {
      if (s === undefined || (!cancelled && resumable)) return
      await ctx.calls.abortMultipart(refOf(s), { retries: 1 }).catch(() => {})
      records.delete(fingerprint)
    },
  }
}
