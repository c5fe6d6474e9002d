// GET /v1/redirect/{origin}/{key…}: the path and the query.

import * as v from 'valibot'
import {
  Disposition,
  documentedName,
  ObjectKey,
  OriginName,
  OverrideContentType,
  QueryExpiresIn,
} from './fields'
import { strict, strictFields } from './valibot'

/** The origin and the key, from the raw path (the key decoded exactly once): always an object. */
export const RedirectTarget = strictFields({
  origin: OriginName,
  key: v.pipe(
    ObjectKey,
    v.description(
      DOCS
        ? 'The rest of the path, percent-decoded once: `%2F` is a slash inside the key, `%25` a percent sign.'
        : '',
    ),
  ),
})

/** `?download=report.pdf`, or `?download` alone for the key's last segment. */
const QueryDisposition = v.pipe(
  v.string('must be given once'),
  v.transform((value): true | string => (value === '' ? true : value)),
  Disposition,
  // In a query, empty is the key's last segment.
  v.metadata(DOCS ? { pattern: documentedName(0) } : {}),
)

/**
 * The query. With both `download` and `inline`, `download` wins (as for every object waybill
 * signs: src/services/objects.ts): a query cannot say in its document that two parameters
 * exclude each other, so the one that never renders in the browser is taken.
 */
export const RedirectQuery = strict(
  {
    expiresIn: v.optional(
      v.pipe(
        QueryExpiresIn,
        v.description(DOCS ? 'Seconds the URL stays valid; capped by the grant.' : ''),
      ),
    ),
    download: v.optional(QueryDisposition),
    inline: v.optional(
      v.pipe(
        QueryDisposition,
        v.description(
          DOCS
            ? 'As `download`, but the browser may show the object; ignored with `download`.'
            : '',
        ),
      ),
    ),
    contentType: v.optional(OverrideContentType),
  },
  { noun: 'parameter' },
)
