// What both Workers' apps share around their routes (the data plane's src/app.ts and the admin
// plane's src/admin/app.ts): 405s from the routes themselves, the 404 and the error pipeline,
// static assets behind routes, and the router built while the Worker loads.

import type { Env, Handler, Hono, MiddlewareHandler } from 'hono'
import { CoreError } from '../core/errors'
import { fromCoreError, WaybillError } from '../errors'
import { internalErrorResponse, problemResponse } from './problem'

/**
 * A route path as the 405s match it, as strictly as the app's router does: `:name` one segment,
 * `:name{re}` its own pattern, and no other spelling (a trailing slash is another path, a 404 for
 * every method). A wildcard or an optional segment is middleware's (method ALL), never a route's:
 * such a route path throws.
 */
function routePattern(path: string): RegExp {
  if (/[*?]/.test(path.replace(/\{[^}]+\}/g, ''))) {
    throw new Error(`methodNotAllowed cannot match the route path ${path}`)
  }
  const source = path.replace(/\/:\w+(\{[^}]+\})?|[.\\+[^\]$()|{}]/g, (part, own?: string) =>
    part.startsWith('/:') ? `/(?:${own?.slice(1, -1) ?? '[^/]+'})` : `\\${part}`,
  )
  return new RegExp(`^${source}$`)
}

/**
 * Any other method on a route's path: 405 with a truthful `Allow`, from the routes themselves (as
 * hono's method-not-allowed middleware does, for an app that is not mounted under another). The
 * paths' methods are gathered on the first 404: only a request no route answered reaches it.
 */
export function methodNotAllowed<E extends Env>(app: Hono<E>): MiddlewareHandler<E> {
  let byPath: [RegExp, string[]][] | undefined
  return async function methodNotAllowed(c, next) {
    await next()
    if (c.res.status !== 404 || c.error !== undefined) return
    if (byPath === undefined) {
      const methods = new Map<string, Set<string>>()
      for (const { method, path } of app.routes) {
        if (method === 'ALL' || method === 'HEAD') continue
        const those = methods.get(path) ?? new Set()
        those.add(method)
        if (method === 'GET') those.add('HEAD')
        methods.set(path, those)
      }
      byPath = [...methods].map(([path, those]) => [routePattern(path), [...those]])
    }
    const path = c.req.path
    const allowed = new Set(byPath.flatMap(([pattern, those]) => (pattern.test(path) ? those : [])))
    if (allowed.size === 0 || allowed.has(c.req.method)) return
    const allow = [...allowed].join(', ')
    // The 404's headers would carry over to the 405 (hono's `c.res` keeps them): not its length.
    c.res.headers.delete('content-length')
    c.res = problemResponse(
      new WaybillError('method_not_allowed', `This path answers ${allow} only.`, {
        headers: { allow },
      }),
    )
  }
}

/**
 * A file of the Worker's static assets (made by scripts/docs-assets.mjs). The runtime serves them
 * before the Worker runs; the route answers GET when it is reached anyway (a deployment without
 * the assets, or a test), and gives the path its 405s and its document entry.
 */
export function asset(path: string): Handler {
  return (c) => {
    // No env at all: app.request without one, as a test may call it.
    const assets = (c.env as { ASSETS?: Fetcher } | undefined)?.ASSETS
    if (assets === undefined) {
      throw new WaybillError('not_found', `This deployment serves no ${path} (no static assets).`)
    }
    // Its own Response, so that middleware may still set headers (a fetched one's are immutable).
    return assets
      .fetch(new URL(path, c.req.url))
      .then((answer) => new Response(answer.body, answer))
  }
}

/**
 * The origin (scheme, host and port) of a request's URL as the runtime serialized it: what the
 * Worker's own signed URLs are written on. Read off the text, the URL parser only for a URL that
 * names a user (which no request the runtime serializes does).
 *
 * @example
 * requestOrigin('https://files.example.com/v1/sign') // 'https://files.example.com'
 */
export function requestOrigin(url: string): string {
  const start = url.indexOf('://')
  const end = start < 0 ? -1 : url.indexOf('/', start + 3)
  const origin = end < 0 ? url : url.slice(0, end)
  return start < 0 || origin.includes('@') ? new URL(url).origin : origin
}

/**
 * The answer to an error: a WaybillError's (or a core error's) problem, anything else a plain 500
 * whose cause goes to the log, where it happened and never its message (a library's message may
 * quote what it was given: a secret, a token; the stack's first line is it).
 */
export function errorResponse(error: unknown): Response {
  if (error instanceof WaybillError) return problemResponse(error)
  if (error instanceof CoreError) return problemResponse(fromCoreError(error))
  console.error(
    JSON.stringify({
      level: 'error',
      message: 'unhandled error',
      error: error instanceof Error ? error.name : typeof error,
      stack: (error instanceof Error ? (error.stack ?? '') : '')
        .split('\n')
        .filter((line) => /^\s+at /.test(line))
        .join('\n'),
    }),
  )
  return internalErrorResponse()
}

/**
 * The 404 for an unknown route, the one error pipeline (a problem for what waybill knows, a plain
 * 500 logged for what it does not), and the route matcher built now.
 */
export function finish<E extends Env>(app: Hono<E>): void {
  app.notFound(() =>
    problemResponse(new WaybillError('not_found', 'No such route; see GET /openapi.json.')),
  )
  app.onError(errorResponse)
  // Hono builds its route matcher on the first request it routes. Build it now, while the Worker
  // loads (which Cloudflare overlaps with the TLS handshake), not in a caller's first request.
  app.router.match('GET', '/')
}
