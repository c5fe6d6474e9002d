// CORS for the API itself, from WAYBILL_CORS. Written out rather than hono's cors(): the API needs
// one fixed setting's headers, and the general middleware (origins as lists or functions, methods
// per request, echoed request headers) weighs about twice this in the Worker's bundle.

import { createMiddleware } from 'hono/factory'
import { loadConfig } from '../config'
import { allowedOrigin } from '../schemas/cors'
import type { AppEnv } from './types'

const EXPOSED = 'waybill-expires-at,waybill-request-id,retry-after'
const METHODS = 'GET,HEAD,POST'
const REQUEST_HEADERS = 'authorization,content-type,accept,cf-access-jwt-assertion'

// The admin API is another Worker's (src/admin/), which answers no CORS at all: it takes the
// Access cookie, and an app's origin, even one trusted with the callers' API, must never read its
// answers. Its paths get none here either, should a route ever be added under them by mistake.
const ADMIN_PATHS = '/admin/'
// The objects an origin serves itself answer with that origin's own CORS setting (its driver's).
const SERVED_PATHS = '/o/'

/**
 * CORS for the API itself, from WAYBILL_CORS, never under /admin/ or /o/. Off when unset (no CORS
 * headers; preflights get 405). Runs before authentication: a preflight carries no credentials,
 * and is answered here (204) whatever route its path names. A page the setting does not list gets
 * no `Access-Control-Allow-Origin`, so its browser refuses the answer.
 */
export function cors() {
  return createMiddleware<AppEnv>(async function cors(c, next) {
    // The path the router matches (decoded), so no spelling of an admin path gets past this.
    if (c.req.path.startsWith(ADMIN_PATHS) || c.req.path.startsWith(SERVED_PATHS)) return next()
    const result = loadConfig(c.env ?? {})
    const config = result.ok ? result.config.cors : undefined
    if (config === undefined) return next()
    // Set on the answer so far: the route's answer (or the error's) takes them over (hono's c.res).
    const { headers } = c.res
    const allowed = allowedOrigin(config, c.req.header('origin'))
    if (allowed !== undefined) headers.set('access-control-allow-origin', allowed)
    if (config.credentials) headers.set('access-control-allow-credentials', 'true')
    headers.set('access-control-expose-headers', EXPOSED)
    // Which page asked decides the answer, unless any page may read it.
    const vary = config.origins !== '*'
    if (c.req.method === 'OPTIONS') {
      if (vary) headers.append('vary', 'Origin')
      headers.set('access-control-max-age', String(config.maxAgeS))
      headers.set('access-control-allow-methods', METHODS)
      headers.set('access-control-allow-headers', REQUEST_HEADERS)
      headers.delete('content-length')
      headers.delete('content-type')
      return new Response(null, { status: 204, headers })
    }
    await next()
    if (vary) c.header('vary', 'Origin', { append: true })
  })
}
