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
  characters,
  ExpiresIn,
  Metadata,
  ObjectKey,
  OriginName,
  PartNumber,
  SINGLE_UPLOAD_MODES,
  UPLOAD_MODES,
  UploadContentType,
  UploadId,
  UploadReceipt,
  wholeNumber,
} from './fields'
import { isRecord, list, strict, strictFields, typeName } from './valibot'

// 32 bytes are 43 characters and a "=": the last character holds 4 bits of them, and 2 zero bits
// (src/core/bytes.ts). Any other spelling decodes to the same bytes for some, and is refused by
// the store that compares the text: only the canonical one is signed.
const BASE64_SHA256 = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/
const sha256Message = (of: string) =>
  `must be the base64 SHA-256 of ${of} (44 characters, in its one canonical spelling)`

/** A SHA-256 in base64, as S3's x-amz-checksum-sha256 carries it. */
const Sha256 = (of: string) =>
  v.pipe(v.string(sha256Message(of)), v.regex(BASE64_SHA256, sha256Message(of)))

/** A browser's file name, for an upload whose key the grant's `uploadKey` chooses. */
const Filename = v.pipe(
  characters(1, 1024, "must be the file's name, 1 to 1024 characters"),
  v.check((name) => name.isWellFormed(), 'must be valid Unicode (it contains a lone surrogate)'),
  v.description(
    DOCS
      ? "Instead of `key`: the file's name; the grant's `uploadKey` template (such as `users/{sub}/{uuid}-{filename}`) chooses the key, with the name sanitized."
      : '',
  ),
)

/** A field a mode does not take: refused with why (the document says `not: {}`). */
const refused = (message: string) => v.optional(v.never(message))

const POST_ONLY = 'is for mode "post" only; other modes need "key"'
const MULTIPART_ONLY = 'is for mode "multipart" only'
const lengthDescription = DOCS
  ? `Bytes: signed as the exact length (PUT up to ${MAX_PUT_BYTES}), a POST policy's range, or the multipart total. Required for multipart, and for a PUT where the grant limits size.`
  : ''

// One object's fields: at the top level for one upload, or in each entry of `items`.
const objectFields = {
  key: v.optional(ObjectKey),
  keyPrefix: v.optional(
    v.pipe(
      ObjectKey,
      v.description(
        DOCS
          ? 'POST on origins with keys "any" only: the form may choose any key starting with this.'
          : '',
      ),
    ),
  ),
  filename: v.optional(Filename),
  contentType: UploadContentType,
  contentLength: v.optional(
    v.pipe(wholeNumber(0, MAX_UPLOAD_BYTES), v.description(lengthDescription)),
  ),
  checksumSha256: v.optional(
    v.pipe(
      Sha256('the file'),
      v.description(
        DOCS
          ? 'PUT and POST: signed, so the store refuses any other bytes (and a body cut off mid-transfer); the completion check then attests exactly these bytes.'
          : '',
      ),
    ),
  ),
  overwrite: v.optional(
    v.pipe(
      v.boolean('must be true or false'),
      v.description(
        DOCS
          ? 'true: the upload may replace an object already at the key (needs a grant with overwrite). By default PUT URLs and multipart completes sign If-None-Match: *, and the store refuses (412) to replace one.'
          : '',
      ),
    ),
  ),
  metadata: v.optional(Metadata),
}
/** What a PUT takes of an object's fields. */
const putFields = {
  ...objectFields,
  keyPrefix: refused(POST_ONLY),
  contentLength: v.optional(
    v.pipe(
      wholeNumber(0, MAX_PUT_BYTES, `must be a whole number from 0 to ${MAX_PUT_BYTES}`),
      v.description(lengthDescription),
    ),
  ),
}
const POST_OVERWRITES =
  'must be true for mode "post": a POST form cannot refuse to replace an object already at its key, so one is issued only when the request asks for that (and a grant allows it: overwrite); mode "put" refuses to replace'
const postOverwrite = v.pipe(
  v.literal(true, POST_OVERWRITES),
  v.description(
    DOCS
      ? 'Mode "post": must be true, since a POST form cannot refuse to replace an object already at its key (a grant must allow overwrite too).'
      : '',
  ),
)
/** What a POST policy takes: it replaces what is at its key, so the request must say so. */
const postFields = {
  ...objectFields,
  overwrite: v.optional(postOverwrite),
}
/** What a multipart upload takes: its total size is its plan. */
const multipartFields = {
  ...objectFields,
  keyPrefix: refused(POST_ONLY),
  contentLength: v.pipe(wholeNumber(0, MAX_UPLOAD_BYTES), v.description(lengthDescription)),
  checksumSha256: refused('is for modes "put" and "post"; a multipart upload takes partChecksums'),
}
type ObjectField = keyof typeof objectFields
const OBJECT_FIELDS = Object.keys(objectFields) as ObjectField[]

const requiredMessages = {
  contentType: 'is required: the browser must send this exact Content-Type',
  contentLength: 'is required for multipart uploads',
  overwrite: POST_OVERWRITES,
}

/** One object's fields, as any mode's object has them. */
type UploadObject = {
  key?: string | undefined
  keyPrefix?: string | undefined
  filename?: string | undefined
  contentType: string
  contentLength?: number | undefined
  checksumSha256?: string | undefined
  overwrite?: boolean | undefined
  metadata?: Readonly<Record<string, string>> | undefined
}

// The rules across an object's fields, each filed at the field to change; `v.partialCheck` leaves
// a rule out where one of its fields already failed.
const NAMES_ONCE = (a: string, b: string) =>
  `send one of "key", "keyPrefix" or "filename", not ${a} and ${b}`
const KEY_REQUIRED = 'is required (or "filename", for a key the grant chooses)'
const bothAbsentOrOne =
  <const TField extends string>(a: TField, b: TField) =>
  (object: Partial<Record<TField, unknown>>) =>
    object[a] === undefined || object[b] === undefined
const namesItself = (object: { key?: unknown; keyPrefix?: unknown; filename?: unknown }) =>
  object.key !== undefined || object.keyPrefix !== undefined || object.filename !== undefined

/** At most one of `key`, `keyPrefix` and `filename`, each pair's refusal filed at the second. */
function namedOnce<T>(): v.GenericValidation<T>[] {
  const pairs: [NameField, NameField][] = [
    ['key', 'keyPrefix'],
    ['key', 'filename'],
    ['keyPrefix', 'filename'],
  ]
  const rules = pairs.map(([a, b]) =>
    v.forward(v.partialCheck([[a], [b]], bothAbsentOrOne(a, b), NAMES_ONCE(a, b)), [b]),
  )
  // A validation hands on its input as it is: rules over three fields hold for any T that has them.
  return rules as unknown as v.GenericValidation<T>[]
}
type NameField = 'key' | 'keyPrefix' | 'filename'

/** The document's word for the same rules. */
const NAMED_ONCE = {
  oneOf: [{ required: ['key'] }, { required: ['keyPrefix'] }, { required: ['filename'] }],
}

/** An entry of `items`, of any mode: its fields, then the rules across them. */
function uploadItem(fields: v.GenericSchema<unknown, UploadObject>) {
  return v.pipe(
    v.pipe(fields, ...namedOnce<UploadObject>()),
    v.forward(v.partialCheck([['key'], ['keyPrefix'], ['filename']], namesItself, KEY_REQUIRED), [
      'key',
    ]),
    v.metadata(DOCS ? NAMED_ONCE : {}),
  )
}

const itemType = 'must be an object { "key" | "filename", "contentType", "contentLength"?, … }'
const itemMessages = { required: requiredMessages, type: itemType }
const PutItem = uploadItem(strict(putFields, itemMessages))
const PostItem = uploadItem(strict({ ...postFields, overwrite: postOverwrite }, itemMessages))

const itemsDescription = DOCS
  ? "Many PUT or POST uploads in one call, each authorized on its own key (all or nothing), up to the grant's maxBatch; answered as `uploads`, in order."
  : ''
const modeDescription = DOCS
  ? 'put: one exact PUT URL (the default). post: a POST policy for a browser form. multipart: the Worker starts a multipart upload and signs part URLs.'
  : ''
const partSizeDescription = DOCS
  ? 'Multipart only: bytes per part (default 5 MiB, more when 10,000 parts would not fit). Required with `partChecksums`.'
  : ''
const partChecksumsDescription = DOCS
  ? "Multipart only: the base64 SHA-256 of parts 1, 2, … (of `partSize` bytes), as many as are known. The upload is then created with SHA-256 checksums: every part URL signs its part's SHA-256 (these come with the answer, later ones from /v1/uploads/multipart/parts with `checksums`), so the store refuses a part with any other bytes or cut off mid-transfer."
  : ''
const SUCCESS_STATUSES = 'is 200, 201 or 204, for mode "post" only'

// What each mode takes: a field another mode takes is refused here by name.
const putUpload = strictFields(
  {
    origin: OriginName,
    mode: v.optional(v.pipe(v.literal('put'), v.description(modeDescription)), 'put'),
    ...putFields,
    contentType: v.optional(UploadContentType),
    items: Batch(PutItem, itemsDescription),
    expiresIn: v.optional(ExpiresIn),
    partSize: refused(MULTIPART_ONLY),
    partChecksums: refused(MULTIPART_ONLY),
    successActionStatus: refused(SUCCESS_STATUSES),
  },
  { required: requiredMessages },
)
const postUpload = strictFields(
  {
    origin: OriginName,
    mode: v.literal('post'),
    ...postFields,
    contentType: v.optional(UploadContentType),
    items: Batch(PostItem, itemsDescription),
    expiresIn: v.optional(ExpiresIn),
    partSize: refused(MULTIPART_ONLY),
    partChecksums: refused(MULTIPART_ONLY),
    successActionStatus: v.optional(v.picklist([200, 201, 204], SUCCESS_STATUSES)),
  },
  { required: requiredMessages },
)
const multipartUpload = strictFields(
  {
    origin: OriginName,
    mode: v.literal('multipart'),
    ...multipartFields,
    items: refused('multipart uploads are started one at a time; send "put" or "post"'),
    expiresIn: v.optional(ExpiresIn),
    partSize: v.optional(
      v.pipe(
        wholeNumber(MIN_PART_SIZE_BYTES, MAX_PART_SIZE_BYTES),
        v.description(partSizeDescription),
      ),
    ),
    partChecksums: v.optional(
      v.pipe(
        list(Sha256('the part'), () => 'must be an array of base64 SHA-256 values, one per part'),
        v.minLength(1, 'must list the SHA-256 of at least the first part'),
        v.maxLength(MAX_PARTS, `must list at most ${MAX_PARTS} parts`),
        v.description(partChecksumsDescription),
      ),
    ),
    successActionStatus: refused(SUCCESS_STATUSES),
  },
  { required: requiredMessages },
)
const anyUpload = v.variant(
  'mode',
  [putUpload, postUpload, multipartUpload],
  `must be ${UPLOAD_MODES.slice(0, -1)
    .map((mode) => `"${mode}"`)
    .join(', ')} or "${UPLOAD_MODES.at(-1)}"`,
)
type UploadFields = v.InferOutput<typeof anyUpload>

const BELONGS_IN_ITEMS = 'belongs in each entry of "items" when "items" is sent'

/** `field` beside `items`: each entry carries its own. */
function besideItems(field: ObjectField): v.GenericValidation<UploadFields> {
  return v.forward(
    v.partialCheck(
      [['items'], [field]],
      (body) => body.items === undefined || body[field] === undefined,
      BELONGS_IN_ITEMS,
    ),
    [field],
  )
}

/**
 * The rules across a request's fields: an object's fields beside `items` (or, without it, the
 * same rules as `uploadItem`'s), and what `partChecksums` needs.
 */
function uploadRules(): v.GenericValidation<UploadFields>[] {
  return [
    ...OBJECT_FIELDS.map(besideItems),
    v.forward(
      v.partialCheck(
        [['items'], ['contentType']],
        (body) => body.items !== undefined || body.contentType !== undefined,
        requiredMessages.contentType,
      ),
      ['contentType'],
    ),
    ...namedOnce<UploadFields>(),
    v.forward(
      v.partialCheck(
        [['items'], ['key'], ['keyPrefix'], ['filename']],
        (body) => body.items !== undefined || namesItself(body),
        KEY_REQUIRED,
      ),
      ['key'],
    ),
    v.forward(
      v.partialCheck(
        [['mode'], ['items'], ['overwrite']],
        (body) => body.mode !== 'post' || body.items !== undefined || body.overwrite === true,
        POST_OVERWRITES,
      ),
      ['overwrite'],
    ),
    v.forward(
      v.partialCheck(
        [['partChecksums'], ['partSize']],
        (body) => body.partChecksums === undefined || body.partSize !== undefined,
        'is required with partChecksums: they are the checksums of parts of this size',
      ),
      ['partSize'],
    ),
  ]
}

/** One object's fields, as the services take it. */
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

function toItem(item: Omit<UploadObject, 'contentType'> & { contentType?: string | undefined }) {
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
  } satisfies UploadItem
}

/** An upload request: its mode's fields, then the rules across them. */
const checkedUpload = v.pipe(
  v.pipe(
    v.custom<v.InferInput<typeof anyUpload>>(
      isRecord,
      (issue) => `must be a JSON object, not ${typeName(issue.input)}`,
    ),
    anyUpload,
  ),
  ...uploadRules(),
)

export const UploadBody = v.pipe(
  checkedUpload,
  v.metadata(
    DOCS
      ? {
          allOf: [
            {
              oneOf: [
                {
                  required: ['items'],
                  not: { anyOf: OBJECT_FIELDS.map((field) => ({ required: [field] })) },
                },
                { not: { required: ['items'] }, required: ['contentType'], ...NAMED_ONCE },
              ],
            },
            // A single POST form says overwrite (each of a batch's does, by its item's schema).
            {
              anyOf: [
                { not: { required: ['mode'], properties: { mode: { const: 'post' } } } },
                { required: ['items'] },
                { required: ['overwrite'] },
              ],
            },
            { anyOf: [{ not: { required: ['partChecksums'] } }, { required: ['partSize'] }] },
          ],
        }
      : {},
  ),
  v.examples(
    DOCS
      ? [
          {
            origin: 'photos',
            mode: 'put' as const,
            key: 'uploads/cat.png',
            contentType: 'image/png',
            contentLength: 48213,
          },
          {
            origin: 'photos',
            mode: 'multipart' as const,
            key: 'uploads/film.mp4',
            contentType: 'video/mp4',
            contentLength: 26_214_400,
          },
          {
            origin: 'photos',
            mode: 'post' as const,
            items: [
              {
                filename: 'cat.png',
                contentType: 'image/png',
                contentLength: 48213,
                overwrite: true,
              },
              {
                filename: 'dog.jpg',
                contentType: 'image/jpeg',
                contentLength: 91822,
                overwrite: true,
              },
            ],
          },
        ]
      : [],
  ),
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

// The answers' parts: read by the document's generator only (DOCS), as the answers are.
const Expiry = DOCS
  ? v.pipe(v.string(), v.isoTimestamp(), v.description('When the URLs stop working.'))
  : (undefined as never)
const PartUrl = DOCS
  ? v.object({ partNumber: v.number(), url: v.pipe(v.string(), v.url()) })
  : (undefined as never)

const Receipt = DOCS
  ? v.pipe(
      UploadReceipt,
      v.description('For POST /v1/uploads/complete once the browser has uploaded.'),
    )
  : (undefined as never)
/** The key the object will have; a form with `keyPrefix` chooses its own. */
const named = {
  key: v.optional(v.string()),
  keyPrefix: v.optional(v.string()),
}

const OneUpload = DOCS
  ? v.variant('mode', [
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
  : (undefined as never)

// Read by the document's generator only (DOCS): the Workers' bundles keep no response schema.
export const UploadAnswer = DOCS
  ? v.pipe(
      v.union([
        OneUpload,
        v.object({
          uploads: v.pipe(v.array(OneUpload), v.description('One per entry of `items`, in order.')),
        }),
      ]),
      v.description('What to do next depends on `mode`; a request with `items` gets `uploads`.'),
    )
  : (undefined as never)

/** What names a multipart upload in every follow-up. */
const uploadRef = { origin: OriginName, key: ObjectKey, uploadId: UploadId }

export const PartsBody = strict({
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
        DOCS
          ? "For an upload created with partChecksums (required then): each part's base64 SHA-256, one per entry of partNumbers, in the same order."
          : '',
      ),
    ),
  ),
  expiresIn: v.optional(ExpiresIn),
})

// Read by the document's generator only (DOCS): the Workers' bundles keep no response schema.
export const PartsAnswer = DOCS
  ? v.object({ parts: v.array(PartUrl), expiresAt: Expiry })
  : (undefined as never)

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
      v.description(
        DOCS
          ? "The parts, each once, with the ETag each part's PUT returned (waybill completes them in part-number order). Without them, every part of the upload as the store lists it."
          : '',
      ),
    ),
  ),
})

/** An upload checked against what was signed, and stored (the document's only, as above). */
const StoredObject = DOCS
  ? {
      origin: v.string(),
      key: v.string(),
      size: v.pipe(v.number(), v.description('Bytes.')),
      contentType: v.string(),
      etag: v.string(),
    }
  : (undefined as never)

export const CompleteAnswer = DOCS ? v.object(StoredObject) : (undefined as never)

export const ListPartsBody = strict(uploadRef)

// Read by the document's generator only (DOCS): the Workers' bundles keep no response schema.
export const ListPartsAnswer = DOCS
  ? v.object({
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
        v.description(
          'The parts the store holds, ascending: a resuming client uploads the others.',
        ),
      ),
    })
  : (undefined as never)

export const CheckBody = strict({
  origin: OriginName,
  key: v.pipe(
    ObjectKey,
    v.description(DOCS ? 'The uploaded object: the key the upload answer named.' : ''),
  ),
  receipt: UploadReceipt,
  etag: v.optional(
    v.pipe(
      v.string('must be the ETag the store answered the upload with'),
      v.regex(/^[\x21-\x7e]{1,1024}$/, 'must be the ETag the store answered the upload with'),
      v.description(
        DOCS
          ? 'The ETag the store answered the PUT or POST with: when given, the object must still be those bytes (a replay of the same upload since is refused).'
          : '',
      ),
    ),
  ),
})

// Read by the document's generator only (DOCS): the Workers' bundles keep no response schema.
export const CheckAnswer = DOCS
  ? v.object({
      ...StoredObject,
      lastModified: v.string(),
      checksumSha256: v.optional(v.string()),
      mode: v.picklist(SINGLE_UPLOAD_MODES),
    })
  : (undefined as never)

export const AbortBody = strict(uploadRef)
