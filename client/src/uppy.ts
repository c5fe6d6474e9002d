// waybill-client/uppy: Uppy's @uppy/aws-s3 (6.3) uploading through waybill, without Companion.
//
// The plugin's custom-backend contract is one function, `signRequest(request)`, called for each S3
// request it is about to send, answering the URL to send it to (S3mini in @uppy/aws-s3). Object PUTs
// (or POST forms) and part PUTs go to the bucket with the URLs waybill signs. The multipart control
// requests (create, list parts, complete, abort) are waybill's own calls, made here with the
// client's credentials and checks; the plugin still sends a request for each and reads S3's XML
// answer, so the URL answered for those is a `data:` URL holding that XML. (A page whose CSP limits
// `connect-src` must allow `data:`.) After a PUT or POST upload, a post-processor runs waybill's
// completion check; a refusal shows on the file as waybill's message.
//
// No runtime dependency on Uppy: the adapter only needs the shapes below.

import type { WaybillClient } from './client.ts'
import {
  DEFAULT_MULTIPART_THRESHOLD_BYTES,
  MAX_HASHED_PUT_BYTES,
  MIN_URL_LIFE_MS,
  PART_URL_BATCH,
  partSizeFor,
  PREHASH_BYTES,
} from './constants.ts'
import { WaybillError } from './errors.ts'
import { sha256Base64 } from './hash.ts'
import type { PostGrant, PutGrant } from './types.ts'

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
  /** `put` (default) or `post` (a browser form; not on stores without POST uploads). */
  mode?: 'put' | 'post' | undefined
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
function xmlAnswer(root: string, inner: string): string {
  const xml = `<?xml version="1.0" encoding="UTF-8"?><${root}>${inner}</${root}>`
  return `data:application/xml;charset=utf-8,${encodeURIComponent(xml)}`
}

interface PartUrl {
  url: string
  expiresAt: number
  /** The SHA-256 the URL signs, sent with it. */
  checksum?: string | undefined
}

/** What is known of a multipart upload in progress: its size in parts and the URLs to hand. */
interface Upload {
  partCount: number | undefined
  urls: Map<number, PartUrl>
  /** Each part's URL signs its SHA-256; undefined until known (a restored upload). */
  checksums: boolean | undefined
}

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
  const { origin } = options
  const mode = options.mode ?? 'put'
  const threshold = options.multipartThreshold ?? DEFAULT_MULTIPART_THRESHOLD_BYTES
  // The plugin asks for a file's key (generateObjectKey) before signing anything for it: the
  // "key" it then signs with is the file's id, and waybill's answer names the real key.
  const files = new Map<string, UppyFileLike>()
  const receipts = new Map<string, { key: string; receipt: string }>()
  const uploads = new Map<string, Upload>()

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
  const naming = (file: UppyFileLike) =>
    options.key === undefined ? { filename: file.name ?? 'file' } : { key: options.key(file) }
  const contentType = (file: UppyFileLike, given?: string) =>
    given ?? (file.type !== undefined && file.type !== '' ? file.type : 'application/octet-stream')

  const uploadOf = (uploadId: string): Upload => {
    let upload = uploads.get(uploadId)
    if (upload === undefined) {
      uploads.set(
        uploadId,
        (upload = { partCount: undefined, urls: new Map(), checksums: undefined }),
      )
    }
    return upload
  }
  const hashing = options.checksum !== false
  // The bytes of part `n` of an upload's file: the file this page started it for, or the one Golden
  // Retriever restored with its upload id.
  const slice = (data: Blob, n: number) => {
    const size = partSizeFor(data.size)
    return data.slice((n - 1) * size, Math.min(n * size, data.size))
  }
  /** The bytes of the file an upload is for: the file this page started it for, or the one
   * Golden Retriever restored with its upload id. */
  const dataOf = (uploadId: string): Blob | undefined => {
    const data = uppy.getFiles().find((f) => f.s3Multipart?.uploadId === uploadId)?.data
    return data instanceof Blob ? data : undefined
  }
  const partOf = (uploadId: string, n: number): Blob | undefined => {
    const data = dataOf(uploadId)
    return data === undefined ? undefined : slice(data, n)
  }
  /** Parts hashed (and so signed) together: PREHASH_BYTES of them. */
  const hashedAtOnce = (size: number) => Math.max(1, Math.floor(PREHASH_BYTES / partSizeFor(size)))

  async function object(request: { key: string; contentType?: string | undefined }) {
    const file = fileFor(request.key)
    const data = file.data instanceof Blob ? file.data : undefined
    const hashed = hashing && data !== undefined && data.size <= MAX_HASHED_PUT_BYTES
    const grant = (await client.createUpload({
      origin,
      mode,
      ...naming(file),
      contentType: contentType(file, request.contentType),
      contentLength: file.size ?? 0,
      ...(hashed ? { checksumSha256: await sha256Base64(data) } : {}),
    })) as PutGrant | PostGrant
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
    const size = file.size ?? 0
    const partSize = partSizeFor(size)
    // The first parts' checksums start the upload with checksums (their URLs come with it); the
    // others are hashed as Uppy asks for them.
    const data = hashing && file.data instanceof Blob ? file.data : undefined
    let partChecksums: string[] | undefined
    if (data !== undefined) {
      partChecksums = []
      const first = Math.min(Math.max(1, Math.ceil(size / partSize)), hashedAtOnce(size))
      for (let n = 1; n <= first; n++) partChecksums.push(await sha256Base64(slice(data, n)))
    }
    const grant = await client.createUpload({
      origin,
      mode: 'multipart',
      ...naming(file),
      contentType: contentType(file),
      contentLength: size,
      partSize,
      ...(partChecksums === undefined ? {} : { partChecksums }),
    })
    if (!('mode' in grant) || grant.mode !== 'multipart') {
      throw new WaybillError('bad_answer', 'waybill did not start a multipart upload.')
    }
    const upload = uploadOf(grant.uploadId)
    upload.partCount = grant.partCount
    upload.checksums = partChecksums !== undefined
    const expiresAt = Date.parse(grant.expiresAt)
    for (const part of grant.parts) {
      const checksum = partChecksums?.[part.partNumber - 1]
      upload.urls.set(part.partNumber, { url: part.url, expiresAt, checksum })
    }
    return {
      url: xmlAnswer(
        'InitiateMultipartUploadResult',
        fields({ Bucket: origin, Key: grant.key, UploadId: grant.uploadId }),
      ),
      key: grant.key,
    }
  }

  /** A part's URL, and with checksums the header carrying its SHA-256, which the URL signs. */
  async function partUrl(
    key: string,
    uploadId: string,
    partNumber: number,
  ): Promise<UppyS3Presigned> {
    const upload = uploadOf(uploadId)
    const answer = (part: PartUrl) => ({
      url: part.url,
      ...(part.checksum === undefined
        ? {}
        : { headers: { 'x-amz-checksum-sha256': part.checksum } }),
    })
    const known = upload.urls.get(partNumber)
    if (known !== undefined && known.expiresAt - Date.now() > MIN_URL_LIFE_MS) return answer(known)
    const count = upload.partCount ?? partNumber
    const data = dataOf(uploadId)
    if (hashing && upload.checksums !== false && data !== undefined) {
      // This part and the next ones without a URL, hashed and signed together.
      const last = Math.min(count, partNumber + hashedAtOnce(data.size) - 1)
      const partNumbers: number[] = []
      for (let n = partNumber; n <= last; n++) {
        if (n === partNumber || !upload.urls.has(n)) partNumbers.push(n)
      }
      const checksums: string[] = []
      for (const n of partNumbers) checksums.push(await sha256Base64(slice(data, n)))
      try {
        const signed = await client.signParts({ origin, key, uploadId, partNumbers, checksums })
        const expiresAt = Date.parse(signed.expiresAt)
        for (const part of signed.parts) {
          const checksum = checksums[partNumbers.indexOf(part.partNumber)]
          upload.urls.set(part.partNumber, { url: part.url, expiresAt, checksum })
        }
        upload.checksums = true
        return answer(upload.urls.get(partNumber)!)
      } catch (error) {
        // An upload restored from before checksums were on signs none: its parts go without.
        const without =
          error instanceof WaybillError && error.errors.some((e) => e.path === 'checksums')
        if (!without || upload.checksums === true) throw error
        upload.checksums = false
      }
    }
    const last = Math.min(partNumber + PART_URL_BATCH - 1, count)
    const partNumbers = Array.from({ length: last - partNumber + 1 }, (_, i) => partNumber + i)
    const { parts, expiresAt } = await client.signParts({ origin, key, uploadId, partNumbers })
    for (const part of parts) {
      upload.urls.set(part.partNumber, { url: part.url, expiresAt: Date.parse(expiresAt) })
    }
    const fresh = upload.urls.get(partNumber)
    if (fresh === undefined)
      throw new WaybillError('bad_answer', `waybill signed no URL for part ${partNumber}.`)
    return answer(fresh)
  }

  async function listed(key: string, uploadId: string) {
    const plan = await client.listParts({ origin, key, uploadId })
    const upload = uploadOf(uploadId)
    upload.partCount = plan.partCount
    if (plan.parts.some((part) => part.checksumSha256 !== undefined)) upload.checksums = true
    // A part of another size than its URL pinned cannot be completed: leave it out to send again.
    // One stored with its checksum is whole: kept only when it is this file's part.
    const expected = (n: number) =>
      n < plan.partCount ? plan.partSize : plan.contentLength - plan.partSize * (plan.partCount - 1)
    const kept = []
    for (const part of plan.parts) {
      if (part.size !== expected(part.partNumber)) continue
      const bytes =
        part.checksumSha256 === undefined ? undefined : partOf(uploadId, part.partNumber)
      if (bytes !== undefined && (await sha256Base64(bytes)) !== part.checksumSha256) continue
      kept.push(part)
    }
    const parts = kept.map(
      (part) =>
        `<Part>${fields({ PartNumber: part.partNumber, ETag: part.etag, Size: part.size })}</Part>`,
    )
    return xmlAnswer('ListPartsResult', parts.join(''))
  }

  async function complete(key: string, uploadId: string) {
    // The store's own list of parts: waybill checks each against its pinned size first.
    const stored = await client.completeMultipart({ origin, key, uploadId })
    uploads.delete(uploadId)
    return xmlAnswer(
      'CompleteMultipartUploadResult',
      fields({
        Location: client.redirectUrl(origin, stored.key),
        Bucket: origin,
        Key: stored.key,
        ETag: stored.etag,
      }),
    )
  }

  async function abort(key: string, uploadId: string) {
    await client.abortMultipart({ origin, key, uploadId })
    uploads.delete(uploadId)
    return xmlAnswer('AbortMultipartUploadResult', '')
  }

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
          return partUrl(request.key, request.uploadId, request.partNumber)
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
