// /admin/v1/usage: what callers minted, had refused, reserved and completed, and their links
// followed, by day and origin.

import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import { Answer } from '../../http/answer'
import { publicProblems } from '../../http/openapi'
import type { AdminAppEnv, AdminRouteDeps } from '../../middleware/types'
import { validQuery } from '../../middleware/validate'
import { UsageAnswer, UsageQuery, UsageTopAnswer, UsageTopQuery } from '../../control/admin-schemas'
import { topUsage, usageOf } from '../../services/admin/usage'
import { ADMIN_PROBLEMS, ADMIN_SECURITY, contextOf } from './shared'

const USAGE = new Answer(UsageAnswer, 'The days with any use')
const TOP = new Answer(UsageTopAnswer, 'The callers that did the most')

export function usageRoutes({ clock, adminAuthenticated }: AdminRouteDeps) {
  const ctx = (c: Context<AdminAppEnv>) => contextOf(c, clock)
  return new Hono<AdminAppEnv>()
    .get(
      '/',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminGetUsage',
              summary: 'Usage of a caller, or of every caller together, by day and origin',
              description:
                'Artifacts minted, requests refused, bytes reserved and completed, links followed. Counted after each answer and written every few seconds, so the last seconds may not show yet. Without `principal`, the totals of every caller.',
              security: ADMIN_SECURITY,
              responses: {
                200: USAGE.response,
                ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validQuery(UsageQuery),
      async (c) => USAGE.json(c, await usageOf(ctx(c), c.req.valid('query'))),
    )
    .get(
      '/top',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminGetTopUsage',
              summary: 'The callers that did the most: by artifacts minted, bytes, or refusals',
              description:
                'Over the days asked (the last 30 by default), most first. A followed link counts under its issuer’s hash, which names no caller: those are left out here (they show in a caller’s own usage).',
              security: ADMIN_SECURITY,
              responses: {
                200: TOP.response,
                ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validQuery(UsageTopQuery),
      async (c) => TOP.json(c, await topUsage(ctx(c), c.req.valid('query'))),
    )
}
