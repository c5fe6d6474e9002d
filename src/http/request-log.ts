import { createMiddleware } from 'hono/factory'
import type { AppEnv, LogFields } from './types'

/**
 * One JSON log line per request: request id, route, principal, origin, action, item count, status,
 * outcome and duration. Never a token, an API key, a signature or a signed URL, and not the path
 * either (it can hold an object key); the route pattern is logged instead.
 */
export function requestLog() {
  return createMiddleware<AppEnv>(async function requestLog(c, next) {
    const started = performance.now()
    const requestId = c.req.header('cf-ray') ?? crypto.randomUUID()
    const fields: LogFields = {}
    c.set('log', fields)
    try {
      await next()
    } finally {
      const status = c.res.status
      // Set once the configuration is known good; until then every request is logged.
      const quiet = c.get('config')?.requestLog === 'errors' && status < 400
      if (!quiet) logRequest(c.req.method, c.req.routePath, requestId, fields, status, started)
      c.res.headers.set('waybill-request-id', requestId)
    }
  })
}

function logRequest(
  method: string,
  route: string,
  requestId: string,
  fields: LogFields,
  status: number,
  started: number,
): void {
  console.log(
    JSON.stringify({
      level: status >= 500 ? 'error' : 'info',
      message: 'request',
      requestId,
      method,
      route,
      ...fields,
      status,
      outcome:
        status < 400
          ? 'ok'
          : status === 401 || status === 403
            ? 'denied'
            : status < 500
              ? 'invalid'
              : 'error',
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    }),
  )
}
