import type { MiddlewareHandler } from 'hono'
import { cors as honoCors } from 'hono/cors'
import { createMiddleware } from 'hono/factory'
import { loadConfig } from '../config'
import type { CorsConfig } from '../schemas/cors'
import type { AppEnv } from './types'

const EXPOSED = ['waybill-expires-at', 'waybill-request-id', 'retry-after']
const handlers = new WeakMap<CorsConfig, MiddlewareHandler>()

function handlerFor(config: CorsConfig): MiddlewareHandler {
  let handler = handlers.get(config)
  if (handler === undefined) {
    const allowed = config.origins
    handler = honoCors({
      // Hono echoes the returned value; undefined for a stranger means no CORS headers at all.
      origin: (origin) => (allowed === '*' ? '*' : allowed.has(origin) ? origin : undefined),
      allowMethods: ['GET', 'HEAD', 'POST'],
      allowHeaders: ['authorization', 'content-type', 'accept', 'cf-access-jwt-assertion'],
      exposeHeaders: EXPOSED,
      credentials: config.credentials,
      maxAge: config.maxAgeS,
    })
    handlers.set(config, handler)
  }
  return handler
}

// The admin API is another Worker's (src/admin/), which answers no CORS at all: it takes the
// Access cookie, and an app's origin, even one trusted with the callers' API, must never read its
// answers. Its paths get none here either, should a route ever be added under them by mistake.
const ADMIN_PATHS = '/admin/'
// The objects an origin serves itself answer with that origin's own CORS setting (its driver's).
const SERVED_PATHS = '/o/'

/**
 * CORS for the API itself, from WAYBILL_CORS, never under /admin/. Off when unset (no CORS
 * headers; preflights get 405). Runs before authentication: a preflight carries no credentials.
 */
export function cors() {
  return createMiddleware<AppEnv>(async function cors(c, next) {
    // The path the router matches (decoded), so no spelling of an admin path gets past this.
    if (c.req.path.startsWith(ADMIN_PATHS) || c.req.path.startsWith(SERVED_PATHS)) return next()
    const result = loadConfig(c.env ?? {})
    const config = result.ok ? result.config.cors : undefined
    if (config === undefined) return next()
    return handlerFor(config)(c, next)
  })
}
