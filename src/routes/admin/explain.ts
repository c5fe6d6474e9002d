// /admin/v1/explain: would a caller's request be allowed, by which grant, and if not, why.

import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import { Answer } from '../../http/answer'
import { jsonBody } from '../../middleware/json-body'
import { publicProblems } from '../../http/openapi'
import type { AdminAppEnv, AdminRouteDeps } from '../../middleware/types'
import { validBody } from '../../middleware/validate'
import { ExplainAnswer, ExplainBody } from '../../control/admin-schemas'
import { explainRequest } from '../../services/admin/explain'
import { IDEMPOTENCY_HEADER } from './idempotency'
import { ADMIN_PROBLEMS, ADMIN_SECURITY, BAD_BODY, contextOf } from './shared'

const EXPLAINED = new Answer(ExplainAnswer, 'The verdict, and why')

export function explainRoutes({ clock, adminAuthenticated, idempotent }: AdminRouteDeps) {
  const ctx = (c: Context<AdminAppEnv>) => contextOf(c, clock)
  return new Hono<AdminAppEnv>().post(
    '/',
    describeRoute(
      DOCS
        ? {
            operationId: 'adminExplain',
            summary: 'Would this caller be allowed to do this, by which grant, and if not, why',
            description:
              "A caller (an API key by id, or the claims a verified JWT or Access token would carry), an action, an origin and a key. The data plane answers it with the code that answers the request itself, over its own configuration and control plane: the verdict is what the request would get (`status`, and `refusal`: the rule that refuses, as the problem it would answer). Each grant that reaches the caller on the origin is judged alone (`permits`), and the quota that counts the caller's uploads there is read from its counter. Nothing is signed, reserved or stored.",
            security: ADMIN_SECURITY,
            parameters: [IDEMPOTENCY_HEADER],
            responses: {
              200: EXPLAINED.response,
              ...publicProblems(...BAD_BODY, 'conflict', ...ADMIN_PROBLEMS),
            },
          }
        : {},
    ),
    adminAuthenticated,
    idempotent,
    jsonBody(),
    validBody(ExplainBody),
    async (c) => EXPLAINED.json(c, await explainRequest(ctx(c), c.req.valid('json'))),
  )
}
