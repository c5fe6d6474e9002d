// The response policy's default (src/http/answer.ts says which answers earn a cache rule).

import type { MiddlewareHandler } from 'hono'

/** The default of the response policy: `no-store` on every answer that set no cache rule. */
export function noStore(): MiddlewareHandler {
  return async function noStore(c, next) {
    await next()
    noStoreUnlessSet(c.res.headers)
  }
}

/** `no-store`, unless the answer set a cache rule of its own. */
export function noStoreUnlessSet(headers: Headers): void {
  if (!headers.has('cache-control')) headers.set('cache-control', 'no-store')
}
