// Signed links (POST /v1/links, GET /l/{token}): the revocations that cut off links issued before a
// time. (Links are sealed with WAYBILL_TOKEN_SECRETS: ./tokens.ts.)
//
//   WAYBILL_LINK_REVOCATIONS (a var): [{ "issuedBefore": "2026-11-23T12:00:00Z",
//     "origin"?: "photos", "principal"?: "jwt:alice" }]: links issued before the time (on that
//     origin, by that caller as the request log names it) are refused.

import * as v from 'valibot'
import { OriginName, PrincipalName, Time } from '../schemas/fields'
import { list, strict } from '../schemas/valibot'
import type { LinkRevocation } from './types'

const Revocation = strict(
  { issuedBefore: Time, origin: v.optional(OriginName), principal: v.optional(PrincipalName) },
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
