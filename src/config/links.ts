// Signed links (POST /v1/links, GET /l/{token}): the secrets that sign and check them, and the
// revocations that cut off links issued before a time.
//
//   WAYBILL_LINK_SECRETS (a secret): [{ "id": "2026-11", "secret": "<32 or more characters>" }, …]
//     The first signs new links; every one checks links (rotation: add a new first, keep the old
//     until its links have expired). Absent: links are off.
//   WAYBILL_LINK_REVOCATIONS (a var): [{ "issuedBefore": "2026-11-23T12:00:00Z",
//     "origin"?: "photos", "principal"?: "jwt:alice" }]: links issued before the time (on that
//     origin, by that caller as the request log names it) are refused.

import * as v from 'valibot'
import { MIN_LINK_SECRET_CHARS } from './limits'
import { OriginName } from '../schemas/fields'
import { list, strict } from '../schemas/valibot'
import type { LinkRevocation, LinkSecret } from './types'

const idMessage = 'must be 1-16 characters of A-Z, a-z, 0-9, "_" and "-"'
const secretMessage = `must be a secret of at least ${MIN_LINK_SECRET_CHARS} characters`

const Secret = strict(
  {
    id: v.pipe(v.string(idMessage), v.regex(/^[A-Za-z0-9_-]{1,16}$/, idMessage)),
    secret: v.pipe(v.string(secretMessage), v.minLength(MIN_LINK_SECRET_CHARS, secretMessage)),
  },
  { type: 'must be an object { "id", "secret" }' },
)

/** WAYBILL_LINK_SECRETS: absent or empty, links are off. */
export const LinkSecrets: v.GenericSchema<unknown, readonly LinkSecret[]> = v.optional(
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

const issuedBeforeMessage = 'must be a time such as "2026-11-23T12:00:00Z"'

const Revocation = strict(
  {
    issuedBefore: v.pipe(
      v.string(issuedBeforeMessage),
      v.isoTimestamp(issuedBeforeMessage),
      v.transform((time) => Date.parse(time)),
    ),
    origin: v.optional(OriginName),
    principal: v.optional(
      v.pipe(
        v.string('must be a caller as the request log names it, such as "jwt:alice"'),
        v.regex(
          /^(?:api-key|jwt|access):.+$/,
          'must be a caller as the request log names it, such as "jwt:alice"',
        ),
      ),
    ),
  },
  { type: 'must be an object { "issuedBefore", "origin"?, "principal"? }' },
)

/** WAYBILL_LINK_REVOCATIONS: links issued before each time are refused. */
export const LinkRevocations: v.GenericSchema<unknown, readonly LinkRevocation[]> = v.optional(
  v.pipe(
    list(Revocation, () => 'must be a JSON array of revocations'),
    v.transform((revocations) => Object.freeze(revocations.map((r) => Object.freeze(r)))),
  ),
  [],
)
