import { Hono } from 'hono'
import { authenticate } from './auth/authenticate'
import { RemoteJwksCache, type Fetch } from './auth/jwks'
import { systemClock, type Clock } from './http/clock'
import { CoreError } from './core/errors'
import { fromCoreError, WaybillError } from './errors'
import { requireConfig } from './http/config'
import { cors } from './http/cors'
import { rateLimit } from './http/rate-limit'
import { requestLog } from './http/request-log'
import { internalErrorResponse, problemResponse } from './http/problem'
import type { AppEnv } from './http/types'
import { cookieRoutes } from './routes/cookies'
import { openApiDocument } from './routes/openapi'
import { listRoutes } from './routes/list'
import { redirectRoutes } from './routes/redirect'
import { signRoutes } from './routes/sign'
import { uploadRoutes } from './routes/uploads'

export interface AppOptions {
  /** Signing and token-checking time source; the request time unless a test fixes it. */
  clock?: Clock
  /** How JWKS are fetched; the global fetch unless a test serves its own. */
  fetch?: Fetch
}

/** Paths and the methods they answer, so any other method gets 405 with a truthful `Allow`. */
const ALLOWED: ReadonlyArray<readonly [string, string]> = [
  ['/healthz', 'GET, HEAD'],
  ['/openapi.json', 'GET, HEAD'],
  ['/v1/sign', 'POST'],
  ['/v1/cookies', 'POST'],
  ['/v1/redirect/*', 'GET, HEAD'],
  ['/v1/list/*', 'GET, HEAD'],
  // Also matches /v1/uploads itself.
  ['/v1/uploads/*', 'POST'],
]

function methodNotAllowed(allow: string): WaybillError {
  return new WaybillError('method_not_allowed', `This path answers ${allow} only.`, {
    headers: { allow },
  })
}

/**
 * Builds the waybill Hono app.
 *
 * @example
 * export default createApp() // the Worker
 * const res = await createApp({ clock: () => new Date('2026-01-01T00:00:00Z') }).request('/healthz')
 */
export function createApp(options: AppOptions = {}) {
  const clock = options.clock ?? systemClock
  // Per app, so per isolate for the Worker: key sets fetched once serve every later request.
  const jwks = new RemoteJwksCache(options.fetch ?? ((input, init) => fetch(input, init)), () =>
    clock().getTime(),
  )
  const app = new Hono<AppEnv>()

  app.use(requestLog())
  app.use(cors())

  // 405 before authentication: the method is wrong whoever calls. GET routes answer HEAD too.
  for (const [path, allow] of ALLOWED) {
    const allowed = allow.split(', ')
    app.all(path, async (c, next) => {
      if (!allowed.includes(c.req.method)) throw methodNotAllowed(allow)
      await next()
    })
  }

  app.get('/healthz', requireConfig(), (c) =>
    c.json({ ok: true }, 200, { 'cache-control': 'no-store' }),
  )
  app.get('/openapi.json', (c) => c.json(openApiDocument))

  app.use('/v1/*', requireConfig())
  app.use('/v1/sign', authenticate({ jwks, clock }), rateLimit())
  app.use('/v1/cookies', authenticate({ jwks, clock }), rateLimit())
  app.use('/v1/redirect/*', authenticate({ jwks, clock, cookie: true }), rateLimit())
  app.use('/v1/list/*', authenticate({ jwks, clock }), rateLimit())
  app.use('/v1/uploads/*', authenticate({ jwks, clock }), rateLimit())
  app.route('/v1/sign', signRoutes(clock))
  app.route('/v1/cookies', cookieRoutes(clock))
  app.route('/v1/redirect', redirectRoutes(clock))
  app.route('/v1/list', listRoutes(clock))
  app.route('/v1/uploads', uploadRoutes(clock))

  app.notFound(() =>
    problemResponse(new WaybillError('not_found', 'No such route; see GET /openapi.json.')),
  )
  app.onError((error) => {
    if (error instanceof WaybillError) return problemResponse(error)
    if (error instanceof CoreError) return problemResponse(fromCoreError(error))
    // Unexpected: log where it happened, answer a plain 500. Not the message: a library's
    // message may quote what it was given (a secret, a token), and the stack's first line is it.
    console.error(
      JSON.stringify({
        level: 'error',
        message: 'unhandled error',
        error: error.name,
        stack: (error.stack ?? '')
          .split('\n')
          .filter((line) => /^\s+at /.test(line))
          .join('\n'),
      }),
    )
    return internalErrorResponse()
  })
  return app
}
