// POST /v1/sign: the request and the answer.

import * as v from 'valibot'
import { MAX_BATCH_CEILING } from '../limits'
import {
  Batch,
  Disposition,
  DISPOSITION_RULES,
  DISPOSITION_TWICE,
  dispositionOnce,
  ExpiresIn,
  namesFile,
  NEEDS_FILE_NAME,
  ObjectKey,
  ONE_DISPOSITION,
  oneDisposition,
  OriginName,
  OVERRIDE_RULES,
  ResponseOverrides,
  SigningWindow,
  VersionId,
  keysOrItems,
} from './fields'
import { isRecord, strict, strictFields, typeName } from './valibot'

/** A batch field: `keys` or `items`. */
const batchOf = <TItem extends v.GenericSchema>(item: TItem) =>
  Batch(
    item,
    `1 to WAYBILL_MAX_BATCH entries (default 10,000, at most ${MAX_BATCH_CEILING}), or the grant's maxBatch.`,
  )

const itemType = 'must be an object { "key", "versionId"?, "response"?, "download"?, "inline"? }'

/** An entry of `items` for GET and HEAD, and the rules across its fields. */
const ReadItem = v.pipe(
  strict(
    {
      key: ObjectKey,
      versionId: v.optional(VersionId),
      response: v.optional(ResponseOverrides),
      download: v.optional(Disposition),
      inline: v.optional(Disposition),
    },
    { type: itemType },
  ),
  v.forward(v.partialCheck([['download'], ['inline']], oneDisposition, ONE_DISPOSITION), [
    'inline',
  ]),
  v.forward(
    v.partialCheck([['download'], ['response']], dispositionOnce('download'), DISPOSITION_TWICE),
    ['download'],
  ),
  v.forward(
    v.partialCheck([['inline'], ['response']], dispositionOnce('inline'), DISPOSITION_TWICE),
    ['inline'],
  ),
  v.forward(v.partialCheck([['key'], ['download']], namesFile('download'), NEEDS_FILE_NAME), [
    'download',
  ]),
  v.forward(v.partialCheck([['key'], ['inline']], namesFile('inline'), NEEDS_FILE_NAME), [
    'inline',
  ]),
  v.metadata(DOCS ? { allOf: [...DISPOSITION_RULES, ...OVERRIDE_RULES] } : {}),
)

/** A field a method does not take: refused with why (the document says `not: {}`). */
const refused = (message: string) => v.optional(v.never(message))
const READS_ONLY = 'applies to GET and HEAD only'
const OVERRIDES_READ_ONLY = 'response overrides apply to GET and HEAD only'

/** An entry of `items` for PUT: a key, nothing a GET answer would carry. */
const PutItem = strict(
  {
    key: ObjectKey,
    versionId: refused('cannot be used with PUT'),
    response: refused(OVERRIDES_READ_ONLY),
    download: refused(READS_ONLY),
    inline: refused(READS_ONLY),
  },
  { type: itemType },
)

/** An entry of `items` for DELETE: a key, and a version to delete. */
const DeleteItem = strict(
  {
    key: ObjectKey,
    versionId: v.optional(VersionId),
    response: refused(OVERRIDES_READ_ONLY),
    download: refused(READS_ONLY),
    inline: refused(READS_ONLY),
  },
  { type: itemType },
)

const fields = {
  origin: OriginName,
  expiresIn: v.optional(ExpiresIn),
  keys: batchOf(ObjectKey),
  policy: v.optional(
    v.pipe(
      v.picklist(['canned', 'wildcard'], 'must be "canned" or "wildcard"'),
      v.description(
        DOCS
          ? 'CloudFront only: a canned policy per URL, or one wildcard policy for the batch.'
          : '',
      ),
    ),
  ),
  signingWindow: v.optional(SigningWindow),
  debug: v.optional(
    v.pipe(
      v.boolean('must be true or false'),
      v.description(DOCS ? 'Also answer what was signed per URL (needs a debug grant).' : ''),
    ),
    false,
  ),
}

// What each method takes: what only a GET or HEAD answer carries is refused for the others.
const methods = v.variant(
  'method',
  [
    strictFields({
      ...fields,
      method: v.optional(
        v.pipe(
          v.picklist(['GET', 'HEAD']),
          v.description(
            DOCS ? 'GET (the default) and HEAD need a read grant, PUT write, DELETE delete.' : '',
          ),
        ),
        'GET',
      ),
      items: batchOf(ReadItem),
    }),
    strictFields({ ...fields, method: v.literal('PUT'), items: batchOf(PutItem) }),
    strictFields({ ...fields, method: v.literal('DELETE'), items: batchOf(DeleteItem) }),
  ],
  'must be one of GET, HEAD, PUT, DELETE',
)

const signFields = v.pipe(
  v.custom<v.InferInput<typeof methods>>(
    isRecord,
    (issue) => `must be a JSON object, not ${typeName(issue.input)}`,
  ),
  methods,
)

export const SignBody = v.pipe(
  keysOrItems(signFields),
  // The variant is the document's `oneOf` of methods; this one goes beside it.
  v.metadata(DOCS ? { allOf: [{ oneOf: [{ required: ['keys'] }, { required: ['items'] }] }] } : {}),
  v.examples(
    DOCS
      ? [
          {
            origin: 'photos',
            method: 'GET',
            expiresIn: 900,
            keys: ['a.jpg', 'b/c d.png'],
            debug: false,
          },
        ]
      : [],
  ),
)
export type SignBody = v.InferOutput<typeof SignBody>

// What each kind of URL signs: SigV4's, CloudFront's policy, or waybill's own (prefix, message).
// Read by the document's generator only (DOCS), as the answer is.
const SigningSteps = DOCS
  ? v.union([
      v.object({ canonicalRequest: v.string(), stringToSign: v.string() }),
      v.object({ policy: v.string() }),
      v.object({ prefix: v.string(), message: v.string() }),
    ])
  : (undefined as never)

// Read by the document's generator only (DOCS): the Workers' bundles keep no response schema.
export const SignAnswer = DOCS
  ? v.object({
      origin: v.string(),
      method: v.picklist(['GET', 'HEAD', 'PUT', 'DELETE']),
      expiresAt: v.pipe(v.string(), v.isoTimestamp(), v.description('When the URLs stop working.')),
      urls: v.array(
        v.object({
          key: v.string(),
          url: v.pipe(v.string(), v.url()),
          debug: v.optional(v.pipe(SigningSteps, v.description('With "debug": what was signed.'))),
        }),
      ),
    })
  : (undefined as never)
