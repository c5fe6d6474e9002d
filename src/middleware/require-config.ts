import { createMiddleware } from 'hono/factory'
import { loadConfig } from '../config'
import { prepareOrigins } from '../origins'
import { WaybillError, type FieldError } from '../errors'
import type { AppEnv } from './types'

/** The 503 of a configuration with `errors`, each named at its variable. */
export function configInvalid(errors: readonly FieldError[]): WaybillError {
  const count = `${errors.length} problem${errors.length === 1 ? '' : 's'}`
  return new WaybillError(
    'config_invalid',
    `The service configuration is invalid (${count}); an operator must fix it.`,
    { errors, headers: { 'retry-after': '60' } },
  )
}

/**
 * Loads the config and readies its origins (importing their keys; both once per isolate) and puts
 * the config on the context. An invalid config makes every route behind this middleware answer 503 listing each
 * bad field; values are never echoed.
 */
export function requireConfig() {
  return createMiddleware<AppEnv>(async function requireConfig(c, next) {
    const result = loadConfig(c.env ?? {})
    if (!result.ok) throw configInvalid(result.errors)
    const keyErrors = await prepareOrigins(result.config.origins)
    if (keyErrors.length > 0) throw configInvalid(keyErrors)
    c.set('config', result.config)
    await next()
  })
}
