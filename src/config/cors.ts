// WAYBILL_CORS: which browser origins may call the API.
//   { "origins": ["https://app.example.com"] | "*", "credentials"?: false, "maxAgeS"?: 600 }

import * as v from 'valibot'
import { wholeNumber } from '../schemas/fields'
import { pathTo, strict } from '../schemas/valibot'
import { webUrl } from '../schemas/config'
import { DEFAULT_CORS_MAX_AGE_S } from '../limits'
import type { CorsConfig } from './types'

const originsMessage =
  'must be "*" or a list of web origins such as "https://app.example.com" (no path)'
const Origins = v.union(
  [
    v.literal('*', originsMessage),
    v.pipe(
      v.array(v.string(originsMessage), originsMessage),
      v.check(
        (origins) =>
          origins.length > 0 && origins.every((origin) => webUrl(origin)?.origin === origin),
        originsMessage,
      ),
    ),
  ],
  originsMessage,
)

/** WAYBILL_CORS; absent means no CORS headers at all. */
export const Cors = v.optional(
  v.pipe(
    strict(
      {
        origins: Origins,
        credentials: v.optional(v.boolean('must be true or false'), false),
        maxAgeS: v.optional(
          wholeNumber(0, 86_400, 'must be a whole number of seconds from 0 to 86400'),
          DEFAULT_CORS_MAX_AGE_S,
        ),
      },
      {
        type: 'must be a JSON object { "origins", "credentials"?, "maxAgeS"? }',
        required: { origins: originsMessage },
      },
    ),
    v.rawTransform(({ dataset: { value: cors }, addIssue, NEVER }): CorsConfig => {
      // Browsers refuse credentialed responses with a wildcard origin; list the origins instead.
      if (cors.credentials && cors.origins === '*') {
        addIssue({
          message: 'cannot be true when origins is "*"',
          path: pathTo(cors, 'credentials'),
        })
        return NEVER
      }
      const origins = cors.origins === '*' ? '*' : new Set(cors.origins)
      return Object.freeze({ ...cors, origins })
    }),
  ),
)
