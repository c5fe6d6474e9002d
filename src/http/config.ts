import { createMiddleware } from 'hono/factory'
import { loadConfig } from '../config'
import { WaybillError } from '../errors'
import type { AppEnv } from './types'

/**
 * Loads the config (once per isolate) and puts it on the context. An invalid config makes every
 * route behind this middleware answer 503 listing each bad field; values are never echoed.
 */
export function requireConfig() {
  return createMiddleware<AppEnv>(async function requireConfig(c, next) {
    const result = loadConfig(c.env ?? {})
    if (!result.ok) {
      throw new WaybillError(
        'config_invalid',
        `The service configuration is invalid (${result.errors.length} problem${result.errors.length === 1 ? '' : 's'}); an operator must fix it.`,
        { errors: result.errors, headers: { 'retry-after': '60' } },
      )
    }
    c.set('config', result.config)
    await next()
  })
}
