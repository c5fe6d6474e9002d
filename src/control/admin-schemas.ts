// The admin API's requests and answers (/admin/v1, src/routes/admin/): the control plane's records
// as operators write and read them, so they live with the control plane, above the configuration
// whose grant shapes they reuse (src/config/grants.ts: the one WAYBILL_GRANTS is checked by, with
// `to` as the control plane stores it); a key's id and label are the fields WAYBILL_API_KEYS shares
// (src/schemas/fields.ts).

import * as v from 'valibot'
import {
  MAX_ADMIN_PAGE,
  MAX_GRANTS_PER_SUBJECT,
  MAX_QUOTA_WINDOW_S,
  MAX_ROTATION_OVERLAP_S,
  MAX_UPLOAD_BYTES,
  MAX_USAGE_DAYS,
  MAX_USAGE_TOP,
  MAX_IMPORT_RECORDS,
  MIN_QUOTA_WINDOW_S,
} from '../limits'
import { KeyGrant, StoredGrant as GrantBody, StoredSubject } from '../config/grants'
import {
  characters,
  KeyId,
  KeyLabel,
  OriginName,
  PrincipalName,
  queryNumber,
  RANDOM_CHARS,
  SECRET_PREFIX,
  Time,
  wholeNumber,
} from '../schemas/fields'
import { isRecord, list, strict, strictFields, typeName } from '../schemas/valibot'

/** What admin writes and the data plane's refusals are recorded as. */
export const AUDIT_ACTIONS = [
  'key.create',
  'key.update',
  'key.rotate',
  'grant.create',
  'grant.delete',
  'revocation.create',
  'revocation.delete',
  'quota.create',
  'quota.update',
  'quota.delete',
  'import',
  'auth.refused',
] as const

// ---- API keys ---------------------------------------------------------------------------------

const prefixMessage = 'must be 1-16 characters of a-z and 0-9, starting with a letter'

/** Where a key starts, before its random part: `wb` makes `wb_…`. */
const SecretPrefix = v.pipe(
  v.string(prefixMessage),
  v.regex(new RegExp(`^${SECRET_PREFIX}$`), prefixMessage),
  v.description(
    DOCS
      ? `What the key starts with, before "_" and its ${RANDOM_CHARS} random characters (default "wb"): \`live\` makes \`live_…\`.`
      : '',
  ),
  v.examples(DOCS ? ['live'] : []),
)

export const KeyCreateBody = strict({
  id: v.optional(
    v.pipe(
      KeyId,
      v.description(DOCS ? 'The key id; a new one when absent (`k_…`). Cannot be changed.' : ''),
    ),
  ),
  label: v.optional(KeyLabel),
  prefix: v.optional(SecretPrefix),
  expiresAt: v.optional(
    v.pipe(
      Time,
      v.description(
        DOCS ? 'When the key stops working; never when absent (a time past: it never works).' : '',
      ),
    ),
  ),
  grants: v.optional(
    v.pipe(
      list(KeyGrant),
      v.maxLength(MAX_GRANTS_PER_SUBJECT, `must hold at most ${MAX_GRANTS_PER_SUBJECT} grants`),
      v.description(
        DOCS
          ? 'Grants for this key, each as in WAYBILL_GRANTS without "to" (it is `apiKey:<id>`), checked by the same schema.'
          : '',
      ),
    ),
  ),
})
export type KeyCreateBody = v.InferOutput<typeof KeyCreateBody>

export const RotateBody = strict({
  overlapS: v.optional(
    v.pipe(
      wholeNumber(0, MAX_ROTATION_OVERLAP_S),
      v.description(
        DOCS
          ? 'Seconds the current secret keeps working beside the new one (default 86400; 0 retires it now).'
          : '',
      ),
    ),
  ),
})

export const KeyParams = strict({ id: KeyId }, { noun: 'parameter' })

// A body that changes only what it names: at least one field.
const namesOne =
  (fields: readonly string[]) =>
  (body: Record<string, unknown>): boolean =>
    fields.some((field) => body[field] !== undefined)

export const KeyUpdateBody = v.pipe(
  strict({
    label: v.optional(
      v.pipe(v.nullable(KeyLabel), v.description(DOCS ? 'A new label, or null for none.' : '')),
    ),
    expiresAt: v.optional(
      v.pipe(
        v.nullable(Time),
        v.description(
          DOCS
            ? 'When the key stops working, or null for never. A time past makes it stop now.'
            : '',
        ),
      ),
    ),
  }),
  v.forward(
    v.partialCheck(
      [['label'], ['expiresAt']],
      namesOne(['label', 'expiresAt']),
      'is required (or "expiresAt")',
    ),
    ['label'],
  ),
  v.metadata(DOCS ? { anyOf: [{ required: ['label'] }, { required: ['expiresAt'] }] } : {}),
)
export type KeyUpdateBody = v.InferOutput<typeof KeyUpdateBody>

const NullableTime = v.nullable(v.pipe(v.string(), v.description(DOCS ? 'ISO 8601, or null.' : '')))

const KeyView = v.object({
  id: v.string(),
  label: v.nullable(v.string()),
  createdAt: v.string(),
  expiresAt: NullableTime,
  revokedAt: NullableTime,
  lastUsedAt: v.pipe(
    NullableTime,
    v.description(DOCS ? 'Written at most once a minute, a few seconds after the use.' : ''),
  ),
  secrets: v.pipe(
    v.array(v.object({ prefix: v.string(), createdAt: v.string(), expiresAt: NullableTime })),
    v.description(
      DOCS ? 'Its secrets, by their first characters only: two while a rotation overlaps.' : '',
    ),
  ),
})

const StoredGrant = v.pipe(
  v.record(v.string(), v.unknown()),
  v.description(DOCS ? 'The grant as stored: canonical, with its defaults filled in.' : ''),
)
const GrantRecord = v.object({ id: v.string(), createdAt: v.string(), grant: StoredGrant })

/** A grant that reaches a caller, wherever it comes from. */
const EffectiveGrant = v.object({
  source: v.pipe(
    v.picklist(['env', 'stored']),
    v.description(DOCS ? 'WAYBILL_GRANTS (`env`, no id), or the control plane (`stored`).' : ''),
  ),
  id: v.nullable(v.string()),
  createdAt: v.nullable(v.string()),
  via: v.pipe(
    v.picklist(['direct', 'email', 'role', 'any']),
    v.description(
      DOCS ? 'How it reaches the caller: by its own name, its email, a role, or `*`.' : '',
    ),
  ),
  grant: StoredGrant,
})
const EffectiveGrants = v.pipe(
  v.array(EffectiveGrant),
  v.description(
    DOCS
      ? 'Every grant that reaches the caller, the env’s and the stored ones: what authorize weighs.'
      : '',
  ),
)

export const KeyCreatedAnswer = v.object({
  ...KeyView.entries,
  key: v.pipe(
    v.string(),
    v.description(
      DOCS ? 'The key itself: shown this once, stored nowhere (only its SHA-256 is).' : '',
    ),
  ),
  grants: v.array(GrantRecord),
})
export const KeyAnswer = v.object({ ...KeyView.entries, grants: EffectiveGrants })
export const KeyUpdatedAnswer = KeyView
export const RotatedAnswer = v.object({
  id: v.string(),
  key: v.pipe(v.string(), v.description(DOCS ? 'The new secret: shown this once.' : '')),
  prefix: v.string(),
  previousExpiresAt: v.pipe(
    v.string(),
    v.description(DOCS ? 'When the secrets before this one stop working.' : ''),
  ),
})

// ---- lists ------------------------------------------------------------------------------------

const cursorMessage = 'must be the cursor of the previous page'
const pageFields = {
  limit: v.optional(
    v.pipe(
      queryNumber(
        wholeNumber(1, MAX_ADMIN_PAGE),
        `must be a whole number from 1 to ${MAX_ADMIN_PAGE}`,
      ),
      v.description(DOCS ? `Entries per page, 1 to ${MAX_ADMIN_PAGE} (default 100).` : ''),
    ),
  ),
  cursor: v.optional(
    v.pipe(v.string(cursorMessage), v.regex(/^[A-Za-z0-9._-]{1,64}$/, cursorMessage)),
  ),
}
export const PageQuery = strict(pageFields, { noun: 'parameter' })
export const GrantsQuery = strict(
  {
    ...pageFields,
    to: v.optional(
      v.pipe(
        characters(
          0,
          300,
          'must be a grant subject such as "apiKey:web", of at most 300 characters',
        ),
        v.description(DOCS ? 'Only the grants of this subject.' : ''),
      ),
    ),
  },
  { noun: 'parameter' },
)
const Next = v.pipe(
  v.nullable(v.string()),
  v.description(DOCS ? 'The next page’s cursor; null at the end.' : ''),
)

export const GrantCreateQuery = strict(
  {
    allowUnknownKey: v.optional(
      v.pipe(
        v.picklist(['true', 'false'], 'must be "true" or "false"'),
        v.transform((text) => text === 'true'),
        v.description(
          DOCS ? 'Grant an `apiKey:<id>` no key has yet (a 404 otherwise): for a key to come.' : '',
        ),
      ),
    ),
  },
  { noun: 'parameter' },
)

const callerMessage = 'must be a caller: "apiKey:<id>", "jwt:<sub>" or "access:<sub>"'
/** The caller a question is about, as the request log names it. */
const CallerName = v.pipe(
  characters(1, 300, callerMessage),
  v.regex(/^(?:apiKey|jwt|access):[^\x00-\x1f\x7f-\x9f]+$/, callerMessage),
  v.examples(DOCS ? ['apiKey:web', 'jwt:alice'] : []),
)

export const EffectiveGrantsQuery = strict(
  {
    caller: v.pipe(
      CallerName,
      v.description(DOCS ? 'Whose grants: the caller as the request log names it.' : ''),
    ),
    role: v.optional(
      v.pipe(
        v.union(
          [
            characters(1, 200, 'must be a role'),
            // The bound on the array itself: after the union, it read as a string's maxLength
            // in the OpenAPI document, and a role of 51 to 200 characters broke the contract.
            v.pipe(
              v.array(characters(1, 200, 'must be a role')),
              v.maxLength(50, 'must name at most 50 roles'),
            ),
          ],
          'must be a role',
        ),
        v.transform((roles) => (typeof roles === 'string' ? [roles] : roles)),
        v.description(DOCS ? 'A role a token caller holds (repeat for several).' : ''),
      ),
    ),
    email: v.optional(
      v.pipe(
        // A claim to match grants' `email:` subjects by, as a token would carry it: any text.
        characters(3, 254, 'must be 3 to 254 characters'),
        v.description(DOCS ? "A token caller's verified email." : ''),
      ),
    ),
  },
  { noun: 'parameter' },
)
export type EffectiveGrantsQuery = v.InferOutput<typeof EffectiveGrantsQuery>
export const EffectiveGrantsAnswer = v.object({ caller: v.string(), grants: EffectiveGrants })

export const KeyListAnswer = v.object({ keys: v.array(KeyView), cursor: Next })
export const GrantAnswer = GrantRecord
export const GrantListAnswer = v.object({ grants: v.array(GrantRecord), cursor: Next })

/** An id the admin API made: `g_…` for a grant, `q_…` a quota, `r_…` a revocation. */
function RecordId(prefix: 'g' | 'q' | 'r') {
  const message = `must be an id such as "${prefix}_0mkz3c9a1b2c3d4e5f6g"`
  return v.pipe(v.string(message), v.regex(new RegExp(`^${prefix}_[0-9a-z]{8,40}$`), message))
}

/** A record's id as a path parameter. */
export function recordParams(prefix: 'g' | 'q' | 'r') {
  return strict({ id: RecordId(prefix) }, { noun: 'parameter' })
}

// ---- revocations ------------------------------------------------------------------------------

const linkIdMessage = 'must be a link id, as POST /v1/links answered it'

// What each kind of revocation names.
const revocationKinds = v.variant(
  'kind',
  [
    strictFields({
      kind: v.literal('key'),
      key: v.pipe(KeyId, v.description(DOCS ? 'The API key: it stops working everywhere.' : '')),
    }),
    strictFields({
      kind: v.literal('link'),
      link: v.pipe(
        v.string(linkIdMessage),
        v.regex(/^[A-Za-z0-9_-]{16}$/, linkIdMessage),
        v.description(DOCS ? 'One link, by the id POST /v1/links answered with it.' : ''),
      ),
    }),
    strictFields({
      kind: v.literal('links'),
      issuedBefore: v.pipe(Time, v.description(DOCS ? 'Links issued before this time…' : '')),
      origin: v.optional(v.pipe(OriginName, v.description(DOCS ? '…on this origin…' : ''))),
      principal: v.optional(v.pipe(PrincipalName, v.description(DOCS ? '…by this caller.' : ''))),
    }),
  ],
  'must be "key", "link" or "links"',
)

// valibot's variant reads the discriminator first: without the object check, an array would be
// "kind: must be…".
export const RevocationBody = v.pipe(
  v.custom<v.InferInput<typeof revocationKinds>>(
    isRecord,
    (issue) => `must be a JSON object, not ${typeName(issue.input)}`,
  ),
  revocationKinds,
)
export type RevocationBody = v.InferOutput<typeof RevocationBody>

const RevocationRecord = v.object({
  id: v.string(),
  kind: v.picklist(['key', 'link', 'links']),
  createdAt: v.string(),
  key: v.optional(v.string()),
  link: v.optional(v.string()),
  issuedBefore: v.optional(v.string()),
  origin: v.optional(v.string()),
  principal: v.optional(v.string()),
})
export const RevocationAnswer = RevocationRecord
export const RevocationListAnswer = v.object({
  revocations: v.array(RevocationRecord),
  cursor: Next,
})

// ---- quotas -----------------------------------------------------------------------------------

const subjectMessage =
  'must be "apiKey:<id>", "sub:<subject>", "role:<role>", "email:<address>" or "*"'

// Either limit, or both: the one named first is the one a body without either lacks.
const oneLimit = (body: { maxObjects?: unknown; maxBytes?: unknown }) =>
  body.maxObjects !== undefined || body.maxBytes !== undefined

export const QuotaBody = v.pipe(
  strict({
    to: v.pipe(
      characters(1, 300, subjectMessage),
      StoredSubject,
      v.description(
        DOCS ? 'Whose uploads: a subject as in grants; each caller it names is counted apart.' : '',
      ),
    ),
    origin: OriginName,
    maxObjects: v.optional(
      v.pipe(wholeNumber(1, 1_000_000_000), v.description(DOCS ? 'Uploads per window.' : '')),
    ),
    maxBytes: v.optional(
      v.pipe(
        wholeNumber(1, MAX_UPLOAD_BYTES * 1000),
        v.description(
          DOCS ? 'Bytes per window: declared sizes, settled to the real ones once checked.' : '',
        ),
      ),
    ),
    windowS: v.pipe(
      wholeNumber(MIN_QUOTA_WINDOW_S, MAX_QUOTA_WINDOW_S),
      v.description(DOCS ? 'The window, in seconds (86400: a day, from midnight UTC).' : ''),
    ),
  }),
  v.forward(
    v.partialCheck([['maxObjects'], ['maxBytes']], oneLimit, 'is required (or "maxBytes")'),
    ['maxObjects'],
  ),
  v.metadata(DOCS ? { anyOf: [{ required: ['maxObjects'] }, { required: ['maxBytes'] }] } : {}),
)
export type QuotaBody = v.InferOutput<typeof QuotaBody>

const QuotaRecord = v.object({
  id: v.string(),
  to: v.string(),
  origin: v.string(),
  maxObjects: v.nullable(v.number()),
  maxBytes: v.nullable(v.number()),
  windowS: v.number(),
  createdAt: v.string(),
})

/** What a caller has used of a quota, read from its counter. */
const QuotaUse = v.pipe(
  v.nullable(
    v.object({
      caller: v.string(),
      objects: v.pipe(v.number(), v.description(DOCS ? 'Uploads counted in this window.' : '')),
      bytes: v.pipe(
        v.number(),
        v.description(
          DOCS ? 'Their bytes: the most each admits, settled to the real size once checked.' : '',
        ),
      ),
      held: v.pipe(
        v.number(),
        v.description(
          DOCS ? 'Uploads whose URL or policy may still store, so hold their most.' : '',
        ),
      ),
      remainingObjects: v.nullable(v.number()),
      remainingBytes: v.nullable(v.number()),
      windowStart: v.string(),
      resetAt: v.pipe(
        v.string(),
        v.description(DOCS ? 'When the window ends, and the room comes back.' : ''),
      ),
    }),
  ),
  v.description(
    DOCS
      ? 'Read from the counter of the one caller the quota names (an API key), or of `caller`; null when there is none to read.'
      : '',
  ),
)
const QuotaWithUse = v.object({ ...QuotaRecord.entries, use: QuotaUse })

export const QuotaAnswer = QuotaRecord
export const QuotaUseAnswer = QuotaWithUse
export const QuotaListAnswer = v.object({ quotas: v.array(QuotaWithUse), cursor: Next })

export const QuotaQuery = strict(
  {
    caller: v.optional(
      v.pipe(
        CallerName,
        v.description(DOCS ? 'Whose use to read (default: the key the quota names).' : ''),
      ),
    ),
  },
  { noun: 'parameter' },
)

const Limit = (what: string, max: number) =>
  v.optional(
    v.pipe(
      v.nullable(wholeNumber(1, max)),
      v.description(DOCS ? `${what}, or null for no such limit (one of the two must remain).` : ''),
    ),
  )

export const QuotaUpdateBody = v.pipe(
  strict({
    maxObjects: Limit('Uploads per window', 1_000_000_000),
    maxBytes: Limit('Bytes per window', MAX_UPLOAD_BYTES * 1000),
  }),
  v.forward(
    v.partialCheck(
      [['maxObjects'], ['maxBytes']],
      namesOne(['maxObjects', 'maxBytes']),
      'is required (or "maxBytes")',
    ),
    ['maxObjects'],
  ),
  v.metadata(DOCS ? { anyOf: [{ required: ['maxObjects'] }, { required: ['maxBytes'] }] } : {}),
)
export type QuotaUpdateBody = v.InferOutput<typeof QuotaUpdateBody>

// ---- usage ------------------------------------------------------------------------------------

const dayMessage = 'must be a day such as "2026-11-23"'
// A day on the calendar: February 30 has the shape of one (isoDate's regex) but is not.
const Day = v.pipe(
  v.string(dayMessage),
  // The document's `format: date`; the check below refuses what has only its shape.
  v.isoDate(dayMessage),
  v.check(
    (day) =>
      /^\d{4}-\d{2}-\d{2}$/.test(day) &&
      new Date(Date.parse(`${day}T00:00:00Z`) || 0).toISOString().startsWith(day),
    dayMessage,
  ),
)

const days = {
  from: v.optional(
    v.pipe(
      Day,
      v.description(
        DOCS
          ? `The first day (UTC); default 30 days before "to". At most ${MAX_USAGE_DAYS} days are answered, the last ones: the answer's "from" says where they start.`
          : '',
      ),
    ),
  ),
  to: v.optional(v.pipe(Day, v.description(DOCS ? 'The last day (UTC); default today.' : ''))),
}

export const UsageQuery = strict(
  {
    principal: v.optional(
      v.pipe(
        PrincipalName,
        v.description(
          DOCS
            ? 'The caller, as the request log names it (`apiKey:<id>` for an API key); every caller together when absent.'
            : '',
        ),
      ),
    ),
    ...days,
  },
  { noun: 'parameter' },
)
export type UsageQuery = v.InferOutput<typeof UsageQuery>

/** What the callers of the top are ranked by. */
const USAGE_RANKS = ['minted', 'bytes', 'completed', 'refused'] as const

export const UsageTopQuery = strict(
  {
    by: v.optional(
      v.pipe(
        v.picklist(USAGE_RANKS, `must be ${USAGE_RANKS.join(', ')}`),
        v.description(
          DOCS
            ? 'Artifacts minted (the default), bytes of uploads signed, bytes checked complete, or requests refused.'
            : '',
        ),
      ),
      'minted',
    ),
    limit: v.optional(
      v.pipe(
        queryNumber(
          wholeNumber(1, MAX_USAGE_TOP),
          `must be a whole number from 1 to ${MAX_USAGE_TOP}`,
        ),
        v.description(DOCS ? `How many callers, 1 to ${MAX_USAGE_TOP} (default 10).` : ''),
      ),
      '10',
    ),
    ...days,
  },
  { noun: 'parameter' },
)
export type UsageTopQuery = v.InferOutput<typeof UsageTopQuery>

const Totals = {
  minted: v.pipe(
    v.number(),
    v.description(DOCS ? 'Artifacts signed: URLs, upload URLs and policies, links.' : ''),
  ),
  refused: v.pipe(
    v.number(),
    v.description(
      DOCS
        ? 'Requests refused once the caller was known (403, 429; 410 for its revoked links).'
        : '',
    ),
  ),
  bytesReserved: v.pipe(
    v.number(),
    v.description(DOCS ? 'Bytes of uploads signed, as declared.' : ''),
  ),
  bytesCompleted: v.pipe(
    v.number(),
    v.description(DOCS ? 'Bytes of uploads checked complete.' : ''),
  ),
  linksFollowed: v.pipe(
    v.number(),
    v.description(DOCS ? "Visits to the caller's signed links." : ''),
  ),
}

export const UsageTopAnswer = v.object({
  by: v.picklist(USAGE_RANKS),
  from: v.string(),
  to: v.string(),
  callers: v.pipe(
    v.array(v.object({ principal: v.string(), ...Totals })),
    v.description(
      DOCS ? 'The callers that did the most, most first, with their totals over the days.' : '',
    ),
  ),
})

export const UsageAnswer = v.object({
  principal: v.pipe(
    v.nullable(v.string()),
    v.description(DOCS ? 'The caller; null for every caller.' : ''),
  ),
  from: v.string(),
  to: v.string(),
  days: v.array(
    v.object({
      day: v.string(),
      origin: v.string(),
      ...Totals,
    }),
  ),
})

// ---- the audit trail --------------------------------------------------------------------------

const actionMessage = `must be an action (${AUDIT_ACTIONS.join(', ')}) or its first word`
const auditCursorMessage = 'must be the cursor of the previous page'

export const AuditQuery = strict(
  {
    ...pageFields,
    cursor: v.optional(
      v.pipe(
        v.string(auditCursorMessage),
        v.regex(/^[0-9a-z]{1,12}\.[A-Za-z0-9._-]{1,128}$/, auditCursorMessage),
      ),
    ),
    principal: v.optional(
      v.pipe(
        characters(1, 300, 'must be a caller or an admin, such as "apiKey:web" or "admin:ops"'),
        v.description(
          DOCS
            ? "Who acted (`admin:<token id>`), or the caller an event concerns (`apiKey:<id>`, a grant's subject)."
            : '',
        ),
      ),
    ),
    key: v.optional(v.pipe(KeyId, v.description(DOCS ? 'Events about this API key.' : ''))),
    action: v.optional(
      v.pipe(
        v.picklist(
          [...new Set([...AUDIT_ACTIONS, ...AUDIT_ACTIONS.map((action) => action.split('.')[0]!)])],
          actionMessage,
        ),
        v.description(
          DOCS
            ? 'An action, or its first word for them all (`key`: key.create, key.update, …).'
            : '',
        ),
      ),
    ),
    outcome: v.optional(v.picklist(['ok', 'refused'], 'must be "ok" or "refused"')),
    from: v.optional(v.pipe(Time, v.description(DOCS ? 'Events at or after this time.' : ''))),
    to: v.optional(
      v.pipe(Time, v.description(DOCS ? 'Events at or before this time (default: now).' : '')),
    ),
  },
  { noun: 'parameter' },
)
export type AuditQuery = v.InferOutput<typeof AuditQuery>

const AuditEvent = v.object({
  id: v.string(),
  at: v.pipe(v.string(), v.description(DOCS ? 'When (for refusals, the last of the hour).' : '')),
  actor: v.pipe(
    v.string(),
    v.description(DOCS ? '`admin:<token id>`, `admin:access:<email>`, or the caller refused.' : ''),
  ),
  action: v.picklist(AUDIT_ACTIONS),
  outcome: v.picklist(['ok', 'refused']),
  target: v.pipe(
    v.nullable(v.string()),
    v.description(DOCS ? 'The record written: `k_…`, `g_…`, `q_…`, `r_…`.' : ''),
  ),
  key: v.pipe(v.nullable(v.string()), v.description(DOCS ? 'The API key it concerns.' : '')),
  principal: v.pipe(
    v.nullable(v.string()),
    v.description(DOCS ? 'The caller (or grant subject) it concerns.' : ''),
  ),
  count: v.pipe(v.number(), v.description(DOCS ? 'Refusals of the hour; 1 for a write.' : '')),
  requestId: v.nullable(v.string()),
  before: v.pipe(
    v.unknown(),
    v.description(DOCS ? 'The record before, as the admin API shows it (no secret).' : ''),
  ),
  after: v.pipe(
    v.unknown(),
    v.description(DOCS ? 'The record after, as the admin API shows it (no secret).' : ''),
  ),
  detail: v.nullable(v.string()),
})

export const AuditAnswer = v.object({ events: v.array(AuditEvent), cursor: Next })

// ---- explain ------------------------------------------------------------------------------------

const claimsMessage = 'must be a JSON object of claims, as a verified token carries them'
const ExplainCaller = v.union(
  [
    strict({ key: v.pipe(KeyId, v.description(DOCS ? 'An API key, by its id.' : '')) }),
    strict({
      claims: v.pipe(
        // valibot's record takes an array as an object of its indexes: not claims.
        v.custom<Record<string, unknown>>(isRecord, claimsMessage),
        v.record(v.string(), v.unknown(), claimsMessage),
        v.description(
          DOCS
            ? 'The claims a verified token would carry: `sub`, and the roles claim, `email` and `email_verified` as configured.'
            : '',
        ),
      ),
      via: v.optional(
        v.pipe(
          v.picklist(['jwt', 'access'], 'must be "jwt" or "access"'),
          v.description(
            DOCS ? 'A JWT (WAYBILL_AUTH.jwt; the default), or a Cloudflare Access token.' : '',
          ),
        ),
        'jwt',
      ),
    }),
  ],
  'must be { "key": "<id>" } or { "claims": { … }, "via"?: "jwt" | "access" }',
)

export const ExplainBody = strict({
  caller: ExplainCaller,
  action: v.pipe(
    v.picklist(
      ['read', 'write', 'delete', 'list', 'debug'],
      'must be read, write, delete, list or debug',
    ),
    v.description(
      DOCS
        ? 'What the request would do: read (POST /v1/sign), delete (POST /v1/sign, DELETE), debug (POST /v1/sign, debug), write (POST /v1/uploads, a PUT), list (GET /v1/list).'
        : '',
    ),
  ),
  origin: OriginName,
  key: v.pipe(
    characters(0, 1024, 'must be an object key of at most 1024 characters'),
    v.description(DOCS ? 'The object (for list, the prefix listed).' : ''),
  ),
  contentType: v.optional(
    v.pipe(
      characters(1, 256, 'must be a media type of at most 256 characters'),
      v.description(
        DOCS ? 'For write: the type the upload declares (default application/octet-stream).' : '',
      ),
    ),
  ),
  contentLength: v.optional(
    v.pipe(
      wholeNumber(0, MAX_UPLOAD_BYTES),
      v.description(DOCS ? 'For write: the size it declares.' : ''),
    ),
  ),
  overwrite: v.optional(
    v.pipe(
      v.boolean('must be true or false'),
      v.description(DOCS ? 'For write: may it replace an object.' : ''),
    ),
  ),
  expiresIn: v.optional(
    v.pipe(
      wholeNumber(1, 604_800),
      v.description(DOCS ? 'The lifetime asked for, in seconds.' : ''),
    ),
  ),
})
export type ExplainBody = v.InferOutput<typeof ExplainBody>

const Refusal = v.nullable(
  v.object({
    code: v.pipe(v.string(), v.description(DOCS ? 'The problem code the request would get.' : '')),
    detail: v.string(),
    errors: v.array(v.object({ path: v.string(), message: v.string() })),
  }),
)

export const ExplainAnswer = v.object({
  allowed: v.boolean(),
  status: v.pipe(
    v.number(),
    v.description(DOCS ? 'The status the request would be answered with.' : ''),
  ),
  caller: v.object({
    principal: v.pipe(v.string(), v.description(DOCS ? 'As the request log would name it.' : '')),
    subjects: v.pipe(
      v.array(v.string()),
      v.description(
        DOCS ? 'What a grant may name it by: its own name, its email, its roles, `*`.' : '',
      ),
    ),
    fallen: v.pipe(
      v.nullable(v.picklist(['revoked', 'expired', 'unknown'])),
      v.description(
        DOCS ? 'A stored key that may not authenticate, and why; null when it may.' : '',
      ),
    ),
  }),
  request: v.pipe(
    v.object({ method: v.string(), path: v.string(), body: v.optional(v.unknown()) }),
    v.description(DOCS ? 'The request explained, as a caller would send it.' : ''),
  ),
  refusal: v.pipe(
    Refusal,
    v.description(DOCS ? 'The rule that refuses it: the problem it would get.' : ''),
  ),
  grants: v.pipe(
    v.array(
      v.object({
        ...EffectiveGrant.entries,
        permits: v.pipe(
          v.boolean(),
          v.description(DOCS ? 'Whether this grant alone would allow it.' : ''),
        ),
        refusal: v.pipe(Refusal, v.description(DOCS ? 'Why this grant alone would not.' : '')),
      }),
    ),
    v.description(
      DOCS
        ? 'Each grant on the origin that reaches the caller, judged alone: one that permits is a grant that justifies the request.'
        : '',
    ),
  ),
  quota: v.pipe(
    v.nullable(
      v.object({
        id: v.string(),
        to: v.string(),
        maxObjects: v.nullable(v.number()),
        maxBytes: v.nullable(v.number()),
        windowS: v.number(),
        use: QuotaUse,
        fits: v.pipe(
          v.nullable(v.boolean()),
          v.description(DOCS ? 'For write: whether one more upload of this size fits now.' : ''),
        ),
      }),
    ),
    v.description(
      DOCS ? "The quota that counts the caller's uploads on the origin, if one does." : '',
    ),
  ),
})

// ---- export and import --------------------------------------------------------------------------

/** The version of the configuration document: what an import of another would refuse. */
const CONFIG_VERSION = 1

const sha256Message = 'must be a SHA-256 in hex (64 characters 0-9, a-f)'
const Sha256 = v.pipe(v.string(sha256Message), v.regex(/^[0-9a-f]{64}$/, sha256Message))

export const ExportQuery = strict(
  {
    secrets: v.optional(
      v.pipe(
        v.picklist(['omit', 'include'], 'must be "omit" or "include"'),
        v.description(
          DOCS
            ? "`include` adds each key secret's SHA-256 (what a restore needs for the keys to work); `omit` (the default) leaves them out. Never the keys themselves: those are stored nowhere."
            : '',
        ),
      ),
      'omit',
    ),
  },
  { noun: 'parameter' },
)
export type ExportQuery = v.InferOutput<typeof ExportQuery>

const ExportedSecret = v.object({
  ...KeyView.entries.secrets.pipe[0].item.entries,
  sha256: v.optional(
    v.pipe(v.string(), v.description(DOCS ? 'Only with `?secrets=include`.' : '')),
  ),
})

/** The control plane's configuration, as GET /admin/v1/export answers it and import takes it. */
export const ConfigDocument = v.object({
  version: v.literal(CONFIG_VERSION),
  exportedAt: v.string(),
  keys: v.array(
    v.object({
      ...KeyView.entries,
      lastUsedAt: v.optional(NullableTime),
      secrets: v.array(ExportedSecret),
    }),
  ),
  grants: v.array(GrantRecord),
  quotas: v.array(QuotaRecord),
  revocations: v.array(RevocationRecord),
})

const records = <TItem extends v.GenericSchema>(item: TItem, what: string) =>
  v.optional(
    v.pipe(
      list(item),
      v.maxLength(MAX_IMPORT_RECORDS, `must hold at most ${MAX_IMPORT_RECORDS} ${what}`),
    ),
    [],
  )

// A revocation as exported: each kind's fields, with its id and when it was made.
const [revokedKey, revokedLink, revokedLinks] = revocationKinds.options
const recorded = { id: RecordId('r'), createdAt: Time }
const importedRevocation = v.variant(
  'kind',
  [
    strictFields({ ...recorded, ...revokedKey.entries }),
    strictFields({ ...recorded, ...revokedLink.entries }),
    strictFields({ ...recorded, ...revokedLinks.entries }),
  ],
  'must be "key", "link" or "links"',
)

/** An import: a configuration document (ConfigDocument), each record checked as its create is. */
export const ImportBody = strict({
  version: v.pipe(
    v.literal(CONFIG_VERSION, `must be ${CONFIG_VERSION}: a document of GET /admin/v1/export`),
    v.description(
      DOCS ? 'The version of the document (GET /admin/v1/export makes version 1).' : '',
    ),
  ),
  exportedAt: v.optional(v.string()),
  keys: records(
    strict({
      id: KeyId,
      label: v.nullable(KeyLabel),
      createdAt: Time,
      expiresAt: v.nullable(Time),
      revokedAt: v.nullable(Time),
      lastUsedAt: v.optional(v.nullable(Time)),
      secrets: v.pipe(
        list(
          strict({
            prefix: characters(1, 40, 'must be the first characters of the key, as exported'),
            createdAt: Time,
            expiresAt: v.nullable(Time),
            sha256: v.pipe(
              Sha256,
              v.description(
                DOCS
                  ? 'Required: a key without its secrets could not authenticate (export with `?secrets=include`).'
                  : '',
              ),
            ),
          }),
        ),
        v.minLength(1, 'must hold the key\'s secrets (export with "?secrets=include")'),
        v.maxLength(2, 'must hold at most 2 secrets (two while a rotation overlaps)'),
      ),
    }),
    'keys',
  ),
  grants: records(strict({ id: RecordId('g'), createdAt: Time, grant: GrantBody }), 'grants'),
  quotas: records(
    v.pipe(
      strict({
        id: RecordId('q'),
        createdAt: Time,
        to: v.pipe(characters(1, 300, subjectMessage), StoredSubject),
        origin: OriginName,
        maxObjects: v.nullable(wholeNumber(1, 1_000_000_000)),
        maxBytes: v.nullable(wholeNumber(1, MAX_UPLOAD_BYTES * 1000)),
        windowS: wholeNumber(MIN_QUOTA_WINDOW_S, MAX_QUOTA_WINDOW_S),
      }),
      v.forward(
        v.partialCheck(
          [['maxObjects'], ['maxBytes']],
          (quota) => quota.maxObjects !== null || quota.maxBytes !== null,
          'must not be null when "maxBytes" is',
        ),
        ['maxObjects'],
      ),
    ),
    'quotas',
  ),
  revocations: records(
    v.pipe(
      v.custom<v.InferInput<typeof importedRevocation>>(
        isRecord,
        (issue) => `must be a JSON object, not ${typeName(issue.input)}`,
      ),
      importedRevocation,
    ),
    'revocations',
  ),
})
export type ImportBody = v.InferOutput<typeof ImportBody>

const Counts = v.object({
  keys: v.number(),
  grants: v.number(),
  quotas: v.number(),
  revocations: v.number(),
})

export const ImportAnswer = v.object({
  added: v.pipe(Counts, v.description(DOCS ? 'Records added.' : '')),
  skipped: v.pipe(
    Counts,
    v.description(
      DOCS
        ? 'Records left as they were: their id is held already (or, for a quota, its subject and origin have one).'
        : '',
    ),
  ),
})
