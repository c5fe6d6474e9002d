// POST /v1/links and GET /l/{token}: the requests and the answer.

import * as v from 'valibot'
import { MAX_LINK_EXPIRES_S, MAX_LINK_USES } from '../limits'
import {
  Batch,
  Disposition,
  DISPOSITION_RULES,
  namesFile,
  NEEDS_FILE_NAME,
  ObjectKey,
  ONE_DISPOSITION,
  oneDisposition,
  OriginName,
  OverrideContentType,
  wholeNumber,
  keysOrItems,
} from './fields'
import { strict } from './valibot'

/** An entry of `items`, and the rules across its fields. */
const LinkItem = v.pipe(
  strict(
    {
      key: ObjectKey,
      download: v.optional(Disposition),
      inline: v.optional(Disposition),
      contentType: v.optional(OverrideContentType),
    },
    { type: 'must be an object { "key", "download"?, "inline"?, "contentType"? }' },
  ),
  v.forward(v.partialCheck([['download'], ['inline']], oneDisposition, ONE_DISPOSITION), [
    'inline',
  ]),
  v.forward(v.partialCheck([['key'], ['download']], namesFile('download'), NEEDS_FILE_NAME), [
    'download',
  ]),
  v.forward(v.partialCheck([['key'], ['inline']], namesFile('inline'), NEEDS_FILE_NAME), [
    'inline',
  ]),
  v.metadata(DOCS ? { allOf: DISPOSITION_RULES } : {}),
)

const batch = <TItem extends v.GenericSchema>(item: TItem) =>
  Batch(item, "1 to the grant's maxBatch entries.")

const linkFields = strict({
  origin: OriginName,
  expiresIn: v.optional(
    v.pipe(
      wholeNumber(
        1,
        MAX_LINK_EXPIRES_S,
        `must be a whole number of seconds from 1 to ${MAX_LINK_EXPIRES_S}`,
      ),
      v.description(
        DOCS
          ? "Seconds the link works; default a day, capped by the grant's maxLinkExpiresIn (default its maxExpiresIn)."
          : '',
      ),
    ),
  ),
  maxUses: v.optional(
    v.pipe(
      wholeNumber(1, MAX_LINK_USES),
      v.description(
        DOCS
          ? 'How many times each link may be followed (1: a one-time link); no limit when absent. A visit refused for any other reason never counts; a HEAD counts as a GET does. Needs the WAYBILL_LINK_USES binding.'
          : '',
      ),
    ),
  ),
  keys: batch(ObjectKey),
  items: batch(LinkItem),
})

export const LinksBody = v.pipe(
  keysOrItems(linkFields),
  v.metadata(DOCS ? { oneOf: [{ required: ['keys'] }, { required: ['items'] }] } : {}),
  v.examples(
    DOCS
      ? [
          {
            origin: 'photos',
            expiresIn: 604_800,
            items: [{ key: 'reports/2026.pdf', download: true }],
          },
        ]
      : [],
  ),
)
export type LinksBody = v.InferOutput<typeof LinksBody>

// Read by the document's generator only (DOCS): the Workers' bundles keep no response schema.
export const LinksAnswer = DOCS
  ? v.object({
      origin: v.string(),
      expiresAt: v.pipe(
        v.string(),
        v.isoTimestamp(),
        v.description('When the links stop working.'),
      ),
      maxUses: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.description('How many times each link may be followed, when the request limited it.'),
        ),
      ),
      links: v.array(
        v.object({
          key: v.string(),
          url: v.pipe(
            v.string(),
            v.url(),
            v.description('https://<this waybill>/l/<token>: anyone holding it may follow it.'),
          ),
          id: v.pipe(
            v.string(),
            v.description(
              "The link's id: revoke this one link with POST /admin/v1/revocations { kind: 'link', link: id }.",
            ),
          ),
        }),
      ),
    })
  : (undefined as never)

/**
 * A link's token: `<secret id>.<payload>.<tag>`, base64url. Anything else is a link waybill did not
 * issue, answered 404 by the route like any other (src/auth/links.ts checks its shape).
 */
export const LinkParams = strict({
  token: v.pipe(
    v.string(),
    v.description(
      DOCS ? '`<secret id>.<base64url payload>.<base64url tag>`, as POST /v1/links made it.' : '',
    ),
  ),
})
