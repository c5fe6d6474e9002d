// The response policy's default (src/http/answer.ts says which answers earn a cache rule).

import type { MiddlewareHandler } from 'hono'

/** The default of the response policy: `no-store` on every answer that set no cache rule. */
export function noStore(): MiddlewareHandler {
  return async function noStore(c, next) {
    await next()
    if (!c.res.headers.has('cache-control')) c.res.headers.set('cache-control', 'no-store')
  }
}
