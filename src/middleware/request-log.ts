import type { Context } from 'hono'
import { createMiddleware } from 'hono/factory'
import type { ConfigResult } from '../config'
import type { AppEnv, LogFields, RequestIdVariables } from './types'

/** What of a configuration the log reads: whether it logs every request or errors only. */
interface LogSetting {
  readonly requestLog: 'all' | 'errors'
}

/** What the log line needs of an app's environment: the request id, its fields, the setting. */
interface LoggedEnv {
  Variables: RequestIdVariables & { log: LogFields; config: LogSetting }
}

/** Adds what the route knows to the request's log line. */
export function logFields(c: Context<AppEnv>, fields: LogFields): void {
  Object.assign(c.get('log'), fields)
}

/**
 * The request's id and its log line, first on every request. The id is Cloudflare's `cf-ray`, or
 * a fresh UUID: never the client's own header, which anyone could set to tangle the logs; it is
 * returned as `Waybill-Request-Id`. The line is one JSON object: request id, route, principal,
 * origin, action, item count, status, outcome and duration. Never a token, an API key, a signature
 * or a signed URL, and not the path either (it can hold an object key); the route pattern is
 * logged instead.
 */
export function requestLog() {
  return createMiddleware<LoggedEnv>(async function requestLog(c, next) {
    const started = performance.now()
    const id = requestIdOf(c.req.raw)
    c.set('requestId', id)
    const fields: LogFields = {}
    c.set('log', fields)
    try {
      await next()
    } finally {
      logAnswer(c.get('config'), c.req.method, c.req.routePath, id, fields, c.res, started)
    }
  })
}

/** A request's id: Cloudflare's `cf-ray`, or a fresh UUID (see `requestLog`). */
export function requestIdOf(request: Request): string {
  return request.headers.get('cf-ray') ?? crypto.randomUUID()
}

/**
 * The end of a request: its log line (unless `config`, once known good, logs errors only and
 * this is none) and its id on the answer. `requestLog`'s, and the served downloads' that skip the
 * router (src/routes/served.ts).
 */
export function logAnswer(
  config: LogSetting | undefined,
  method: string,
  route: string,
  requestId: string,
  fields: LogFields,
  response: Response,
  started: number,
): void {
  const status = response.status
  // Set once the configuration is known good; until then every request is logged.
  const quiet = config?.requestLog === 'errors' && status < 400
  if (!quiet) logRequest(method, route, requestId, fields, status, started)
  response.headers.set('waybill-request-id', requestId)
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

/**
 * The isolate's first line, as it starts: its configuration's problems (level error; each names a
 * variable and never what a secret holds, as the 503 answers do), or that it started, when every
 * request is logged. Being the isolate's first `console.log`, it also takes that call's one-time
 * setup inside workerd (about 2 ms) out of the first request.
 */
export function logIsolateStart(result: ConfigResult): void {
  if (!result.ok) {
    console.log(
      JSON.stringify({
        level: 'error',
        message: 'configuration',
        outcome: 'invalid',
        errors: result.errors.map(({ path, message }) => ({ path, message })),
      }),
    )
  } else if (result.config.requestLog === 'all') {
    console.log(JSON.stringify({ level: 'info', message: 'configuration', outcome: 'ok' }))
  }
}
