import { createMiddleware } from 'hono/factory'
import { RATE_LIMIT_RETRY_AFTER_S } from '../config/limits'
import { WaybillError } from '../errors'
import type { AppEnv } from './types'

/**
 * Per-principal rate limit with the Workers Rate Limiting binding `WAYBILL_RATE_LIMITER`, when it
 * is bound (see wrangler.jsonc). Needs `principal`, so it runs after authentication.
 */
export function rateLimit() {
  return createMiddleware<AppEnv>(async function rateLimit(c, next) {
    const limiter = c.env?.WAYBILL_RATE_LIMITER
    if (limiter !== undefined) {
      const principal = c.get('principal')
      const { success } = await limiter.limit({ key: `${principal.kind}:${principal.id}` })
      if (!success) {
        throw new WaybillError(
          'too_many_requests',
          'Too many requests from this caller; slow down.',
          {
            headers: { 'retry-after': String(RATE_LIMIT_RETRY_AFTER_S) },
          },
        )
      }
    }
    await next()
  })
}
