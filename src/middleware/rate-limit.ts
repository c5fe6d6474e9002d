import type { Context } from 'hono'
import { principalBinding } from '../principal'
import { RATE_LIMIT_RETRY_AFTER_S } from '../limits'
import { WaybillError } from '../errors'
import type { AppEnv } from './types'

/**
 * Per-principal rate limit with the Workers Rate Limiting binding `WAYBILL_RATE_LIMITER`, when it
 * is bound (see wrangler.jsonc): 429 once the caller is over it. Needs `principal`, so
 * `authenticate` calls it once the caller is known.
 */
export async function enforceRateLimit(c: Context<AppEnv>): Promise<void> {
  const limiter = c.env?.WAYBILL_RATE_LIMITER
  if (limiter === undefined) return
  const principal = c.get('principal')
  const { success } = await limiter.limit({ key: principalBinding(principal) })
  if (!success) {
    throw new WaybillError('too_many_requests', 'Too many requests from this caller; slow down.', {
      headers: { 'retry-after': String(RATE_LIMIT_RETRY_AFTER_S) },
    })
  }
}
