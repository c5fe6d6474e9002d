// GET /v1/redirect/{origin}/{key…}: the path and the query.

import * as v from 'valibot'
import { ObjectKey, OriginName, QueryExpiresIn } from './fields'
import { strict } from './valibot'

/** The origin and the key, from the raw path (the key decoded exactly once). */
export const RedirectTarget = strict({
  origin: OriginName,
  key: v.pipe(
    ObjectKey,
    v.description(
      'The rest of the path, percent-decoded once: `%2F` is a slash inside the key, `%25` a percent sign.',
    ),
  ),
})

export const RedirectQuery = strict(
  {
    expiresIn: v.optional(
      v.pipe(QueryExpiresIn, v.description('Seconds the URL stays valid; capped by the grant.')),
    ),
  },
  { noun: 'parameter' },
)
