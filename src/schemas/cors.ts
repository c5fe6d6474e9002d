// Which browser origins may read and send: WAYBILL_CORS for the API, and an origin's own `cors`
// for the objects the Worker serves itself (an R2 origin's, as a bucket's CORS rules are for S3).
//   { "origins": ["https://app.example.com"] | "*", "credentials"?: false, "maxAgeS"?: 600 }

import * as v from 'valibot'
import { wholeNumber } from './fields'
import { pathTo, strict } from './valibot'
import { webUrl } from './config'
import { DEFAULT_CORS_MAX_AGE_S } from '../limits'

export interface CorsConfig {
  readonly origins: '*' | ReadonlySet<string>
  readonly credentials: boolean
  readonly maxAgeS: number
}

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

/** A CORS setting; absent means no CORS headers at all. */
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

/**
 * The `Access-Control-Allow-Origin` for a request from `origin` under `config`: `*`, the page's
 * own origin, or undefined for a page the setting does not list (its browser refuses the answer).
 * One reading for the API's CORS (src/middleware/cors.ts) and an origin's own (R2's).
 */
export function allowedOrigin(config: CorsConfig, origin: string | undefined): string | undefined {
  if (config.origins === '*') return '*'
  return origin !== undefined && config.origins.has(origin) ? origin : undefined
}
