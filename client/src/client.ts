// createClient: one object holding the caller's credential, with a method per job.

import { uploadCalls, type UploadCalls } from './calls.ts'
import { createHttp, type CallOptions, type ClientOptions } from './http.ts'
import { register } from './context.ts'
import { defaultStorage, type ResumeRecord, type ResumeStorage } from './resume.ts'
import type {
  LinksAnswer,
  LinksRequest,
  ListedObject,
  ListPage,
  SignAnswer,
  SignRequest,
} from './types.ts'
import { renewAt } from './signed.ts'
import type { UploadTask } from './task.ts'
import {
  discardResumable,
  findResumable,
  startUpload,
  startUploads,
  uploadMany,
  type UploadBatch,
  type UploadEntry,
  type UploadManyOptions,
} from './upload.ts'
import type { UploadContext, UploadOptions, UploadResult } from './upload-common.ts'

/** Options of `createClient`, with where resumable uploads are remembered. */
export interface WaybillClientOptions extends ClientOptions {
  /** Where resumable multipart uploads are remembered. Default: localStorage, where there is one. */
  storage?: ResumeStorage | undefined
}

/** Options of a listing. */
export interface ListOptions extends CallOptions {
  /** One prefix, or several listed in order (up to 50); the whole bucket when absent. */
  prefix?: string | readonly string[] | undefined
  /** Groups keys into common prefixes at this string (`'/'`): a folder view. */
  delimiter?: string | undefined
  /** Entries per page (objects and common prefixes), 1 to 10,000. Default: waybill's (1,000). */
  limit?: number | undefined
  /** Where to start: a `cursor` from an earlier page. */
  cursor?: string | undefined
  /** Seconds each URL lives (capped by the grant). */
  expiresIn?: number | undefined
  /** Seconds of waybill's signing window (see the README's "Stable URLs"). */
  signingWindow?: number | undefined
  /**
   * The browser's HTTP cache for each page. Default `'no-cache'`: a page is revalidated (304 when
   * unchanged), so an upload shows in the next listing.
   */
  cache?: RequestCache | undefined
}

/** A client for one waybill; see `createClient`. */
export interface WaybillClient extends UploadCalls {
  /**
   * `POST /v1/sign`: signed URLs for `keys`, or `items` with per-object options, all or none.
   *
   * @example
   * const { urls } = await client.sign({ origin: 'photos', keys: ['a.jpg', 'b/c d.png'] })
   */
  sign(request: SignRequest, options?: CallOptions): Promise<SignAnswer>
  /**
   * `GET /v1/list/{origin}`: every object under the prefixes, each with a signed `url` where the
   * caller may read it, across as many pages as it takes (leave the loop to stop).
   *
   * @example
   * for await (const object of client.list('photos', { prefix: 'gallery/' })) {
   *   gallery.append(Object.assign(new Image(), { src: object.url, alt: object.key }))
   * }
   */
  list(origin: string, options?: ListOptions): AsyncGenerator<ListedObject, void, undefined>
  /**
   * `GET /v1/list/{origin}`, a page at a time: with `delimiter`, each page's `prefixes` are its
   * folders; `cursor` (null at the end) continues it later.
   *
   * @example
   * const first = await client.listPages('photos', { prefix: 'gallery/', limit: 50 }).next()
   * const more = first.value?.cursor // give back as `cursor` for the next page
   */
  listPages(origin: string, options?: ListOptions): AsyncGenerator<ListPage, void, undefined>
  /**
   * `POST /v1/links`: signed links anyone holding them may follow until they expire (each visit
   * redirects to a freshly signed URL), or `maxUses` times (1: a one-time link).
   *
   * @example
   * const { links } = await client.links({
   *   origin: 'photos', expiresIn: 7 * 86400, items: [{ key: 'reports/2026.pdf', download: true }],
   * })
   * const once = await client.links({ origin: 'photos', keys: ['invoice.pdf'], maxUses: 1 })
   */
  links(request: LinksRequest, options?: CallOptions): Promise<LinksAnswer>
  /**
   * Uploads a file straight to the bucket and resolves to the stored object, as waybill checked
   * it: one PUT (or a POST form) below `multipartThreshold` (16 MiB), a multipart upload with
   * `partConcurrency` parts in flight from there. Network errors, 429 and 5xx are retried with
   * backoff; URLs about to expire are signed again. A multipart upload is remembered until it
   * completes: uploading the same file again (after a reload) sends only the missing parts.
   * `signal` cancels it (a multipart upload is then aborted and forgotten). Errors are
   * WaybillError, whose `message` is waybill's explanation. `startUpload()` is the same upload
   * with pause and resume.
   *
   * @example
   * const stored = await client.upload(input.files[0], {
   *   origin: 'photos',
   *   key: `uploads/${input.files[0].name}`,
   *   onProgress: ({ loaded, total }) => (progress.value = loaded / total),
   *   signal: controller.signal,
   * })
   */
  upload(file: Blob, options: UploadOptions): Promise<UploadResult>
  /**
   * `upload()` as a task that can be paused (a multipart upload stays open, its stored parts
   * kept), resumed (only the missing parts are sent) and cancelled (a multipart upload is
   * aborted); `task.done` is what `upload()` answers.
   *
   * @example
   * const task = client.startUpload(file, { origin: 'photos', key: `videos/${file.name}` })
   * task.subscribe(({ state, progress }) => show(state, progress.loaded / progress.total))
   * pauseButton.onclick = () => task.pause()
   * resumeButton.onclick = () => task.resume()
   * const stored = await task.done
   */
  startUpload(file: Blob, options: UploadOptions): UploadTask
  /**
   * Uploads many files: the PUT URLs (or POST forms) for all of them in one call, authorized all
   * or nothing; files from `multipartThreshold` up go as multipart uploads, `concurrency` files
   * at once. `onFileProgress` tells each file's progress. The first failure stops the rest and
   * rejects; with `continueOnError`, every file is tried (the ones a refusal names fail, the others
   * are asked for again) and it resolves to each file's outcome, as `Promise.allSettled` does.
   *
   * @example
   * const outcomes = await client.uploadMany(
   *   [...input.files].map((file) => ({ file })), // keys chosen by the grant's uploadKey
   *   { origin: 'photos', continueOnError: true, onFileProgress: (i, p) => bars[i].update(p) },
   * )
   * outcomes.forEach((o, i) => (rows[i].textContent = o.status === 'fulfilled' ? o.value.key : o.reason.message))
   */
  uploadMany(
    entries: readonly UploadEntry[],
    options: UploadManyOptions & { continueOnError: true },
  ): Promise<PromiseSettledResult<UploadResult>[]>
  uploadMany(entries: readonly UploadEntry[], options: UploadManyOptions): Promise<UploadResult[]>
  /**
   * `uploadMany()` as a task per file, each with its own progress, state, pause, resume and
   * cancel, and the batch's `done`: each file's outcome, in order.
   *
   * @example
   * const batch = client.startUploads(entries, { origin: 'photos', continueOnError: true })
   * batch.tasks.forEach((task, i) => task.subscribe((status) => rows[i].render(status)))
   * const outcomes = await batch.done
   */
  startUploads(entries: readonly UploadEntry[], options: UploadManyOptions): UploadBatch
  /**
   * The remembered multipart upload of this file, if an earlier `upload()` of it was interrupted:
   * uploading it again resumes it. Takes the `upload()` options that name the destination.
   *
   * @example
   * if (client.resumableUpload(file, { origin: 'photos', key })) note('Upload resumes where it stopped.')
   */
  resumableUpload(
    file: Blob,
    options: Pick<UploadOptions, 'origin' | 'key' | 'filename' | 'contentType' | 'storage'>,
  ): ResumeRecord | undefined
  /**
   * Aborts the remembered multipart upload of this file (its parts are dropped from the bucket)
   * and forgets it. Resolves to false when there was none.
   *
   * @example
   * await client.discardUpload(file, { origin: 'photos', key })
   */
  discardUpload(
    file: Blob,
    options: Pick<UploadOptions, 'origin' | 'key' | 'filename' | 'contentType' | 'storage'> &
      CallOptions,
  ): Promise<boolean>
  /**
   * When URLs waybill says expire at `expiresAt` (its clock) should be signed again, on this
   * machine's clock (ms since the epoch): a minute before they expire.
   *
   * @example
   * setTimeout(refreshGallery, client.renewAt(page.expiresAt) - Date.now())
   */
  renewAt(expiresAt: string): number
}

/** The query of `GET /v1/list/{origin}` for `options`. */
export function listQuery(options: ListOptions) {
  const { prefix } = options
  return {
    prefix: typeof prefix === 'string' ? [prefix] : prefix,
    delimiter: options.delimiter,
    limit: options.limit,
    cursor: options.cursor,
    expiresIn: options.expiresIn,
    signingWindow: options.signingWindow,
  }
}

/**
 * A client for the waybill at `baseUrl`. The credential comes from `auth`, asked for before each
 * request and sent as `Authorization: Bearer …` (never in a URL); with `credentials: 'include'`,
 * cookies authenticate instead (Cloudflare Access, or the JWT cookie on redirects).
 *
 * @example
 * import { createClient } from 'waybill-client'
 *
 * const waybill = createClient({
 *   baseUrl: 'https://waybill.example.com',
 *   auth: async () => (await session.getToken()) ?? undefined, // refreshed as needed
 * })
 * const { urls } = await waybill.sign({ origin: 'photos', keys: ['gallery/cat.jpg'] })
 */
export function createClient(options: WaybillClientOptions): WaybillClient {
  const http = createHttp(options)
  const calls = uploadCalls(http)
  const sign = (request: SignRequest, callOptions?: CallOptions) =>
    http.json<SignAnswer>({ method: 'POST', path: '/v1/sign', body: request }, callOptions)
  const ctx: UploadContext = {
    http,
    calls,
    storage: 'storage' in options ? options.storage : defaultStorage(),
    sign,
  }

  async function* listPages(origin: string, listOptions: ListOptions = {}) {
    let cursor = listOptions.cursor
    do {
      const page = await http.json<ListPage>(
        {
          method: 'GET',
          path: `/v1/list/${encodeURIComponent(origin)}`,
          query: listQuery({ ...listOptions, cursor }),
          cache: listOptions.cache ?? 'no-cache',
        },
        listOptions,
      )
      yield page
      cursor = page.cursor ?? undefined
    } while (cursor !== undefined)
  }

  const client: WaybillClient = {
    ...calls,
    sign,
    async *list(origin, listOptions) {
      for await (const page of listPages(origin, listOptions)) yield* page.items
    },
    listPages,
    links: (request, callOptions) =>
      http.json<LinksAnswer>({ method: 'POST', path: '/v1/links', body: request }, callOptions),
    upload: (file, uploadOptions) => startUpload(ctx, file, uploadOptions).done,
    startUpload: (file, uploadOptions) => startUpload(ctx, file, uploadOptions),
    uploadMany: ((entries: readonly UploadEntry[], manyOptions: UploadManyOptions) =>
      uploadMany(ctx, entries, manyOptions)) as WaybillClient['uploadMany'],
    startUploads: (entries, manyOptions) => startUploads(ctx, entries, manyOptions),
    resumableUpload: (file, target) => findResumable(ctx, file, target),
    discardUpload: (file, target) => discardResumable(ctx, file, target),
    renewAt: (expiresAt) => renewAt(http, expiresAt),
  }
  return register(client, ctx)
}
