// POST /v1/sign: the request and the answer.

import * as v from 'valibot'
import { MAX_BATCH_CEILING } from '../limits'
import {
  Batch,
  checkDisposition,
  Disposition,
  ExpiresIn,
  ObjectKey,
  OriginName,
  ResponseOverrides,
  SigningWindow,
  VersionId,
} from './fields'
import { isRecord, pathTo, strict } from './valibot'

/** A batch field: `keys` or `items`. */
const batchOf = <TItem extends v.GenericSchema>(item: TItem) =>
  Batch(
    item,
    `1 to WAYBILL_MAX_BATCH entries (default 10,000, at most ${MAX_BATCH_CEILING}), or the grant's maxBatch.`,
  )

const SignItem = strict(
  {
    key: ObjectKey,
    versionId: v.optional(VersionId),
    response: v.optional(ResponseOverrides),
    download: v.optional(Disposition),
    inline: v.optional(Disposition),
  },
  { type: 'must be an object { "key", "versionId"?, "response"?, "download"?, "inline"? }' },
)

const signFields = strict(
  {
    origin: OriginName,
    method: v.optional(
      v.pipe(
        v.picklist(['GET', 'HEAD', 'PUT', 'DELETE'], 'must be one of GET, HEAD, PUT, DELETE'),
        v.description('GET and HEAD need a read grant, PUT write, DELETE delete.'),
      ),
      'GET',
    ),
    expiresIn: v.optional(ExpiresIn),
    keys: batchOf(ObjectKey),
    items: batchOf(SignItem),
    policy: v.optional(
      v.pipe(
        v.picklist(['canned', 'wildcard'], 'must be "canned" or "wildcard"'),
        v.description(
          'CloudFront only: a canned policy per URL, or one wildcard policy for the batch.',
        ),
      ),
    ),
    signingWindow: v.optional(SigningWindow),
    debug: v.optional(
      v.pipe(
        v.boolean('must be true or false'),
        v.description('Also answer what was signed per URL (needs a debug grant).'),
      ),
      false,
    ),
  },
  { required: { origin: 'is required' } },
)

export const SignBody = v.pipe(
  signFields,
  // What one field allows depends on another: checked once per request, with paths set here.
  // Checked even when a field failed, so every problem is told at once.
  v.rawCheck(({ dataset, addIssue }) => {
    const body = dataset.value
    if (!isRecord(body)) return
    const { keys, items, method } = body
    if (keys === undefined && items === undefined) {
      addIssue({ message: 'is required (or "items")', path: pathTo(body, 'keys') })
    } else if (keys !== undefined && items !== undefined) {
      addIssue({ message: 'send either "keys" or "items", not both', path: pathTo(body, 'items') })
    }
    if (!Array.isArray(items)) return
    const writes = method === 'PUT' || method === 'DELETE'
    items.forEach((item: unknown, i) => {
      if (!isRecord(item)) return
      checkDisposition(item, (field, message) =>
        addIssue({ message, path: pathTo(body, 'items', i, field) }),
      )
      if (!writes) return
      for (const field of ['download', 'inline'] as const) {
        if (field in item) {
          addIssue({
            message: 'applies to GET and HEAD only',
            path: pathTo(body, 'items', i, field),
          })
        }
      }
      if (method === 'PUT' && 'versionId' in item) {
        addIssue({
          message: 'cannot be used with PUT',
          path: pathTo(body, 'items', i, 'versionId'),
        })
      }
      if ('response' in item) {
        addIssue({
          message: 'response overrides apply to GET and HEAD only',
          path: pathTo(body, 'items', i, 'response'),
        })
      }
    })
  }),
  v.metadata({ oneOf: [{ required: ['keys'] }, { required: ['items'] }] }),
  v.examples([
    { origin: 'photos', method: 'GET', expiresIn: 900, keys: ['a.jpg', 'b/c d.png'], debug: false },
  ]),
)
export type SignBody = v.InferOutput<typeof SignBody>

const SigningSteps = v.union([
  v.object({ canonicalRequest: v.string(), stringToSign: v.string() }),
  v.object({ policy: v.string() }),
])

export const SignAnswer = v.object({
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
