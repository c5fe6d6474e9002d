// /admin/v1/quotas: upload quotas, with what their callers have used (read from the counters), and
// changed in place.

import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import { Answer } from '../../http/answer'
import { jsonBody } from '../../middleware/json-body'
import { publicProblems } from '../../http/openapi'
import type { AdminAppEnv, AdminRouteDeps } from '../../middleware/types'
import { validBody, validParams, validQuery } from '../../middleware/validate'
import {
  PageQuery,
  QuotaAnswer,
  QuotaBody,
  QuotaListAnswer,
  QuotaQuery,
  QuotaUpdateBody,
  QuotaUseAnswer,
  recordParams,
} from '../../control/admin-schemas'
import {
  createQuota,
  getQuota,
  listQuotas,
  patchQuota,
  removeQuota,
} from '../../services/admin/quotas'
import { IDEMPOTENCY_HEADER } from './idempotency'
import { ADMIN_PROBLEMS, ADMIN_SECURITY, BAD_BODY, byId, contextOf } from './shared'

const QUOTA = new Answer(QuotaAnswer, 'The quota', 201)
const QUOTA_USE = new Answer(QuotaUseAnswer, 'The quota, and what its caller has used of it')
const QUOTA_LIST = new Answer(QuotaListAnswer, 'One page of quotas, with their use')

export function quotaRoutes({ clock, adminAuthenticated, idempotent }: AdminRouteDeps) {
  const ctx = (c: Context<AdminAppEnv>) => contextOf(c, clock)
  return new Hono<AdminAppEnv>()
    .post(
      '/',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminCreateQuota',
              summary:
                'Set an upload quota: objects and bytes per window, per caller, on an origin',
              description:
                'One per subject and origin: another is a 409 (change the one there: PATCH). An origin not configured is a 404; one that cannot hold a quota (not S3, or no quota counters bound) a 403. Takes an `Idempotency-Key`.',
              security: ADMIN_SECURITY,
              parameters: [IDEMPOTENCY_HEADER],
              responses: {
                201: {
                  ...QUOTA.response,
                  links: {
                    adminGetQuota: byId('adminGetQuota', 'It, with its use.'),
                    adminUpdateQuota: byId('adminUpdateQuota', 'Change its limits in place.'),
                    adminDeleteQuota: byId('adminDeleteQuota', 'Remove it.'),
                  },
                },
                ...publicProblems(...BAD_BODY, 'not_found', 'conflict', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      idempotent,
      jsonBody(),
      validBody(QuotaBody),
      async (c) => QUOTA.json(c, await createQuota(ctx(c), c.req.valid('json'))),
    )
    .get(
      '/',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminListQuotas',
              summary: 'The upload quotas, each with what the key it names has used',
              security: ADMIN_SECURITY,
              responses: {
                200: QUOTA_LIST.response,
                ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validQuery(PageQuery),
      async (c) => QUOTA_LIST.json(c, await listQuotas(ctx(c), c.req.valid('query'))),
    )
    .get(
      '/:id',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminGetQuota',
              summary:
                'One quota, with a caller’s use: objects and bytes counted, room left, reset',
              description:
                'Read from the caller’s counter (the data plane’s Durable Object) in the window holding now. The caller is the key the quota names, or `caller` for a quota naming a role, an email, a subject or `*` (each caller is counted apart).',
              security: ADMIN_SECURITY,
              responses: {
                200: QUOTA_USE.response,
                ...publicProblems('invalid_request', 'not_found', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validParams(recordParams('q')),
      validQuery(QuotaQuery),
      async (c) =>
        QUOTA_USE.json(
          c,
          await getQuota(ctx(c), c.req.valid('param').id, c.req.valid('query').caller),
        ),
    )
    .patch(
      '/:id',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminUpdateQuota',
              summary: 'Change a quota’s limits in place: its counters keep what they counted',
              description:
                'Raising 3 uploads to 4 allows one more in the window, not four: the counters are the quota’s, and stay. The window cannot change (a quota with another window is another quota). Both limits null is a 403.',
              security: ADMIN_SECURITY,
              responses: {
                200: QUOTA_USE.response,
                ...publicProblems(...BAD_BODY, 'not_found', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validParams(recordParams('q')),
      jsonBody(),
      validBody(QuotaUpdateBody),
      async (c) =>
        QUOTA_USE.json(c, await patchQuota(ctx(c), c.req.valid('param').id, c.req.valid('json'))),
    )
    .delete(
      '/:id',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminDeleteQuota',
              summary: 'Remove an upload quota',
              security: ADMIN_SECURITY,
              responses: {
                204: { description: 'Removed' },
                ...publicProblems('invalid_request', 'not_found', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validParams(recordParams('q')),
      async (c) => {
        await removeQuota(ctx(c), c.req.valid('param').id)
        return c.body(null, 204)
      },
    )
}
