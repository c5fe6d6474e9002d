// POST /v1/uploads and the multipart follow-ups: the requests and the answers.

import * as v from 'valibot'
import {
  MAX_PART_SIZE_BYTES,
  MAX_PARTS,
  MAX_PUT_BYTES,
  MAX_UPLOAD_BYTES,
  MIN_PART_SIZE_BYTES,
} from '../config/limits'
import {
  ExpiresIn,
  Metadata,
  ObjectKey,
  OriginName,
  PartNumber,
  UploadContentType,
  UploadId,
  wholeNumber,
} from './fields'
import { isRecord, list, pathTo, strict } from './valibot'

const MODES = ['put', 'post', 'multipart'] as const

const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/

const uploadFields = strict(
  {
    origin: OriginName,
    mode: v.optional(
      v.pipe(
        v.picklist(MODES, 'must be "put", "post" or "multipart"'),
        v.description(
          'put: one exact PUT URL. post: a POST policy for a browser form. multipart: the Worker starts a multipart upload and signs part URLs.',
        ),
      ),
      'put',
    ),
    key: v.optional(ObjectKey),
    keyPrefix: v.optional(
      v.pipe(
        ObjectKey,
        v.description(
          'POST on origins with keys "any" only: the form may choose any key starting with this.',
        ),
      ),
    ),
    contentType: UploadContentType,
    contentLength: v.optional(
      v.pipe(
        wholeNumber(0, MAX_UPLOAD_BYTES),
        v.description(
          `Bytes: signed as the exact length (PUT up to ${MAX_PUT_BYTES}), a POST policy's range, or the multipart total. Required for multipart, and for a PUT where the grant limits size.`,
        ),
      ),
    ),
    checksumSha256: v.optional(
      v.pipe(
        v.string('must be the base64 SHA-256 of the file (44 characters)'),
        v.regex(BASE64_SHA256, 'must be the base64 SHA-256 of the file (44 characters)'),
        v.description('PUT only: the store checks the body against it.'),
      ),
    ),
    ifNoneMatch: v.optional(
      v.pipe(
        v.union([v.boolean(), v.literal('*')], 'must be true (or "*") to refuse overwriting'),
        v.description(
          'PUT only: true (or "*") signs If-None-Match: *, so an existing key is not overwritten.',
        ),
      ),
    ),
    metadata: v.optional(Metadata),
    expiresIn: v.optional(ExpiresIn),
    partSize: v.optional(
      v.pipe(
        wholeNumber(MIN_PART_SIZE_BYTES, MAX_PART_SIZE_BYTES),
        v.description(
          'Multipart only: bytes per part (default 5 MiB, more when 10,000 parts would not fit).',
        ),
      ),
    ),
    successActionStatus: v.optional(
      v.picklist([200, 201, 204], 'is 200, 201 or 204, for mode "post" only'),
    ),
  },
  { required: { contentType: 'is required: the browser must send this exact Content-Type' } },
)

export const UploadBody = v.pipe(
  uploadFields,
  v.examples([
    {
      origin: 'photos',
      mode: 'put' as const,
      key: 'uploads/cat.png',
      contentType: 'image/png',
      contentLength: 48213,
    },
  ]),
  // What one field allows depends on the mode: checked once per request, with paths set here.
  // Checked even when a field failed, so every problem is told at once.
  v.rawCheck(({ dataset, addIssue }) => {
    const body = dataset.value
    if (!isRecord(body)) return
    const mode = body.mode ?? 'put'
    const refuse = (field: string, message: string) =>
      addIssue({ message, path: pathTo(body, field) })
    if (body.keyPrefix !== undefined) {
      if (body.key !== undefined) refuse('keyPrefix', 'send either "key" or "keyPrefix", not both')
      else if (mode !== 'post') {
        refuse('keyPrefix', 'is for mode "post" only; other modes need "key"')
      }
    } else if (body.key === undefined && !('key' in body)) {
      refuse('key', 'is required')
    }
    if (
      typeof body.contentType === 'string' &&
      body.contentType.includes('/*') &&
      mode !== 'post'
    ) {
      refuse('contentType', 'a family such as "image/*" is for mode "post" only')
    }
    if (
      mode === 'put' &&
      typeof body.contentLength === 'number' &&
      body.contentLength > MAX_PUT_BYTES
    ) {
      refuse('contentLength', `must be a whole number from 0 to ${MAX_PUT_BYTES}`)
    }
    if (mode === 'multipart' && body.contentLength === undefined) {
      refuse('contentLength', 'is required for multipart uploads')
    }
    if (body.checksumSha256 !== undefined && mode !== 'put') {
      refuse('checksumSha256', 'is for mode "put" only')
    }
    if ((body.ifNoneMatch === true || body.ifNoneMatch === '*') && mode !== 'put') {
      refuse('ifNoneMatch', 'is for mode "put" only')
    }
    if (body.partSize !== undefined && mode !== 'multipart') {
      refuse('partSize', 'is for mode "multipart" only')
    }
    if (body.successActionStatus !== undefined && mode !== 'post') {
      refuse('successActionStatus', 'is 200, 201 or 204, for mode "post" only')
    }
  }),
  v.transform(({ key, keyPrefix, ifNoneMatch, metadata, ...rest }) => ({
    ...rest,
    // The exact key, or for a POST policy the prefix every key will start with.
    key: keyPrefix ?? key ?? '',
    keyIsPrefix: keyPrefix !== undefined,
    ifNoneMatch: ifNoneMatch === true || ifNoneMatch === '*',
    metadata: metadata ?? {},
  })),
)
export type UploadRequest = v.InferOutput<typeof UploadBody>

const Expiry = v.pipe(v.string(), v.isoTimestamp(), v.description('When the URLs stop working.'))
const PartUrl = v.object({ partNumber: v.number(), url: v.pipe(v.string(), v.url()) })

export const UploadAnswer = v.pipe(
  // A oneOf keyed on `mode`: each answer's `mode` is a constant.
  v.variant('mode', [
    v.object({
      mode: v.literal('put'),
      method: v.literal('PUT'),
      url: v.pipe(v.string(), v.url()),
      headers: v.pipe(
        v.record(v.string(), v.string()),
        v.description('Exactly the headers to send (a browser sets Content-Length itself).'),
      ),
      expiresAt: Expiry,
    }),
    v.object({
      mode: v.literal('post'),
      method: v.literal('POST'),
      url: v.pipe(v.string(), v.url()),
      fields: v.pipe(
        v.record(v.string(), v.string()),
        v.description('Form fields to send in this order, then the file last as `file`.'),
      ),
      expiresAt: Expiry,
    }),
    v.object({
      mode: v.literal('multipart'),
      method: v.literal('MULTIPART'),
      key: v.string(),
      uploadId: UploadId,
      partSize: v.number(),
      partCount: v.number(),
      parts: v.pipe(v.array(PartUrl), v.description('The first 100 part URLs.')),
      expiresAt: Expiry,
    }),
  ]),
  v.description('What to do next depends on `mode`.'),
)

/** What names a multipart upload in every follow-up. */
const uploadRef = { origin: OriginName, key: ObjectKey, uploadId: UploadId }

export const PartsBody = strict({
  ...uploadRef,
  partNumbers: v.pipe(
    list(PartNumber, () => 'must be a non-empty array of part numbers'),
    v.minLength(1, 'must be a non-empty array of part numbers'),
    v.maxLength(MAX_PARTS, `must list at most ${MAX_PARTS} parts`),
  ),
  expiresIn: v.optional(ExpiresIn),
})

export const PartsAnswer = v.object({ parts: v.array(PartUrl), expiresAt: Expiry })

const CompletedPart = strict(
  {
    partNumber: PartNumber,
    etag: v.pipe(
      v.string("must be the ETag the part's upload returned"),
      v.regex(/^[\x20-\x7e]{1,1024}$/, "must be the ETag the part's upload returned"),
    ),
  },
  { type: 'must be an object { partNumber, etag }' },
)

export const CompleteBody = strict({
  ...uploadRef,
  parts: v.pipe(
    list(CompletedPart, () => 'must be a non-empty array of { partNumber, etag }'),
    v.minLength(1, 'must be a non-empty array of { partNumber, etag }'),
    v.maxLength(MAX_PARTS, `must list at most ${MAX_PARTS} parts`),
    v.rawCheck(({ dataset, addIssue }) => {
      const parts = dataset.value
      if (!Array.isArray(parts)) return
      let previous = 0
      parts.forEach((part: { partNumber?: unknown }, i) => {
        if (typeof part.partNumber !== 'number') return
        if (part.partNumber <= previous) {
          addIssue({
            message: 'parts must be in ascending order, each once',
            path: pathTo(parts, i, 'partNumber'),
          })
        }
        previous = part.partNumber
      })
    }),
    v.description("The part numbers, ascending, with the ETag each part's PUT returned."),
  ),
})

export const CompleteAnswer = v.object({ key: v.string(), etag: v.string() })

export const AbortBody = strict(uploadRef)
