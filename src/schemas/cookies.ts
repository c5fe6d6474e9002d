// POST /v1/cookies: the request and the answer.

import * as v from 'valibot'
import { MAX_COOKIE_PREFIX_BYTES } from '../limits'
import { isWellFormedKey, utf8Length } from '../core/sigv4/encoding'
import { AnyOriginName, ExpiresIn } from './fields'
import { strict } from './valibot'

const prefixMessage = `must be a key prefix of at most ${MAX_COOKIE_PREFIX_BYTES} bytes`

export const CookiesBody = strict({
  origin: v.pipe(
    AnyOriginName,
    v.description(
      DOCS
        ? 'A CloudFront origin configured in WAYBILL_ORIGINS (an S3 one issues no cookies).'
        : '',
    ),
    v.examples(DOCS ? ['cdn'] : []),
  ),
  prefix: v.optional(
    v.pipe(
      v.string(prefixMessage),
      v.check(
        (prefix) => isWellFormedKey(prefix) && utf8Length(prefix) <= MAX_COOKIE_PREFIX_BYTES,
        prefixMessage,
      ),
      v.description(DOCS ? 'Everything under this key prefix; "" for the whole distribution.' : ''),
      v.examples(DOCS ? ['users/alice/'] : []),
    ),
    '',
  ),
  expiresIn: v.optional(ExpiresIn),
})
export type CookiesBody = v.InferOutput<typeof CookiesBody>

// Read by the document's generator only (DOCS): the Workers' bundles keep no response schema.
export const CookiesAnswer = DOCS
  ? v.object({
      origin: v.string(),
      resource: v.pipe(v.string(), v.description('The policy’s resource: `<baseUrl><prefix>*`.')),
      expiresAt: v.pipe(v.string(), v.isoTimestamp()),
      cookies: v.pipe(
        v.record(v.string(), v.string()),
        v.description(
          "The cookies set, by name: the origin's store names them (CloudFront's are CloudFront-Policy, CloudFront-Signature, CloudFront-Key-Pair-Id and, with SHA-256, CloudFront-Hash-Algorithm).",
        ),
        v.examples(
          DOCS
            ? [
                {
                  'CloudFront-Policy': 'eyJTdGF0ZW1lbnQiOlt7…',
                  'CloudFront-Signature': 'k3h0…',
                  'CloudFront-Key-Pair-Id': 'K2JCJMDEHXQW5F',
                },
              ]
            : [],
        ),
      ),
    })
  : (undefined as never)
