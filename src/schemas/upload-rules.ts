// GET /v1/uploads/rules: the query and the answer.

import * as v from 'valibot'
import { OriginName } from './fields'
import { strict } from './valibot'

export const UploadRulesQuery = strict({ origin: OriginName }, { noun: 'parameter' })
export type UploadRulesQuery = v.InferOutput<typeof UploadRulesQuery>

// The answers' parts: read by the document's generator only (DOCS), as the answers are.
const UploadRule = DOCS
  ? v.object({
      prefix: v.pipe(
        v.string(),
        v.description(
          'Keys it covers: this prefix, filled for the caller, on whole path segments (`users/al` covers `users/al` and `users/al/x`, not `users/alice`; one ending in `/` covers what starts with it; empty covers every key).',
        ),
      ),
      uploadKey: v.pipe(
        v.nullable(v.string()),
        v.description(
          "Where a file sent with `filename` goes, filled for the caller: `{uuid}` and `{filename}` (sanitized) are the upload's own. The first rule that has one names every such file.",
        ),
      ),
      contentTypes: v.pipe(
        v.nullable(v.array(v.string())),
        v.description(
          'The types the grant names, for a file input’s `accept`: exact, or a family such as `image/*`, which admits only its passive types (`admittedTypes`); null: any type.',
        ),
      ),
      admittedTypes: v.pipe(
        v.nullable(v.array(v.string())),
        v.description(
          'Every type an upload may have (its essence, lower case): `contentTypes` with each family as the passive types it admits; null: any type.',
        ),
      ),
      maxContentLength: v.pipe(
        v.nullable(v.number()),
        v.description(
          'The most bytes an upload may have, which it must then state (`contentLength`); null: the store’s own limits.',
        ),
      ),
      modes: v.pipe(
        v.array(v.picklist(['put', 'post', 'multipart'])),
        v.description(
          '"post" only where both the grant (`overwrite`) and the store allow a POST form, which replaces what is at its key.',
        ),
      ),
      overwrite: v.pipe(
        v.boolean(),
        v.description('Whether an upload may replace an object already at its key.'),
      ),
      maxExpiresIn: v.pipe(v.number(), v.description('The most seconds its URLs may live.')),
      maxBatch: v.pipe(v.number(), v.description('The most uploads one request may carry.')),
    })
  : (undefined as never)

// Read by the document's generator only (DOCS): the Workers' bundles keep no response schema.
export const UploadRulesAnswer = DOCS
  ? v.object({
      origin: v.string(),
      rules: v.pipe(
        v.array(UploadRule),
        v.description(
          "One per write grant of the caller's on the origin, in the order they apply: an upload is allowed when one rule admits its key, type, size, mode and overwrite all at once. Empty: nothing may be uploaded here.",
        ),
      ),
    })
  : (undefined as never)
