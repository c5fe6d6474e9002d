// /admin/v1/grants: grants stored in the control plane, in the shape and schema of WAYBILL_GRANTS;
// and the grants that reach a caller, wherever they come from.

import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import { StoredGrant } from '../../config/grants'
import { Answer } from '../../http/answer'
import { jsonBody } from '../../middleware/json-body'
import { publicProblems } from '../../http/openapi'
import type { AdminAppEnv, AdminRouteDeps } from '../../middleware/types'
import { validBody, validParams, validQuery } from '../../middleware/validate'
import {
  EffectiveGrantsAnswer,
  EffectiveGrantsQuery,
  GrantAnswer,
  GrantCreateQuery,
  GrantListAnswer,
  GrantsQuery,
  recordParams,
} from '../../control/admin-schemas'
import { createGrant, effectiveGrants, listGrants, removeGrant } from '../../services/admin/grants'
import { IDEMPOTENCY_HEADER } from './idempotency'
import { ADMIN_PROBLEMS, ADMIN_SECURITY, BAD_BODY, byId, contextOf } from './shared'

const GRANT = new Answer(GrantAnswer, 'The grant as stored', 201)
const GRANT_LIST = new Answer(GrantListAnswer, 'One page of grants, oldest first')
const EFFECTIVE = new Answer(EffectiveGrantsAnswer, 'Every grant that reaches the caller')

export function grantRoutes({ clock, adminAuthenticated, idempotent }: AdminRouteDeps) {
  const ctx = (c: Context<AdminAppEnv>) => contextOf(c, clock)
  return new Hono<AdminAppEnv>()
    .post(
      '/',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminCreateGrant',
              summary: 'Add a grant: the same shape and schema as WAYBILL_GRANTS',
              description:
                'Bound by `to` to a key, a subject, a role or an email (or `*`). It adds to the env’s grants; each target must still be allowed by one grant alone. An origin not configured is a 404; an `apiKey:<id>` no key has yet a 404 too, unless `allowUnknownKey=true`; what the origin cannot hold (a prefix on an origin with keys "any", an uploadKey outside the prefix) a 403; a subject that holds the most grants one may, a 409. Takes an `Idempotency-Key`.',
              security: ADMIN_SECURITY,
              parameters: [IDEMPOTENCY_HEADER],
              responses: {
                201: {
                  ...GRANT.response,
                  links: { adminDeleteGrant: byId('adminDeleteGrant', 'Remove it.') },
                },
                ...publicProblems(...BAD_BODY, 'not_found', 'conflict', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      idempotent,
      validQuery(GrantCreateQuery),
      jsonBody(),
      validBody(StoredGrant),
      async (c) => {
        const { allowUnknownKey } = c.req.valid('query')
        return GRANT.json(c, await createGrant(ctx(c), c.req.valid('json'), allowUnknownKey))
      },
    )
    .get(
      '/',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminListGrants',
              summary:
                'The grants stored in the control plane (not the env’s), by subject if asked',
              description:
                '`to` lists the grants whose `to` is exactly that subject; for every grant that reaches a caller (the env’s too, `*`, roles and emails), see /admin/v1/grants/effective.',
              security: ADMIN_SECURITY,
              responses: {
                200: GRANT_LIST.response,
                ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validQuery(GrantsQuery),
      async (c) => GRANT_LIST.json(c, await listGrants(ctx(c), c.req.valid('query'))),
    )
    .get(
      '/effective',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminEffectiveGrants',
              summary: 'Every grant that reaches a caller: the env’s and the stored ones',
              description:
                'Those naming the caller, and those naming anyone (`*`); for a token caller (`jwt:<sub>`, `access:<sub>`), those naming the roles and the email given too. What authorize weighs for that caller (a grant’s prefix may still not fill for it); POST /admin/v1/explain says what it would answer.',
              security: ADMIN_SECURITY,
              responses: {
                200: EFFECTIVE.response,
                ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validQuery(EffectiveGrantsQuery),
      async (c) => {
        const query = c.req.valid('query')
        const grants = await effectiveGrants(ctx(c), {
          caller: query.caller,
          roles: query.role,
          email: query.email,
        })
        return EFFECTIVE.json(c, { caller: query.caller, grants })
      },
    )
    .delete(
      // Any id but the effective grants' own path, so that its 405 names GET alone.
      '/:id{(?!effective$).+}',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminDeleteGrant',
              summary: 'Remove a grant; it allows nothing more within seconds, everywhere',
              security: ADMIN_SECURITY,
              responses: {
                204: { description: 'Removed' },
                ...publicProblems('invalid_request', 'not_found', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validParams(recordParams('g')),
      async (c) => {
        await removeGrant(ctx(c), c.req.valid('param').id)
        return c.body(null, 204)
      },
    )
}
