// Writing to an R2 origin through verified URLs: a PUT of an object or of a multipart upload's
// part, and a DELETE. Every byte goes through the Worker, so what the URL signed is enforced as
// the bytes arrive: the exact length (a body of another length stores nothing), the SHA-256 (R2
// checks an object's; the Worker checks a part's before its last byte is handed over), the type,
// the metadata, and that an upload replaces nothing unless it may.

import { base64Decode, base64Encode } from '../../core/bytes'
import type { OwnGrant } from '../../core/own/url'
import { WaybillError } from '../../errors'
import type { ServeContext } from '../types'
import { forgetCached } from './deliver'
import type { R2Settings } from './settings'

/** The request's Content-Length: required (R2 stores only a body of known length), and bounded. */
export function bodyLength(request: Request, settings: R2Settings): number {
  const text = request.headers.get('content-length')
  if (text === null || !/^(?:0|[1-9][0-9]{0,15})$/.test(text)) {
    throw new WaybillError('length_required', 'An upload needs a Content-Length.', {
      errors: [
        { path: 'Content-Length', message: 'is required: R2 stores a body of known length' },
      ],
    })
  }
  const length = Number(text)
  if (length > settings.maxBodyBytes) {
    throw new WaybillError(
      'payload_too_large',
      `This origin takes at most ${settings.maxBodyBytes} bytes a request (the Worker's request body limit); upload larger files in parts.`,
      {
        errors: [{ path: 'Content-Length', message: `must be at most ${settings.maxBodyBytes}` }],
      },
    )
  }
  return length
}

function exactLength(length: number, signed: number | undefined, what: string) {
  if (signed !== undefined && length !== signed) {
    throw new WaybillError(
      'invalid_request',
      `This URL was signed for ${what} of exactly ${signed} bytes; nothing was stored.`,
      {
        errors: [{ path: 'Content-Length', message: `is ${length}; must be ${signed}` }],
      },
    )
  }
}

const checksumMismatch = () =>
  new WaybillError(
    'invalid_request',
    'The body does not match the SHA-256 this URL was signed for; nothing was stored.',
    { errors: [{ path: 'body', message: 'does not match the signed SHA-256' }] },
  )

/** R2's own refusal of a body whose SHA-256 is not the one given (code 10037). */
const isChecksumRefusal = (error: unknown) =>
  error instanceof Error &&
  /\(10037\)|SHA-256 checksum you specified did not match/i.test(error.message)

const wrongLength = (length: number) =>
  new WaybillError(
    'invalid_request',
    `The body is not the ${length} bytes its Content-Length says; nothing was stored.`,
    { errors: [{ path: 'body', message: `is not ${length} bytes` }] },
  )

/**
 * `body` as a stream of exactly `length` bytes that R2 can store. Its bytes are counted (and with
 * `sha256`, hashed) on the way, and its last chunk is held back until the whole is known to be
 * right: R2 never sees a whole body of another length or digest, so it stores nothing (R2 keeps
 * a body it has all of, even if the stream errors after). `fault` says what was wrong, once R2 has
 * refused the stream.
 */
function exactBody(
  body: ReadableStream<Uint8Array> | null,
  length: number,
  sha256?: Uint8Array,
): { readonly stream: ReadableStream<Uint8Array>; fault(): WaybillError | undefined } {
  const fixed = new FixedLengthStream(length)
  const source = body ?? new Blob([]).stream()
  let fault: WaybillError | undefined
  const fail = (error: WaybillError) => {
    fault = error
    throw error
  }
  const digest = sha256 === undefined ? undefined : new crypto.DigestStream('SHA-256')
  const digestWriter = digest?.getWriter()
  let seen = 0
  let held: Uint8Array | undefined
  const checked = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      seen += chunk.length
      if (seen > length) fail(wrongLength(length))
      await digestWriter?.write(chunk)
      if (held !== undefined) controller.enqueue(held)
      held = chunk
    },
    async flush(controller) {
      if (seen !== length) fail(wrongLength(length))
      if (digestWriter !== undefined && digest !== undefined && sha256 !== undefined) {
        await digestWriter.close()
        const actual = new Uint8Array(await digest.digest)
        if (actual.length !== sha256.length || actual.some((byte, i) => byte !== sha256[i])) {
          fail(checksumMismatch())
        }
      }
      if (held !== undefined) controller.enqueue(held)
    },
  })
  source
    .pipeThrough(checked)
    .pipeTo(fixed.writable)
    .catch(() => undefined)
  return { stream: fixed.readable, fault: () => fault }
}

/** The signed checksum's bytes, or undefined. */
function checksumOf(grant: OwnGrant): Uint8Array | undefined {
  const text = grant.terms.checksumSha256
  return text === undefined ? undefined : base64Decode(text)
}

/**
 * Stores the PUT's body at the URL's key: of the signed length, type, checksum and metadata, and
 * (an upload that may not overwrite) only where no object is. Answers as S3 does: 200 and ETag.
 */
export async function putObject(
  request: Request,
  grant: OwnGrant,
  settings: R2Settings,
  context: ServeContext,
): Promise<Response> {
  const { terms } = grant
  const length = bodyLength(request, settings)
  exactLength(length, terms.length, 'an upload')
  const type = request.headers.get('content-type') ?? undefined
  if (terms.contentType !== undefined && type !== terms.contentType) {
    throw new WaybillError(
      'invalid_request',
      `This URL was signed for Content-Type ${terms.contentType}; nothing was stored.`,
      {
        errors: [{ path: 'Content-Type', message: `must be "${terms.contentType}"` }],
      },
    )
  }
  // An upload's URL (it signs metadata: its tag) replaces nothing unless it says it may; a bare
  // PUT URL from /v1/sign replaces, as S3's does.
  const upload = terms.metadata !== undefined
  const sha256 = checksumOf(grant)
  let stored: R2Object | null
  const body = exactBody(request.body, length)
  try {
    stored = await settings.bucket.put(grant.key, body.stream, {
      httpMetadata: type === undefined ? undefined : { contentType: type },
      customMetadata: terms.metadata,
      sha256: sha256?.buffer as ArrayBuffer | undefined,
      onlyIf: upload && terms.overwrite !== true ? { etagDoesNotMatch: '*' } : undefined,
    })
  } catch (error) {
    if (isChecksumRefusal(error)) throw checksumMismatch()
    throw body.fault() ?? storeFailure('PutObject', error)
  }
  if (stored === null) {
    throw new WaybillError(
      'precondition_failed',
      'An object is already stored at this key, and this upload may not replace it; nothing was stored.',
      { errors: [{ path: 'key', message: 'already holds an object' }] },
    )
  }
  context.waitUntil(forgetCached(grant.origin, grant.key, settings))
  return new Response(null, { status: 200, headers: { etag: stored.httpEtag } })
}

/** A part of a multipart upload: its exact size and SHA-256, recorded once R2 holds it. */
export async function putPart(
  request: Request,
  grant: OwnGrant,
  settings: R2Settings,
  context: ServeContext,
): Promise<Response> {
  const { uploadId, partNumber, length: signed } = grant.terms
  if (uploadId === undefined || partNumber === undefined || settings.parts === undefined) {
    throw new WaybillError('forbidden', 'This URL is not a part URL of a multipart upload.')
  }
  const length = bodyLength(request, settings)
  exactLength(length, signed, `part ${partNumber}`)
  const sha256 = checksumOf(grant)
  let part: R2UploadedPart
  const body = exactBody(request.body, length, sha256)
  try {
    part = await settings.bucket
      .resumeMultipartUpload(grant.key, uploadId)
      .uploadPart(partNumber, body.stream)
  } catch (error) {
    const fault = body.fault()
    if (fault !== undefined) throw fault
    if (
      error instanceof Error &&
      /\(10024\)|multipart upload does not exist/i.test(error.message)
    ) {
      throw new WaybillError(
        'not_found',
        'This multipart upload is no longer in progress (completed, aborted or expired).',
        {
          errors: [{ path: 'uploadId', message: 'names no upload in progress' }],
        },
      )
    }
    throw storeFailure('UploadPart', error)
  }
  const etag = `"${part.etag}"`
  await partsOf(settings, grant.origin, uploadId).record(
    {
      partNumber,
      etag,
      size: length,
      ...(sha256 === undefined ? {} : { checksumSha256: base64Encode(sha256) }),
    },
    context.now.getTime(),
  )
  return new Response(null, { status: 200, headers: { etag } })
}

/** The record of a multipart upload's parts (./parts.ts). */
export function partsOf(settings: R2Settings, origin: string, uploadId: string) {
  const parts = settings.parts
  if (parts === undefined) throw new Error('this R2 origin records no parts')
  return parts.get(parts.idFromName(`${origin}\n${uploadId}`))
}

/** Deletes the URL's object (204, as S3 answers a DELETE, whether or not it was there). */
export async function deleteObject(
  grant: OwnGrant,
  settings: R2Settings,
  context: ServeContext,
): Promise<Response> {
  try {
    await settings.bucket.delete(grant.key)
  } catch (error) {
    throw storeFailure('DeleteObject', error)
  }
  context.waitUntil(forgetCached(grant.origin, grant.key, settings))
  return new Response(null, { status: 204 })
}

/** A 502 for a binding call that failed for a reason of R2's own (its message, not a secret). */
export function storeFailure(operation: string, error: unknown): WaybillError {
  if (error instanceof WaybillError) return error
  const reason = error instanceof Error ? error.message : String(error)
  return new WaybillError('upstream_error', `${operation} failed at R2: ${reason}`)
}
