// waybill-client/uppy: Uppy's @uppy/aws-s3 (6.3) uploading through waybill, without Companion,
// on the client's own upload engine (upload.ts, multipart.ts): the same part plan, checksums,
// URL batches and freshness rule as upload().
//
// The plugin's custom-backend contract is one function, `signRequest(request)`, called for each S3
// request it is about to send, answering the URL to send it to (S3mini in @uppy/aws-s3). Object PUTs
// (or POST forms) and part PUTs go to the bucket with the URLs waybill signs. The multipart control
// requests (create, list parts, complete, abort) are waybill's own calls, made here with the
// client's credentials and checks; the plugin still sends a request for each and reads S3's XML
// answer, so the URL answered for those is a `data:` URL holding that XML. (A page whose CSP limits
// `connect-src` must allow `data:`; the adapter says so when it does not.) After a PUT or POST
// upload, a post-processor runs waybill's completion check; a refusal shows on the file as
// waybill's message. A multipart upload that fails is aborted, so that nothing is left open in the
// bucket and a retry starts afresh.
//
// No runtime dependency on Uppy: the adapter only needs the shapes below.

import type { WaybillClient } from './client.ts'
import { contextOf } from './context.ts'
import { DEFAULT_MULTIPART_THRESHOLD_BYTES } from './constants.ts'
import { WaybillError } from './errors.ts'
import {
  hashAhead,
  partUrl,
  refOf,
  resumeSession,
  startSession,
  type Session,
} from './multipart.ts'
import { partSizeFor } from './plan.ts'
import { redirectUrl } from './redirect.ts'
import { issueOne } from './upload.ts'

/** The parts of an Uppy file the adapter reads. */
export interface UppyFileLike {
  id: string
  name?: string | undefined
  type?: string | undefined
  size: number | null
  /** The file's bytes (a remote file, or one restored without them, has none). */
  data?: Blob | { size: number | null } | undefined
  error?: string | null | undefined
  progress?: { uploadComplete?: boolean } | undefined
  /** The multipart upload @uppy/aws-s3 remembers for the file (restored by Golden Retriever). */
  s3Multipart?: { key?: string; uploadId?: string } | undefined
}

/** The parts of an Uppy instance the adapter uses. */
export interface UppyLike<F extends UppyFileLike = UppyFileLike> {
  addPostProcessor(fn: (fileIDs: string[]) => Promise<void>): void
  getFile(fileID: string): F | undefined
  getFiles(): F[]
  emit(event: 'upload-error', file: NoInfer<F>, error: Error): void
  on(
    event: 'upload-error',
    callback: (file: NoInfer<F> | undefined, error: { message: string }) => void,
  ): unknown
  setFileState(fileID: string, state: Partial<NoInfer<F>>): void
}

/** What @uppy/aws-s3's `signRequest` is called with (its `PresignableRequest`). */
export type UppyS3Request =
  | { method: 'PUT'; key: string; contentType?: string; uploadId?: undefined }
  | { method: 'PUT'; key: string; uploadId: string; partNumber: number }
  | { method: 'POST'; key: string; uploadId?: string | undefined }
  | { method: 'GET'; key: string; uploadId: string }
  | { method: 'DELETE'; key: string; uploadId?: string | undefined }

/** What `signRequest` answers (@uppy/aws-s3's `PresignedResponse`). */
export interface UppyS3Presigned {
  url: string
  key?: string
  headers?: Record<string, string>
  fields?: Record<string, string>
}

export interface WaybillUppyOptions {
  /** The waybill origin to upload to. */
  origin: string
  /**
   * The object key for a file. Without it the file's name is sent as `filename` and the caller's
   * grant (`uploadKey`) chooses the key.
   */
  key?: ((file: UppyFileLike) => string) | undefined
  /**
   * `put` (default) or `post` (a browser form; not on stores without POST uploads). A POST form
   * replaces what is at its key, so it is sent only with `overwrite: true` (a PUT otherwise).
   */
  mode?: 'put' | 'post' | undefined
  /** Replace an object already at the key (needs a grant with `overwrite`). Default false. */
  overwrite?: boolean | undefined
  /** Files of this size or more go as multipart uploads (default 16 MiB). */
  multipartThreshold?: number | undefined
  /** Run waybill's completion check after each PUT or POST upload (default true). */
  check?: boolean | undefined
  /**
   * Hash each file (and each part) with SHA-256 (Web Crypto, off the main thread), so the store
   * refuses bytes altered or cut off on the way (default true).
   */
  checksum?: boolean | undefined
}

/** The @uppy/aws-s3 options `waybillUppy` returns. */
export interface UppyS3Options {
  signRequest(request: UppyS3Request): Promise<UppyS3Presigned>
  shouldUseMultipart(file: UppyFileLike): boolean
  getChunkSize(file: { size: number }): number
  generateObjectKey(file: UppyFileLike): string
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
}

/** `<Name>value</Name>` for each field, values escaped. */
function fields(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => `<${name}>${escapeXml(String(value))}</${name}>`)
    .join('')
}

/** S3's XML answer to a control request, as a URL the plugin can send that request to. */
const xmlAnswer = (root: string, inner: string) =>
  `data:application/xml;charset=utf-8,${encodeURIComponent(`<?xml version="1.0" encoding="UTF-8"?><${root}>${inner}</${root}>`)}`

/**
 * Options for @uppy/aws-s3 that upload through waybill: PUT (or POST form) uploads with waybill's
 * URLs and its completion check, multipart uploads waybill starts, signs, lists (so Uppy's Golden
 * Retriever can resume them after a reload) and completes. Errors are waybill's own messages.
 *
 * @example
 * const client = createClient({ baseUrl: 'https://waybill.example', auth: () => getToken() })
 * const uppy = new Uppy().use(Dashboard, { inline: true, target: '#uploads' })
 * uppy.use(AwsS3, waybillUppy(uppy, client, { origin: 'photos' }))
 */
export function waybillUppy<F extends UppyFileLike>(
  uppy: UppyLike<F>,
  client: WaybillClient,
  options: WaybillUppyOptions,
): UppyS3Options {
  const ctx = contextOf(client)
  const { origin } = options
  const mode = options.mode ?? 'put'
  const threshold = options.multipartThreshold ?? DEFAULT_MULTIPART_THRESHOLD_BYTES
  const hashing = options.checksum !== false
  // The plugin asks for a file's key (generateObjectKey) before signing anything for it: the
  // "key" it then signs with is the file's id, and waybill's answer names the real key.
  const files = new Map<string, UppyFileLike>()
  const receipts = new Map<string, { key: string; receipt: string }>()
  // Multipart uploads this page started or resumed, by upload id, with what stops their hashing.
  const sessions = new Map<string, { session: Session; stop: AbortController }>()
  // A page's CSP may refuse `data:` in connect-src: the plugin then reports only "Network error
  // during S3 request". Asked once, by fetching a `data:` URL as the plugin would.
  let dataUrls: Promise<boolean> | undefined
  const dataAllowed = async () => {
    dataUrls ??= fetch('data:,').then(
      () => true,
      () => false,
    )
    if (!(await dataUrls)) {
      throw new WaybillError(
        'network_error',
        "This page's Content-Security-Policy does not allow data: URLs in connect-src, which Uppy's multipart uploads through waybill need: add data: to connect-src.",
      )
    }
  }
  const answer = async (root: string, inner: string) => {
    await dataAllowed()
    return xmlAnswer(root, inner)
  }

  const fileFor = (requestedKey: string): UppyFileLike => {
    const file = files.get(requestedKey) ?? uppy.getFile(requestedKey)
    if (file === undefined) {
      throw new WaybillError(
        'bad_answer',
        `No file is waiting to be uploaded as "${requestedKey}".`,
      )
    }
    return file
  }
  const bytesOf = (file: UppyFileLike): Blob => {
    if (file.data instanceof Blob) return file.data
    throw new WaybillError(
      'invalid_argument',
      `"${file.name ?? file.id}" has no bytes here (a remote file, or one restored without them): choose it again.`,
    )
  }
  const target = (file: UppyFileLike, given?: string) => ({
    origin,
    ...(options.key === undefined ? { filename: file.name ?? 'file' } : { key: options.key(file) }),
    contentType:
      given ??
      (file.type !== undefined && file.type !== '' ? file.type : 'application/octet-stream'),
  })
  /** The file an upload is for: the one this page started it for, or the one Golden Retriever
   * restored with its upload id. */
  const fileOf = (uploadId: string) =>
    uppy.getFiles().find((f) => f.s3Multipart?.uploadId === uploadId)
  const track = (session: Session, from: number) => {
    const stop = new AbortController()
    sessions.set(session.uploadId, { session, stop })
    const rest = Array.from({ length: session.partCount - from + 1 }, (_, i) => from + i)
    hashAhead(session, rest, stop.signal)
  }
  const forget = (uploadId: string) => {
    sessions.get(uploadId)?.stop.abort()
    sessions.delete(uploadId)
  }
  const sessionOf = (uploadId: string) => {
    const known = sessions.get(uploadId)
    if (known === undefined)
      throw new WaybillError('bad_answer', `No upload ${uploadId} is under way here.`)
    return known.session
  }

  async function object(request: { key: string; contentType?: string | undefined }) {
    const file = fileFor(request.key)
    const grant = await issueOne(ctx, bytesOf(file), {
      ...target(file, request.contentType),
      mode,
      checksum: hashing,
      overwrite: options.overwrite,
    })
    const key = grant.key ?? ''
    if (options.check !== false) receipts.set(file.id, { key, receipt: grant.receipt })
    if (grant.mode === 'post') return { url: grant.url, key, fields: grant.fields }
    // A browser sets Content-Length itself, and may not be told to.
    const headers = Object.fromEntries(
      Object.entries(grant.headers).filter(([name]) => name.toLowerCase() !== 'content-length'),
    )
    return { url: grant.url, key, headers }
  }

  async function create(requestedKey: string) {
    const file = fileFor(requestedKey)
    // Before the upload exists: the plugin could not be told of it, nor abort it.
    await dataAllowed()
    // The first parts are hashed before the upload starts (their URLs come with it), the others
    // in the background, ahead of the plugin's requests for them (one part at a time).
    const session = await startSession(
      ctx,
      bytesOf(file),
      target(file),
      { checksum: hashing, partConcurrency: 1, overwrite: options.overwrite },
      {},
    )
    track(session, 1)
    return {
      url: await answer(
        'InitiateMultipartUploadResult',
        fields({ Bucket: origin, Key: session.key, UploadId: session.uploadId }),
      ),
      key: session.key,
    }
  }

  async function part(uploadId: string, partNumber: number): Promise<UppyS3Presigned> {
    const session = sessionOf(uploadId)
    const upcoming = Array.from(
      { length: Math.max(0, session.partCount - partNumber) },
      (_, i) => partNumber + 1 + i,
    )
    const { url, checksum } = await partUrl(ctx, session, partNumber, false, upcoming, {})
    return checksum === undefined
      ? { url }
      : { url, headers: { 'x-amz-checksum-sha256': checksum } }
  }

  async function listed(key: string, uploadId: string) {
    const file = fileOf(uploadId)
    const resumed =
      file && (await resumeSession(ctx, { origin, key, uploadId }, bytesOf(file), undefined, {}))
    if (!resumed) {
      throw new WaybillError(
        'not_found',
        "This upload can no longer be resumed (it was completed, aborted or expired, or is not this file's): upload the file again.",
      )
    }
    const { session, stored } = resumed
    let first = 1
    while (stored.has(first)) first++
    track(session, first)
    const parts = [...stored].map(
      ([partNumber, etag]) =>
        `<Part>${fields({ PartNumber: partNumber, ETag: etag, Size: Math.min(session.partSize, session.size - (partNumber - 1) * session.partSize) })}</Part>`,
    )
    return answer('ListPartsResult', parts.join(''))
  }

  async function complete(key: string, uploadId: string) {
    // The store's own list of parts: waybill checks each against its pinned size first.
    const stored = await client.completeMultipart({ origin, key, uploadId })
    forget(uploadId)
    return answer(
      'CompleteMultipartUploadResult',
      fields({
        Location: redirectUrl(client, origin, stored.key),
        Bucket: origin,
        Key: stored.key,
        ETag: stored.etag,
      }),
    )
  }

  async function abort(key: string, uploadId: string) {
    forget(uploadId)
    await client.abortMultipart({ origin, key, uploadId })
    return answer('AbortMultipartUploadResult', '')
  }

  // The plugin keeps a failed multipart upload open for a retry to resume, but a retry then
  // resumes only what this page still tracks: the upload is aborted here (nothing left behind in
  // the bucket) and the file forgets it, so a retry starts afresh.
  uppy.on('upload-error', (file) => {
    const upload = file?.s3Multipart
    if (file === undefined || upload?.uploadId === undefined || upload.key === undefined) return
    // As @uppy/aws-s3 clears it on success (its types leave out undefined, under
    // exactOptionalPropertyTypes).
    uppy.setFileState(file.id, { s3Multipart: undefined } as Partial<F>)
    if (!sessions.has(upload.uploadId)) return
    const session = sessionOf(upload.uploadId)
    forget(upload.uploadId)
    void client.abortMultipart(refOf(session), { retries: 1 }).catch(() => {})
  })

  uppy.addPostProcessor(async (fileIDs) => {
    for (const id of fileIDs) {
      const made = receipts.get(id)
      const file = uppy.getFile(id)
      receipts.delete(id)
      // Only what reached the bucket: a failed transfer already carries its own error.
      if (made === undefined || file === undefined) continue
      if (file.error || file.progress?.uploadComplete !== true) continue
      try {
        await client.checkUpload({ origin, key: made.key, receipt: made.receipt })
      } catch (error) {
        uppy.emit('upload-error', file, error instanceof Error ? error : new Error(String(error)))
      }
    }
  })

  return {
    shouldUseMultipart: (file) => (file.size ?? 0) >= threshold,
    getChunkSize: ({ size }) => partSizeFor(size),
    generateObjectKey(file) {
      files.set(file.id, file)
      return file.id
    },
    async signRequest(request) {
      switch (request.method) {
        case 'PUT':
          if (request.uploadId === undefined) return object(request)
          return part(request.uploadId, request.partNumber)
        case 'POST':
          if (request.uploadId === undefined) return create(request.key)
          return { url: await complete(request.key, request.uploadId) }
        case 'GET':
          return { url: await listed(request.key, request.uploadId) }
        case 'DELETE':
          if (request.uploadId === undefined) {
            throw new WaybillError('bad_answer', 'waybill does not delete objects for Uppy.')
          }
          return { url: await abort(request.key, request.uploadId) }
      }
    },
  }
}
