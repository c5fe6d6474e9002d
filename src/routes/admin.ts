// /admin/v1: the control plane's admin API. API keys, grants, revocations, quotas and usage, changed
// at run time in D1. Admin tokens or Access admins only (src/auth/admin.ts), never a caller's key.

import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import { StoredGrant } from '../config/grants'
import { Answer } from '../http/answer'
import { jsonBody } from '../http/body'
import { publicProblems } from '../http/openapi'
import type { Clock } from '../http/clock'
import type { AdminAppEnv, AdminRouteDeps } from '../http/types'
import { validBody, validParams, validQuery } from '../http/validate'
import {
  GrantAnswer,
  GrantListAnswer,
  GrantsQuery,
  KeyAnswer,
  KeyCreateBody,
  KeyCreatedAnswer,
  KeyListAnswer,
  KeyParams,
  PageQuery,
  QuotaAnswer,
  QuotaBody,
  QuotaListAnswer,
  recordParams,
  RevocationAnswer,
  RevocationBody,
  RevocationListAnswer,
  RotateBody,
  RotatedAnswer,
  UsageAnswer,
  UsageQuery,
} from '../schemas/admin'
import { createGrant, listGrants } from '../services/admin/grants'
import { createKey, getKey, listKeys, rotate } from '../services/admin/keys'
import { createQuota, listQuotas } from '../services/admin/quotas'
import { createRevocation, listRevocations } from '../services/admin/revocations'
import { deploymentOnce, removeRecord, type AdminContext } from '../services/admin/shared'
import { usageOf } from '../services/admin/usage'

/** Who may call: an admin token, or a Cloudflare Access identity with the admin role. */
const ADMIN_SECURITY: Record<string, string[]>[] = [
  { adminToken: [] },
  { access: [] },
  { accessCookie: [] },
]

/** The problems every admin route may answer besides its own (Access's keys may be down). */
const ADMIN_PROBLEMS = [
  'unauthorized',
  'forbidden',
  'config_invalid',
  'auth_unavailable',
  'control_unavailable',
] as const
const BAD_BODY = ['invalid_request', 'payload_too_large', 'unsupported_media_type'] as const

/** Each operation's success answer: its schema, in the document and in the handler's type. */
const KEY_CREATED = new Answer(KeyCreatedAnswer, 'The key (shown once) and its grants', 201)
const KEY_LIST = new Answer(KeyListAnswer, 'One page of keys, by id')
const KEY = new Answer(KeyAnswer, 'The key')
const ROTATED = new Answer(RotatedAnswer, 'The new secret (shown once)')
const GRANT = new Answer(GrantAnswer, 'The grant as stored', 201)
const GRANT_LIST = new Answer(GrantListAnswer, 'One page of grants, oldest first')
const REVOCATION = new Answer(RevocationAnswer, 'The revocation', 201)
const REVOCATION_LIST = new Answer(RevocationListAnswer, 'One page of revocations')
const QUOTA = new Answer(QuotaAnswer, 'The quota', 201)
const QUOTA_LIST = new Answer(QuotaListAnswer, 'One page of quotas')
const USAGE = new Answer(UsageAnswer, 'The days with any use')

/**
 * Where a created record leads (OpenAPI links): to the operations on it by its id. For readers,
 * and for tools that walk the API (Schemathesis).
 */
function byId(operationId: string, description: string) {
  return { operationId, description, parameters: { id: '$response.body#/id' } }
}

/** What the services work with, for this request: the control plane, the deployment, who, when. */
function contextOf(c: Context<AdminAppEnv>, clock: Clock): AdminContext {
  const config = c.get('config')
  return {
    db: config.control.db,
    quotaCounters: config.control.quotaCounters,
    deployment: deploymentOnce(config.dataPlane),
    now: clock(),
    actor: c.get('admin'),
    requestId: c.get('requestId'),
  }
}

/** The admin API, under /admin/v1. */
export function adminRoutes({ clock, adminAuthenticated }: AdminRouteDeps) {
  const ctx = (c: Context<AdminAppEnv>) => contextOf(c, clock)
  return new Hono<AdminAppEnv>()
    .post(
      '/keys',
      describeRoute({
        operationId: 'adminCreateKey',
        summary: 'Make an API key, with its grants; the key is in this answer only',
        description:
          'Only its SHA-256 is stored. Grants are as in WAYBILL_GRANTS without "to" (it is `apiKey:<id>`), checked by the same schema. An id already taken (here or in WAYBILL_API_KEYS) is a 409. A grant on an origin not configured is a 404; what its origin cannot hold (a prefix on an origin with keys "any", an uploadKey outside the prefix) a 403, as the caller\'s routes answer what an origin cannot serve.',
        security: ADMIN_SECURITY,
        responses: {
          201: {
            ...KEY_CREATED.response,
            links: {
              adminGetKey: byId('adminGetKey', 'The key as stored.'),
              adminRotateKey: byId('adminRotateKey', 'A new secret for it.'),
            },
          },
          ...publicProblems(...BAD_BODY, 'not_found', 'conflict', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      jsonBody(),
      validBody(KeyCreateBody),
      async (c) => {
        const body = c.req.valid('json')
        return KEY_CREATED.json(c, await createKey(ctx(c), body))
      },
    )
    .get(
      '/keys',
      describeRoute({
        operationId: 'adminListKeys',
        summary: 'The API keys made through the admin API, with their last use',
        security: ADMIN_SECURITY,
        responses: {
          200: KEY_LIST.response,
          ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      validQuery(PageQuery),
      async (c) => KEY_LIST.json(c, await listKeys(ctx(c), c.req.valid('query'))),
    )
    .get(
      '/keys/:id',
      describeRoute({
        operationId: 'adminGetKey',
        summary: 'One API key: its secrets by prefix, expiry, revocation, last use',
        security: ADMIN_SECURITY,
        responses: {
          200: KEY.response,
          ...publicProblems('invalid_request', 'not_found', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      validParams(KeyParams),
      async (c) => KEY.json(c, await getKey(ctx(c), c.req.valid('param').id)),
    )
    .post(
      '/keys/:id/rotate',
      describeRoute({
        operationId: 'adminRotateKey',
        summary: 'A new secret for a key; the old one keeps working for the overlap',
        description: 'A revoked key is a 409: make a new one instead.',
        security: ADMIN_SECURITY,
        responses: {
          200: ROTATED.response,
          ...publicProblems(...BAD_BODY, 'not_found', 'conflict', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      validParams(KeyParams),
      jsonBody(),
      validBody(RotateBody),
      async (c) => {
        const { id } = c.req.valid('param')
        const { overlapS } = c.req.valid('json')
        return ROTATED.json(c, await rotate(ctx(c), id, overlapS))
      },
    )
    .post(
      '/grants',
      describeRoute({
        operationId: 'adminCreateGrant',
        summary: 'Add a grant: the same shape and schema as WAYBILL_GRANTS',
        description:
          'Bound by `to` to a key, a subject, a role or an email (or `*`). It adds to the env’s grants; each target must still be allowed by one grant alone. An origin not configured is a 404; what the origin cannot hold (a prefix on an origin with keys "any", an uploadKey outside the prefix) a 403; a subject that holds the most grants one may, a 409.',
        security: ADMIN_SECURITY,
        responses: {
          201: {
            ...GRANT.response,
            links: { adminDeleteGrant: byId('adminDeleteGrant', 'Remove it.') },
          },
          ...publicProblems(...BAD_BODY, 'not_found', 'conflict', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      jsonBody(),
      validBody(StoredGrant),
      async (c) => {
        const body = c.req.valid('json')
        return GRANT.json(c, await createGrant(ctx(c), body))
      },
    )
    .get(
      '/grants',
      describeRoute({
        operationId: 'adminListGrants',
        summary: 'The grants stored in the control plane (not the env’s)',
        security: ADMIN_SECURITY,
        responses: {
          200: GRANT_LIST.response,
          ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      validQuery(GrantsQuery),
      async (c) => GRANT_LIST.json(c, await listGrants(ctx(c), c.req.valid('query'))),
    )
    .delete(
      '/grants/:id',
      describeRoute({
        operationId: 'adminDeleteGrant',
        summary: 'Remove a grant; it allows nothing more within seconds, everywhere',
        security: ADMIN_SECURITY,
        responses: {
          204: { description: 'Removed' },
          ...publicProblems('invalid_request', 'not_found', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      validParams(recordParams('g')),
      async (c) => {
        await removeRecord(ctx(c), 'grant', c.req.valid('param').id)
        return c.body(null, 204)
      },
    )
    .post(
      '/revocations',
      describeRoute({
        operationId: 'adminCreateRevocation',
        summary: 'Revoke a key, a link by its id, or links by issue time, origin and caller',
        description:
          'Refused everywhere within seconds (the control plane’s bound). Revocations are permanent records. A key not made through the admin API is a 404; a key or a link revoked already, or a revocation of links by time when the control plane holds the most it may, a 409.',
        security: ADMIN_SECURITY,
        responses: {
          201: REVOCATION.response,
          ...publicProblems(...BAD_BODY, 'not_found', 'conflict', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      jsonBody(),
      validBody(RevocationBody),
      async (c) => {
        const body = c.req.valid('json')
        const answer = await createRevocation(ctx(c), body)
        return REVOCATION.json(c, answer)
      },
    )
    .get(
      '/revocations',
      describeRoute({
        operationId: 'adminListRevocations',
        summary: 'The revocations, oldest first',
        security: ADMIN_SECURITY,
        responses: {
          200: REVOCATION_LIST.response,
          ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      validQuery(PageQuery),
      async (c) => REVOCATION_LIST.json(c, await listRevocations(ctx(c), c.req.valid('query'))),
    )
    .post(
      '/quotas',
      describeRoute({
        operationId: 'adminCreateQuota',
        summary: 'Set an upload quota: objects and bytes per window, per caller, on an origin',
        description:
          'One per subject and origin: another is a 409. An origin not configured is a 404; one that cannot hold a quota (not S3, or no quota counters bound) a 403.',
        security: ADMIN_SECURITY,
        responses: {
          201: {
            ...QUOTA.response,
            links: { adminDeleteQuota: byId('adminDeleteQuota', 'Remove it.') },
          },
          ...publicProblems(...BAD_BODY, 'not_found', 'conflict', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      jsonBody(),
      validBody(QuotaBody),
      async (c) => {
        const body = c.req.valid('json')
        return QUOTA.json(c, await createQuota(ctx(c), body))
      },
    )
    .get(
      '/quotas',
      describeRoute({
        operationId: 'adminListQuotas',
        summary: 'The upload quotas',
        security: ADMIN_SECURITY,
        responses: {
          200: QUOTA_LIST.response,
          ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      validQuery(PageQuery),
      async (c) => QUOTA_LIST.json(c, await listQuotas(ctx(c), c.req.valid('query'))),
    )
    .delete(
      '/quotas/:id',
      describeRoute({
        operationId: 'adminDeleteQuota',
        summary: 'Remove an upload quota',
        security: ADMIN_SECURITY,
        responses: {
          204: { description: 'Removed' },
          ...publicProblems('invalid_request', 'not_found', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      validParams(recordParams('q')),
      async (c) => {
        await removeRecord(ctx(c), 'quota', c.req.valid('param').id)
        return c.body(null, 204)
      },
    )
    .get(
      '/usage',
      describeRoute({
        operationId: 'adminGetUsage',
        summary: 'Usage of a key or caller, by day and origin',
        description:
          'Artifacts minted, requests refused, bytes reserved and completed, links followed. Counted after each answer and written every few seconds, so the last seconds may not show yet.',
        security: ADMIN_SECURITY,
        responses: {
          200: USAGE.response,
          ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
        },
      }),
      adminAuthenticated,
      validQuery(UsageQuery),
      async (c) => USAGE.json(c, await usageOf(ctx(c), c.req.valid('query'))),
    )
}
