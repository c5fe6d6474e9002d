// GET /v1/redirect/{origin}/{key…}: the path and the query.

import * as v from 'valibot'
import { Disposition, ObjectKey, OriginName, OverrideContentType, QueryExpiresIn } from './fields'
import { isRecord, pathTo, strict, strictFields } from './valibot'

/** The origin and the key, from the raw path (the key decoded exactly once): always an object. */
export const RedirectTarget = strictFields({
  origin: OriginName,
  key: v.pipe(
    ObjectKey,
    v.description(
      'The rest of the path, percent-decoded once: `%2F` is a slash inside the key, `%25` a percent sign.',
    ),
  ),
})

/** `?download=report.pdf`, or `?download` alone for the key's last segment. */
const QueryDisposition = v.pipe(
  v.string('must be given once'),
  v.transform((value): true | string => (value === '' ? true : value)),
  Disposition,
)

export const RedirectQuery = v.pipe(
  strict(
    {
      expiresIn: v.optional(
        v.pipe(QueryExpiresIn, v.description('Seconds the URL stays valid; capped by the grant.')),
      ),
      download: v.optional(QueryDisposition),
      inline: v.optional(QueryDisposition),
      contentType: v.optional(OverrideContentType),
    },
    { noun: 'parameter' },
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    const query = dataset.value
    if (isRecord(query) && query.download !== undefined && query.inline !== undefined) {
      addIssue({
        message: 'send either "download" or "inline", not both',
        path: pathTo(query, 'inline'),
      })
    }
  }),
)
