// POST /v1/uploads and the multipart follow-ups: the requests and the answers.

import * as v from 'valibot'
import {
  MAX_PART_SIZE_BYTES,
  MAX_PARTS,
  MAX_PUT_BYTES,
  MAX_UPLOAD_BYTES,
  MIN_PART_SIZE_BYTES,
} from '../limits'
import {
  Batch,
  ExpiresIn,
  Metadata,
  ObjectKey,
  OriginName,
  PartNumber,
  UploadContentType,
  UploadId,
  UploadReceipt,
  wholeNumber,
} from './fields'
import { isRecord, list, pathTo, strict } from './valibot'

const MODES = ['put', 'post', 'multipart'] as const

const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/
const sha256Message = (of: string) => `must be the base64 SHA-256 of ${of} (44 characters)`

/** A SHA-256 in base64, as S3's x-amz-checksum-sha256 carries it. */
const Sha256 = (of: string) =>
  v.pipe(v.string(sha256Message(of)), v.regex(BASE64_SHA256, sha256Message(of)))

/** A browser's file name, for an upload whose key the grant's `uploadKey` chooses. */
const Filename = v.pipe(
  v.string("must be the file's name, 1 to 1024 characters"),
  v.minLength(1, "must be the file's name, 1 to 1024 characters"),
  v.maxLength(1024, "must be the file's name, 1 to 1024 characters"),
  v.check((name) => name.isWellFormed(), 'must be valid Unicode (it contains a lone surrogate)'),
  v.description(
    "Instead of `key`: the file's name; the grant's `uploadKey` template (such as `users/{sub}/{uuid}-{filename}`) chooses the key, with the name sanitized.",
  ),
)

// One object's fields: at the top level for one upload, or each entry of `items`.
const itemEntries = {
  key: v.optional(ObjectKey),
  keyPrefix: v.optional(
    v.pipe(
      ObjectKey,
      v.description(
        'POST on origins with keys "any" only: the form may choose any key starting with this.',
      ),
    ),
  ),
  filename: v.optional(Filename),
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
      Sha256('the file'),
      v.description(
        'PUT and POST: signed, so the store refuses any other bytes (and a body cut off mid-transfer); the completion check then attests exactly these bytes.',
      ),
    ),
  ),
  overwrite: v.optional(
    v.pipe(
      v.boolean('must be true or false'),
      v.description(
        'true: the upload may replace an object already at the key (needs a grant with overwrite). By default PUT URLs and multipart completes sign If-None-Match: *, and the store refuses (412) to replace one.',
      ),
    ),
  ),
  ifNoneMatch: v.optional(
    v.pipe(
      v.union([v.literal(true), v.literal('*')], 'must be true (or "*"); it is the default'),
      v.description('Deprecated: refusing to overwrite is the default (see `overwrite`).'),
    ),
  ),
  metadata: v.optional(Metadata),
}
const itemMessages = {
  required: { contentType: 'is required: the browser must send this exact Content-Type' },
}

const UploadItemBody = strict(itemEntries, {
  ...itemMessages,
  type: 'must be an object { "key" | "filename", "contentType", "contentLength"?, … }',
})

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
    ...itemEntries,
    contentType: v.optional(UploadContentType),
    items: Batch(
      UploadItemBody,
      "Many PUT or POST uploads in one call, each authorized on its own key (all or nothing), up to the grant's maxBatch; answered as `uploads`, in order.",
    ),
    expiresIn: v.optional(ExpiresIn),
    partSize: v.optional(
      v.pipe(
        wholeNumber(MIN_PART_SIZE_BYTES, MAX_PART_SIZE_BYTES),
        v.description(
          'Multipart only: bytes per part (default 5 MiB, more when 10,000 parts would not fit). Required with `partChecksums`.',
        ),
      ),
    ),
    partChecksums: v.optional(
      v.pipe(
        list(Sha256('the part'), () => 'must be an array of base64 SHA-256 values, one per part'),
        v.minLength(1, 'must list the SHA-256 of at least the first part'),
        v.maxLength(MAX_PARTS, `must list at most ${MAX_PARTS} parts`),
        v.description(
          "Multipart only: the base64 SHA-256 of parts 1, 2, … (of `partSize` bytes), as many as are known. The upload is then created with SHA-256 checksums: every part URL signs its part's SHA-256 (these come with the answer, later ones from /v1/uploads/multipart/parts with `checksums`), so the store refuses a part with any other bytes or cut off mid-transfer.",
        ),
      ),
    ),
    successActionStatus: v.optional(
      v.picklist([200, 201, 204], 'is 200, 201 or 204, for mode "post" only'),
    ),
  },
  itemMessages,
)

/** What one object's fields allow under `mode`; `at` names the item's path. */
function checkItem(
  item: Readonly<Record<string, unknown>>,
  mode: unknown,
  refuse: (field: string, message: string) => void,
): void {
  const given = (['key', 'keyPrefix', 'filename'] as const).filter((f) => item[f] !== undefined)
  if (given.length > 1) {
    refuse(given[1]!, `send one of "key", "keyPrefix" or "filename", not ${given.join(' and ')}`)
  } else if (given.length === 0 && !('key' in item)) {
    refuse('key', 'is required (or "filename", for a key the grant chooses)')
  }
  if (item.keyPrefix !== undefined && mode !== 'post') {
    refuse('keyPrefix', 'is for mode "post" only; other modes need "key"')
  }
  if (
    mode === 'put' &&
    typeof item.contentLength === 'number' &&
    item.contentLength > MAX_PUT_BYTES
  ) {
    refuse('contentLength', `must be a whole number from 0 to ${MAX_PUT_BYTES}`)
  }
  if (mode === 'multipart' && item.contentLength === undefined) {
    refuse('contentLength', 'is required for multipart uploads')
  }
  if (item.checksumSha256 !== undefined && mode === 'multipart') {
    refuse(
      'checksumSha256',
      'is for modes "put" and "post"; a multipart upload takes partChecksums',
    )
  }
  if (item.ifNoneMatch !== undefined && mode !== 'put') {
    refuse('ifNoneMatch', 'is for mode "put" only')
  }
  if (item.ifNoneMatch !== undefined && item.overwrite === true) {
    refuse('ifNoneMatch', 'contradicts "overwrite": true')
  }
}

const ITEM_FIELDS = Object.keys(itemEntries)

/** One object to upload, as the services take it. */
export interface UploadItem {
  /** The exact key; for a POST policy with `keyIsPrefix`, the prefix; `''` with a `filename`. */
  key: string
  keyIsPrefix: boolean
  filename?: string | undefined
  contentType: string
  contentLength?: number | undefined
  checksumSha256?: string | undefined
  /** May replace an object already at the key. */
  overwrite: boolean
  metadata: Readonly<Record<string, string>>
}

function toItem(item: {
  key?: string | undefined
  keyPrefix?: string | undefined
  filename?: string | undefined
  contentType?: string | undefined
  contentLength?: number | undefined
  checksumSha256?: string | undefined
  overwrite?: boolean | undefined
  metadata?: Readonly<Record<string, string>> | undefined
}): UploadItem {
  return {
    key: item.keyPrefix ?? item.key ?? '',
    keyIsPrefix: item.keyPrefix !== undefined,
    filename: item.filename,
    // Required of every item and, without items, of the body (checked above).
    contentType: item.contentType ?? '',
    contentLength: item.contentLength,
    checksumSha256: item.checksumSha256,
    overwrite: item.overwrite === true,
    metadata: item.metadata ?? {},
  }
}

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
    {
      origin: 'photos',
      mode: 'post' as const,
      items: [
        { filename: 'cat.png', contentType: 'image/png', contentLength: 48213 },
        { filename: 'dog.jpg', contentType: 'image/jpeg', contentLength: 91822 },
      ],
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
    const refuseIn = (i: number) => (field: string, message: string) =>
      addIssue({ message, path: pathTo(body, 'items', i, field) })
    const { items } = body
    if (items !== undefined) {
      const flat = ITEM_FIELDS.filter((field) => body[field] !== undefined)
      for (const field of flat) {
        refuse(field, 'belongs in each entry of "items" when "items" is sent')
      }
      if (mode === 'multipart') {
        refuse('items', 'multipart uploads are started one at a time; send "put" or "post"')
      }
      if (Array.isArray(items)) {
        items.forEach((item: unknown, i) => {
          if (isRecord(item)) checkItem(item, mode, refuseIn(i))
        })
      }
    } else {
      if (body.contentType === undefined) {
        refuse('contentType', 'is required: the browser must send this exact Content-Type')
      }
      checkItem(body, mode, refuse)
    }
    if (body.partSize !== undefined && mode !== 'multipart') {
      refuse('partSize', 'is for mode "multipart" only')
    }
    if (body.partChecksums !== undefined) {
      if (mode !== 'multipart') refuse('partChecksums', 'is for mode "multipart" only')
      else if (body.partSize === undefined) {
        refuse(
          'partSize',
          'is required with partChecksums: they are the checksums of parts of this size',
        )
      }
    }
    if (body.successActionStatus !== undefined && mode !== 'post') {
      refuse('successActionStatus', 'is 200, 201 or 204, for mode "post" only')
    }
  }),
  v.transform(
    ({ origin, mode, expiresIn, partSize, partChecksums, successActionStatus, items, ...one }) => ({
      origin,
      mode,
      expiresIn,
      partSize,
      partChecksums,
      successActionStatus,
      items: items === undefined ? [toItem(one)] : items.map(toItem),
      batch: items !== undefined,
    }),
  ),
)
export type UploadRequest = v.InferOutput<typeof UploadBody>

const Expiry = v.pipe(v.string(), v.isoTimestamp(), v.description('When the URLs stop working.'))
const PartUrl = v.object({ partNumber: v.number(), url: v.pipe(v.string(), v.url()) })

const Receipt = v.pipe(
  UploadReceipt,
  v.description('For POST /v1/uploads/complete once the browser has uploaded.'),
)
/** The key the object will have; a form with `keyPrefix` chooses its own. */
const named = {
  key: v.optional(v.string()),
  keyPrefix: v.optional(v.string()),
}

const OneUpload = v.variant('mode', [
  v.object({
    mode: v.literal('put'),
    method: v.literal('PUT'),
    ...named,
    url: v.pipe(v.string(), v.url()),
    headers: v.pipe(
      v.record(v.string(), v.string()),
      v.description('Exactly the headers to send (a browser sets Content-Length itself).'),
    ),
    receipt: Receipt,
    expiresAt: Expiry,
  }),
  v.object({
    mode: v.literal('post'),
    method: v.literal('POST'),
    ...named,
    url: v.pipe(v.string(), v.url()),
    fields: v.pipe(
      v.record(v.string(), v.string()),
      v.description('Form fields to send in this order, then the file last as `file`.'),
    ),
    receipt: Receipt,
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
])

export const UploadAnswer = v.pipe(
  v.union([
    OneUpload,
    v.object({
      uploads: v.pipe(v.array(OneUpload), v.description('One per entry of `items`, in order.')),
    }),
  ]),
  v.description('What to do next depends on `mode`; a request with `items` gets `uploads`.'),
)

/** What names a multipart upload in every follow-up. */
const uploadRef = { origin: OriginName, key: ObjectKey, uploadId: UploadId }

export const PartsBody = v.pipe(
  strict({
    ...uploadRef,
    partNumbers: v.pipe(
      list(PartNumber, () => 'must be a non-empty array of part numbers'),
      v.minLength(1, 'must be a non-empty array of part numbers'),
      v.maxLength(MAX_PARTS, `must list at most ${MAX_PARTS} parts`),
    ),
    checksums: v.optional(
      v.pipe(
        list(Sha256('the part'), () => 'must be an array of base64 SHA-256 values'),
        v.maxLength(MAX_PARTS, `must list at most ${MAX_PARTS} parts`),
        v.description(
          "For an upload created with partChecksums (required then): each part's base64 SHA-256, in the order of partNumbers.",
        ),
      ),
    ),
    expiresIn: v.optional(ExpiresIn),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    const body = dataset.value
    if (!isRecord(body) || !Array.isArray(body.checksums) || !Array.isArray(body.partNumbers)) {
      return
    }
    if (body.checksums.length !== body.partNumbers.length) {
      addIssue({
        message: 'must hold one checksum per entry of partNumbers, in the same order',
        path: pathTo(body, 'checksums'),
      })
    }
  }),
)

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
  parts: v.optional(
    v.pipe(
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
      v.description(
        "The part numbers, ascending, with the ETag each part's PUT returned. Without them, every part of the upload as the store lists it.",
      ),
    ),
  ),
})

/** An upload checked against what was signed, and stored. */
const StoredObject = {
  origin: v.string(),
  key: v.string(),
  size: v.pipe(v.number(), v.description('Bytes.')),
  contentType: v.string(),
  etag: v.string(),
}

export const CompleteAnswer = v.object(StoredObject)

export const ListPartsBody = strict(uploadRef)

export const ListPartsAnswer = v.object({
  key: v.string(),
  contentLength: v.number(),
  contentType: v.string(),
  partSize: v.number(),
  partCount: v.number(),
  parts: v.pipe(
    v.array(
      v.object({
        partNumber: v.number(),
        etag: v.string(),
        size: v.number(),
        checksumSha256: v.optional(
          v.pipe(v.string(), v.description('For an upload created with partChecksums.')),
        ),
      }),
    ),
    v.description('The parts the store holds, ascending: a resuming client uploads the others.'),
  ),
})

export const CheckBody = strict({
  origin: OriginName,
  key: v.pipe(ObjectKey, v.description('The uploaded object: the key the upload answer named.')),
  receipt: UploadReceipt,
  etag: v.optional(
    v.pipe(
      v.string('must be the ETag the store answered the upload with'),
      v.regex(/^[\x21-\x7e]{1,1024}$/, 'must be the ETag the store answered the upload with'),
      v.description(
        "Required when the upload signed no checksum: the ETag the store answered the PUT or POST with, which names this upload's bytes.",
      ),
    ),
  ),
})

export const CheckAnswer = v.object({
  ...StoredObject,
  lastModified: v.string(),
  checksumSha256: v.optional(v.string()),
  mode: v.picklist(['put', 'post']),
})

export const AbortBody = strict(uploadRef)
