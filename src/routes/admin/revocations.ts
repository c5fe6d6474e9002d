// /admin/v1/revocations: a key, a link by its id, or links by issue time, origin and caller; kept
// as records, and undone by deleting one.

import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import { Answer } from '../../http/answer'
import { jsonBody } from '../../middleware/json-body'
import { publicProblems } from '../../http/openapi'
import type { AdminAppEnv, AdminRouteDeps } from '../../middleware/types'
import { validBody, validParams, validQuery } from '../../middleware/validate'
import {
  PageQuery,
  recordParams,
  RevocationAnswer,
  RevocationBody,
  RevocationListAnswer,
} from '../../control/admin-schemas'
import {
  createRevocation,
  listRevocations,
  removeRevocation,
} from '../../services/admin/revocations'
import { IDEMPOTENCY_HEADER } from './idempotency'
import { ADMIN_PROBLEMS, ADMIN_SECURITY, BAD_BODY, byId, contextOf } from './shared'

const REVOCATION = new Answer(RevocationAnswer, 'The revocation', 201)
const REVOCATION_LIST = new Answer(RevocationListAnswer, 'One page of revocations')

export function revocationRoutes({ clock, adminAuthenticated, idempotent }: AdminRouteDeps) {
  const ctx = (c: Context<AdminAppEnv>) => contextOf(c, clock)
  return new Hono<AdminAppEnv>()
    .post(
      '/',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminCreateRevocation',
              summary: 'Revoke a key, a link by its id, or links by issue time, origin and caller',
              description:
                'Refused everywhere within seconds (the control plane’s bound). A revocation is a record, until deleted. A key not made through the admin API is a 404; a key or a link revoked already, or a revocation of links by time when the control plane holds the most it may, a 409. `principal` names a caller as the request log does (`apiKey:<id>`, `jwt:<sub>`). Takes an `Idempotency-Key`.',
              security: ADMIN_SECURITY,
              parameters: [IDEMPOTENCY_HEADER],
              responses: {
                201: {
                  ...REVOCATION.response,
                  links: { adminDeleteRevocation: byId('adminDeleteRevocation', 'Undo it.') },
                },
                ...publicProblems(...BAD_BODY, 'not_found', 'conflict', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      idempotent,
      jsonBody(),
      validBody(RevocationBody),
      async (c) => REVOCATION.json(c, await createRevocation(ctx(c), c.req.valid('json'))),
    )
    .get(
      '/',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminListRevocations',
              summary: 'The revocations, oldest first',
              security: ADMIN_SECURITY,
              responses: {
                200: REVOCATION_LIST.response,
                ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validQuery(PageQuery),
      async (c) => REVOCATION_LIST.json(c, await listRevocations(ctx(c), c.req.valid('query'))),
    )
    .delete(
      '/:id',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminDeleteRevocation',
              summary: 'Undo a revocation: a key stands again, links are followed again',
              description:
                'Within the control plane’s bound, everywhere. Audited, with the revocation as it was.',
              security: ADMIN_SECURITY,
              responses: {
                204: { description: 'Undone' },
                ...publicProblems('invalid_request', 'not_found', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validParams(recordParams('r')),
      async (c) => {
        await removeRevocation(ctx(c), c.req.valid('param').id)
        return c.body(null, 204)
      },
    )
}
