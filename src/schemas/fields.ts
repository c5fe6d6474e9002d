// The field schemas shared by the routes and the configuration: one definition of each field's
// shape, its limits (from limits.ts), its TypeScript type and its OpenAPI description.
// Messages name the rule, never the value.

import * as v from 'valibot'
import {
  MAX_BATCH_CEILING,
  MAX_EXPIRES_S,
  MAX_FILENAME_CHARS,
  MAX_KEY_BYTES,
  MAX_METADATA_BYTES,
  MAX_OVERRIDE_CHARS,
  MAX_PARTS,
  MAX_SIGNING_WINDOW_S,
  MAX_VERSION_ID_CHARS,
  MIN_EXPIRES_S,
  STORED_KEY_RANDOM_BYTES,
} from '../limits'
import { contentDisposition } from '../core/disposition'
import { sanitizeFilename } from '../core/filename'
import {
  canonicalMediaType,
  MAX_MEDIA_TYPE_CHARS,
  mediaTypePattern,
  passiveTypePattern,
} from '../core/media-type'
import { TOKEN_PATTERN } from '../core/token'
import { checkObjectKey } from '../core/keys'
import { checkHeaderValue } from '../core/s3/presign'
import { isWellFormedKey, utf8Length } from '../core/sigv4/encoding'
import { isRecord, list, record, strict, typeName } from './valibot'

const mustBeString = (issue: v.BaseIssue<unknown>) =>
  `must be a string, not ${typeName(issue.input)}`

/** Origin names: what bodies and paths use to pick an origin. */
const ORIGIN_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/

/** An origin's name, before a route says which kind of origin it takes. */
export const AnyOriginName = v.pipe(
  v.string('must be an origin name (a-z, 0-9, "-", "_")'),
  v.regex(ORIGIN_NAME, 'must be an origin name (a-z, 0-9, "-", "_")'),
)

export const OriginName = v.pipe(
  AnyOriginName,
  v.description(DOCS ? 'An origin configured in WAYBILL_ORIGINS.' : ''),
  v.examples(DOCS ? ['photos'] : []),
)

/** An object key as S3 takes it: well-formed Unicode, 1 to 1024 bytes of UTF-8. */
export const ObjectKey = v.pipe(
  v.string(mustBeString),
  // What the document can say of the rule below: its byte limit it says in words.
  v.minLength(1, 'must not be empty'),
  // v.check, not v.rawCheck: rawCheck builds a closure per call, which costs per key in a batch.
  v.check(
    (key) => checkObjectKey(key) === undefined,
    (issue) => checkObjectKey(issue.input) ?? 'is not an object key',
  ),
  v.description(
    DOCS
      ? `An object key: any Unicode without lone surrogates, 1 to ${MAX_KEY_BYTES} bytes of UTF-8.`
      : '',
  ),
  v.examples(DOCS ? ['gallery/2026/cat.jpg'] : []),
)

/** A key prefix: a key's start, possibly empty. */
export const KeyPrefix = v.pipe(
  v.string(mustBeString),
  v.check(
    (prefix) => isWellFormedKey(prefix) && utf8Length(prefix) <= MAX_KEY_BYTES,
    `must be valid Unicode of at most ${MAX_KEY_BYTES} bytes`,
  ),
  v.description(
    DOCS ? `A key prefix: valid Unicode, at most ${MAX_KEY_BYTES} bytes of UTF-8.` : '',
  ),
)

const expiresMessage = `must be a whole number of seconds from ${MIN_EXPIRES_S} to ${MAX_EXPIRES_S}`

/** `expiresIn`: whole seconds, 1 to 604800 (SigV4's seven days). Never clamped. */
export const ExpiresIn = v.pipe(
  v.number('must be a number'),
  v.integer(expiresMessage),
  v.minValue(MIN_EXPIRES_S, expiresMessage),
  v.maxValue(MAX_EXPIRES_S, expiresMessage),
  v.description(
    DOCS
      ? 'Seconds every URL stays valid from now; default WAYBILL_DEFAULT_EXPIRES_S (900), capped by the grant.'
      : '',
  ),
  v.examples(DOCS ? [900] : []),
)

const windowMessage = `must be a whole number of seconds from 0 to ${MAX_SIGNING_WINDOW_S}`

/** `signingWindow`: whole seconds, 0 (sign at the request time) to a day. */
export const SigningWindow = v.pipe(
  v.number(windowMessage),
  v.integer(windowMessage),
  v.minValue(0, windowMessage),
  v.maxValue(MAX_SIGNING_WINDOW_S, windowMessage),
  v.description(
    DOCS
      ? 'Seconds: URLs signed in the same window are byte-identical (see Stable URLs); 0 signs at the request time.'
      : '',
  ),
)

/** Characters as JSON Schema's minLength and maxLength count them: code points, not UTF-16 units. */
function codePoints(text: string): number {
  let n = text.length
  // Each high surrogate followed by a low one is one character of two units.
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}

/**
 * Text of `min` to `max` characters, counted as the document's minLength and maxLength count them
 * (valibot's minLength and maxLength count UTF-16 units: an emoji is two).
 */
export function characters(min: number, max: number, message: string) {
  return v.pipe(
    v.string(message),
    v.check((text) => {
      const n = codePoints(text)
      return n >= min && n <= max
    }, message),
    v.metadata(DOCS ? { minLength: min, maxLength: max } : {}),
  )
}

/** A whole number from a query parameter: digits only, then the number's own schema. */
export function queryNumber<TOut extends number>(
  schema: v.GenericSchema<number, TOut>,
  message: string,
) {
  return v.pipe(v.string(message), v.regex(/^\d{1,7}$/, message), v.transform(Number), schema)
}

export const QueryExpiresIn = queryNumber(ExpiresIn, expiresMessage)
export const QuerySigningWindow = queryNumber(SigningWindow, windowMessage)

const mediaTypeMessage = (example: string) =>
  `must be one media type such as "${example}" (type/subtype, then ";name=value" parameters; no commas, no wildcards)`

/**
 * A media type, parsed strictly (src/core/media-type.ts) into its canonical form: what is signed,
 * compared and stored is that form, never the text as sent.
 */
function mediaType(example: string, pattern: string) {
  const message = mediaTypeMessage(example)
  return v.pipe(
    v.string(message),
    v.maxLength(MAX_MEDIA_TYPE_CHARS, `must be at most ${MAX_MEDIA_TYPE_CHARS} characters`),
    v.check((text) => canonicalMediaType(text) !== undefined, message),
    // The parser's grammar for the document (with one parameter: see mediaTypePattern).
    v.metadata(DOCS ? { pattern } : {}),
    v.transform((text) => canonicalMediaType(text)!),
  )
}

/** The exact media type an upload must be sent with. */
export const UploadContentType = v.pipe(
  v.string('must be one media type such as "image/png"'),
  v.check(
    (text) => !text.endsWith('/*'),
    'must be the file\'s own exact type, not a family such as "image/*": what is signed is one exact type',
  ),
  mediaType('image/png', mediaTypePattern()),
  v.description(
    DOCS
      ? "The exact Content-Type the upload must be sent with (the file's own type). A grant's family such as `image/*` admits only its passive types."
      : '',
  ),
  v.examples(DOCS ? ['image/png'] : []),
)

/** A value S3 echoes into a response header: printable ASCII, 1 to 1024 characters. */
const HeaderValue = v.pipe(
  v.string(mustBeString),
  v.minLength(1, `must be 1 to ${MAX_OVERRIDE_CHARS} characters`),
  v.maxLength(MAX_OVERRIDE_CHARS, `must be 1 to ${MAX_OVERRIDE_CHARS} characters`),
  v.check(
    (value) => checkHeaderValue(value) === undefined,
    (issue) => checkHeaderValue(issue.input) ?? 'must be printable ASCII',
  ),
  // checkHeaderValue's rule, for the document.
  v.metadata(DOCS ? { pattern: '^[\\x20-\\x7e]*$' } : {}),
)

/**
 * A `response.contentType` override. Anything but one well-formed type makes browsers sniff the
 * body or take another type, which can find HTML.
 */
export const OverrideContentType = v.pipe(
  // The document's pattern is the passive types any grant allows: a grant's responseContentTypes
  // may name others, which the authorization checks (src/auth/policy/).
  mediaType('application/pdf', passiveTypePattern()),
  v.description(
    DOCS
      ? "Only passive types (images, audio, video, plain text, PDF, …, as the pattern lists them) unless the grant's responseContentTypes names the type exactly."
      : '',
  ),
)

/** `response-*` overrides S3 applies to a GET or HEAD answer. */
export const ResponseOverrides = strict(
  {
    cacheControl: v.optional(HeaderValue),
    contentDisposition: v.optional(
      v.pipe(
        HeaderValue,
        v.description(
          DOCS ? "Put a Unicode file name in filename*=UTF-8''<percent-encoded> (RFC 6266)." : '',
        ),
      ),
    ),
    contentEncoding: v.optional(HeaderValue),
    contentLanguage: v.optional(HeaderValue),
    contentType: v.optional(OverrideContentType),
    expires: v.optional(HeaderValue),
  },
  { type: 'must be an object' },
)

export const VersionId = v.pipe(
  v.string(mustBeString),
  v.regex(
    new RegExp(`^[\\x21-\\x7e]{1,${MAX_VERSION_ID_CHARS}}$`),
    `must be a non-empty string of printable ASCII, at most ${MAX_VERSION_ID_CHARS} characters`,
  ),
)

/** The ways a browser uploads: one vocabulary for requests, receipts, events and origins. */
export const UPLOAD_MODES = ['put', 'post', 'multipart'] as const
export type UploadMode = (typeof UPLOAD_MODES)[number]
/** The modes whose artifact the store may take more than once (a receipt's). */
export const SINGLE_UPLOAD_MODES = ['put', 'post'] as const satisfies readonly UploadMode[]

const METADATA_NAME = /^[a-z0-9][a-z0-9-]{0,127}$/
const RESERVED_NAMES = ['__proto__', 'constructor', 'prototype']

/**
 * The metadata every upload signs with its own random value, which the store keeps with the
 * object (`x-amz-meta-waybill-upload`): it binds a receipt or a multipart handle to what its
 * artifact stored (src/services/uploads/sealed.ts). A caller's metadata cannot use the name.
 */
export const UPLOAD_TAG = 'waybill-upload'
/** An upload tag's characters: 16 random bytes in base64url. */
export const UPLOAD_TAG_CHARS = 22
/** What a caller's metadata may total: S3's limit, less the upload tag's name and value. */
const MAX_CALLER_METADATA_BYTES = MAX_METADATA_BYTES - UPLOAD_TAG.length - UPLOAD_TAG_CHARS

/** `x-amz-meta-*` fields: lower-case names, printable ASCII values, at most 2 KiB in all. */
export const Metadata = v.pipe(
  v.unknown(),
  // valibot's record drops these names silently; a caller should hear that they cannot be sent.
  v.check(
    (input) => !isRecord(input) || !RESERVED_NAMES.some((name) => Object.hasOwn(input, name)),
    (issue) =>
      `must not use the name "${RESERVED_NAMES.find((name) => Object.hasOwn(issue.input as object, name))}" (reserved in JavaScript objects)`,
  ),
  v.check(
    (input) => !isRecord(input) || !Object.hasOwn(input, UPLOAD_TAG),
    `must not use the name "${UPLOAD_TAG}": waybill signs it into every upload, to know the object it stored`,
  ),
  record(
    v.pipe(
      v.string(),
      v.regex(METADATA_NAME, 'names are lower-case a-z, 0-9 and "-" (sent as x-amz-meta-<name>)'),
    ),
    v.pipe(
      v.string('must be a string of printable ASCII'),
      v.regex(/^[\x20-\x7e]*$/, 'must be a string of printable ASCII'),
    ),
    (input) => `must be an object of name to value, not ${typeName(input)}`,
  ),
  v.check(
    (metadata) =>
      Object.entries(metadata).reduce((n, [name, value]) => n + name.length + value.length, 0) <=
      MAX_CALLER_METADATA_BYTES,
    `must total at most ${MAX_CALLER_METADATA_BYTES} bytes (names and values; S3 allows ${MAX_METADATA_BYTES}, and waybill's upload tag takes the rest)`,
  ),
  v.metadata(
    DOCS
      ? {
          not: { anyOf: [...RESERVED_NAMES, UPLOAD_TAG].map((name) => ({ required: [name] })) },
        }
      : {},
  ),
  v.description(DOCS ? 'User metadata, sent as x-amz-meta-<name> headers.' : ''),
)

/** Why `name` cannot be a download's file name (any Unicode a header can carry), or undefined. */
function filenameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > MAX_FILENAME_CHARS || !name.isWellFormed()) {
    return `must be a file name of 1 to ${MAX_FILENAME_CHARS} characters`
  }
  if (/[\x00-\x1f\x7f-\x9f]/.test(name)) return 'must not contain control characters'
  if (contentDisposition('attachment', name).length > MAX_OVERRIDE_CHARS) {
    return `is too long: its Content-Disposition must fit ${MAX_OVERRIDE_CHARS} characters`
  }
  return undefined
}

/**
 * What the document says of a download's file name: no control characters, and at most 64
 * characters, which always fit (the code's limits are 255 UTF-16 units and a Content-Disposition
 * of at most 1024 characters, 13 per character at worst; JSON Schema counts neither).
 */
export function documentedName(least: 0 | 1): string {
  return `^[^\\x00-\\x1f\\x7f-\\x9f]{${least},64}$`
}

/**
 * `download` / `inline`: S3 (or the bucket behind CloudFront) sends the object with
 * `Content-Disposition: attachment` (or `inline`) and this file name; `true` names it after the
 * key's last segment. Names are sanitized as upload names are (src/core/filename.ts).
 */
export const Disposition = v.pipe(
  v.union([v.literal(true), v.string()], 'must be true or a file name'),
  v.metadata(DOCS ? { pattern: documentedName(1) } : {}),
  v.check(
    (value) => value === true || filenameProblem(value) === undefined,
    (issue) => (typeof issue.input === 'string' ? filenameProblem(issue.input) : undefined) ?? '',
  ),
  // The same sanitizer as upload names: no bidi or format characters, no path, NFC.
  v.transform((value) => (value === true ? value : sanitizeFilename(value, Infinity))),
  v.description(
    DOCS
      ? "A file name (or true for the key's last segment): the object comes with Content-Disposition naming it (RFC 6266, with filename* for Unicode)."
      : '',
  ),
  v.examples(DOCS ? ['report 2026.pdf'] : []),
)

// The rules across one object's `download`, `inline` and `response`: one disposition at most,
// Content-Disposition set once, and `true` only for a key with a name after its last "/". Each
// rule is a requirement and its message, which an object's schema states with `v.partialCheck`
// (filed at the field to change), and the document with `DISPOSITION_RULES`.

type Dispositions = { key?: unknown; download?: unknown; inline?: unknown }

export const ONE_DISPOSITION = 'send either "download" or "inline", not both'
export const oneDisposition = (object: Dispositions) =>
  object.download === undefined || object.inline === undefined

export const NEEDS_FILE_NAME = 'needs a file name: the key has none after its last "/"'
/** `field: true` names the file after the key's last segment, which must not be empty. */
export const namesFile = (field: 'download' | 'inline') => (object: Dispositions) =>
  object[field] !== true || typeof object.key !== 'string' || !object.key.endsWith('/')

export const DISPOSITION_TWICE =
  'sets Content-Disposition itself: send it or response.contentDisposition, not both'
export const dispositionOnce =
  (field: 'download' | 'inline') =>
  (object: Dispositions & { response?: { contentDisposition?: unknown } | undefined }) =>
    object[field] === undefined || object.response?.contentDisposition === undefined

const DISPOSITIONS = ['download', 'inline'] as const

/** The document's word for the rules above, for an object with `key`, `download` and `inline`. */
export const DISPOSITION_RULES = [
  { not: { required: ['download', 'inline'] } },
  ...DISPOSITIONS.map((field) => ({
    not: {
      required: [field, 'key'],
      properties: { [field]: { const: true }, key: { pattern: '/$' } },
    },
  })),
]
/** …and for one with `response` too. */
export const OVERRIDE_RULES = DISPOSITIONS.map((field) => ({
  not: {
    required: [field, 'response'],
    properties: { response: { required: ['contentDisposition'] } },
  },
}))

/** A part number of a multipart upload. */
export const PartNumber = v.pipe(
  v.number(`must be a part number from 1 to ${MAX_PARTS}`),
  v.integer(`must be a part number from 1 to ${MAX_PARTS}`),
  v.minValue(1, `must be a part number from 1 to ${MAX_PARTS}`),
  v.maxValue(MAX_PARTS, `must be a part number from 1 to ${MAX_PARTS}`),
)

/** What waybill seals (upload handles and receipts, listing cursors): a token (src/core/token.ts). */
const SEALED = TOKEN_PATTERN

export const UploadId = v.pipe(
  v.string('must be the uploadId POST /v1/uploads returned'),
  v.regex(SEALED, 'must be the uploadId POST /v1/uploads returned'),
  v.description(
    DOCS
      ? "waybill's handle for a multipart upload: opaque, bound to the caller and the key that started it."
      : '',
  ),
)

export const UploadReceipt = v.pipe(
  v.string('must be the receipt POST /v1/uploads returned'),
  v.regex(SEALED, 'must be the receipt POST /v1/uploads returned'),
  v.description(
    DOCS
      ? 'What a PUT URL or POST policy was signed for (key, type, size, checksum): opaque, bound to the caller.'
      : '',
  ),
)

export const Cursor = v.pipe(
  v.string('is not a cursor from a previous page of this listing'),
  v.regex(SEALED, 'is not a cursor from a previous page of this listing'),
  v.description(DOCS ? 'Where the previous page ended; opaque, bound to the listing.' : ''),
)

/** A whole number in a range, with one message for every way to miss it. */
export function wholeNumber(min: number, max: number, message?: string) {
  const text = message ?? `must be a whole number from ${min} to ${max}`
  return v.pipe(v.number(text), v.integer(text), v.minValue(min, text), v.maxValue(max, text))
}

/**
 * An optional batch of `item`s: 1 to MAX_BATCH_CEILING entries here (a caller's own limit, the
 * grant's maxBatch, is `authorize`'s to enforce).
 */
export const Batch = <TItem extends v.GenericSchema>(item: TItem, description: string) =>
  v.optional(
    v.pipe(
      list(item),
      v.minLength(1, 'must contain at least one entry'),
      v.maxLength(
        MAX_BATCH_CEILING,
        (issue) =>
          `must contain at most ${MAX_BATCH_CEILING} entries (got ${issue.input.length}); split the batch`,
      ),
      v.description(DOCS ? description : ''),
    ),
  )

/** `schema`, whose batch names its objects by `keys` or by `items`: one of them, not both. */
export function keysOrItems<TSchema extends v.GenericSchema<unknown, Batch>>(schema: TSchema) {
  const rules = [
    v.forward(
      v.partialCheck(
        [['keys'], ['items']],
        (body: Batch) => body.keys !== undefined || body.items !== undefined,
        'is required (or "items")',
      ),
      ['keys'],
    ),
    v.forward(
      v.partialCheck(
        [['keys'], ['items']],
        (body: Batch) => body.keys === undefined || body.items === undefined,
        'send either "keys" or "items", not both',
      ),
      ['items'],
    ),
  ]
  // A validation hands on its input as it is: rules over two fields hold for any schema with them.
  return v.pipe(schema, ...(rules as unknown as v.GenericValidation<v.InferOutput<TSchema>>[]))
}
type Batch = { keys?: unknown; items?: unknown }

/** An API key's id as WAYBILL_API_KEYS and the admin API name keys (and admin tokens). */
export const KEY_ID_PATTERN = '[A-Za-z0-9][A-Za-z0-9._-]{0,63}'
const idMessage = 'must be 1-64 characters of A-Z, a-z, 0-9, ".", "_" and "-"'

/** An API key's (or admin token's) id: the caller `apiKey:<id>`, as grants name it too. */
export const KeyId = v.pipe(
  v.string(idMessage),
  v.regex(new RegExp(`^${KEY_ID_PATTERN}$`), idMessage),
  v.description(
    DOCS ? 'A key id: the caller `apiKey:<id>`, in grants, quotas, logs and usage alike.' : '',
  ),
  v.examples(DOCS ? ['web'] : []),
)

// Text without control characters (Unicode's Cc: C0, DEL and C1), as the document's pattern says.
const NO_CONTROLS = /^[^\x00-\x1f\x7f-\x9f]*$/
const labelMessage = 'must be a string of at most 200 characters, without control characters'

/** A label for people; stored and answered as given, never interpreted. */
export const KeyLabel = v.pipe(
  characters(0, 200, labelMessage),
  v.regex(NO_CONTROLS, labelMessage),
  v.description(DOCS ? 'What the key is for, for people.' : ''),
)

const timeMessage = 'must be a time such as "2026-11-23T12:00:00Z"'

/** An ISO 8601 time, as epoch milliseconds. */
export const Time = v.pipe(
  v.string(timeMessage),
  v.isoTimestamp(timeMessage),
  v.transform((time) => Date.parse(time)),
)

const principalMessage =
  'must be a caller as the request log names it: "apiKey:<id>", "jwt:<sub>" or "access:<sub>"'

/**
 * A caller as logs, usage, audit events and link revocations name it: `apiKey:web` (as grants
 * name the key), `jwt:alice`, `access:alice`. The spelling before callers had one name,
 * `api-key:web`, is read as `apiKey:web`.
 */
export const PrincipalName = v.pipe(
  characters(1, 300, principalMessage),
  v.regex(/^(?:apiKey|api-key|jwt|access):[^\x00-\x1f\x7f-\x9f]+$/, principalMessage),
  v.transform((name) => (name.startsWith('api-key:') ? `apiKey:${name.slice(8)}` : name)),
  v.examples(DOCS ? ['apiKey:web'] : []),
)

/** What a stored key starts with, before "_" and its random part (`wb`, `live`). */
export const SECRET_PREFIX = '[a-z][a-z0-9]{0,15}'
/** Base64url characters of a stored key's random part. */
export const RANDOM_CHARS = Math.ceil((STORED_KEY_RANDOM_BYTES * 4) / 3)
/** The shape of every key the admin API makes: anything else is not looked up in D1. */
export const STORED_KEY = new RegExp(`^${SECRET_PREFIX}_[A-Za-z0-9_-]{${RANDOM_CHARS}}$`)
