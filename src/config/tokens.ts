// WAYBILL_TOKEN_SECRETS (a secret): the keys of every token waybill seals (src/core/token.ts):
// signed links, upload handles and receipts, listing cursors.
//
//   [{ "id": "2026-11", "secret": "<32 or more characters>" }, …]
//
// The first seals new tokens; every one listed opens them. To rotate, put a new one first and keep
// the old ones until what they sealed has expired (a link: up to its maxLinkExpiresIn; an upload
// handle: until the upload is finished; a receipt: an hour past its URL); removing one cuts off
// everything it sealed. Never derived from S3 credentials, so rotating those breaks nothing.

import * as v from 'valibot'
import type { TokenSecret } from '../core/token'
import { list, strict } from '../schemas/valibot'
import { MIN_TOKEN_SECRET_CHARS } from '../limits'

const idMessage = 'must be 1-16 characters of A-Z, a-z, 0-9, "_" and "-"'
const secretMessage = `must be a secret of at least ${MIN_TOKEN_SECRET_CHARS} characters`

const Secret = strict(
  {
    id: v.pipe(v.string(idMessage), v.regex(/^[A-Za-z0-9_-]{1,16}$/, idMessage)),
    secret: v.pipe(v.string(secretMessage), v.minLength(MIN_TOKEN_SECRET_CHARS, secretMessage)),
  },
  { type: 'must be an object { "id", "secret" }' },
)

/** A list of token secrets, each with its own id; absent or empty, none. */
export const TokenSecrets: v.GenericSchema<unknown, readonly TokenSecret[]> = v.optional(
  v.pipe(
    list(Secret, () => 'must be a JSON array of { "id", "secret" }'),
    v.check(
      (secrets) => new Set(secrets.map(({ id }) => id)).size === secrets.length,
      'must give each secret its own id',
    ),
    v.transform((secrets) => Object.freeze(secrets.map((secret) => Object.freeze(secret)))),
  ),
  [],
)
