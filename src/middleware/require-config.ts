import { createMiddleware } from 'hono/factory'
import { loadConfig, type Config } from '../config'
import type { Env } from '../env'
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
 * The configuration of `env`, its origins readied (their keys imported; both once per isolate),
 * or the 503 listing each bad field (values never echoed).
 */
export async function readyConfig(env: Partial<Env>): Promise<Config> {
  const result = loadConfig(env)
  if (!result.ok) throw configInvalid(result.errors)
  const keyErrors = await prepareOrigins(result.config.origins)
  if (keyErrors.length > 0) throw configInvalid(keyErrors)
  return result.config
}

/**
 * Puts the ready configuration on the context (`readyConfig`). An invalid config makes every
 * route behind this middleware answer 503 listing each bad field.
 */
export function requireConfig() {
  return createMiddleware<AppEnv>(async function requireConfig(c, next) {
    c.set('config', await readyConfig(c.env ?? {}))
    await next()
  })
}
