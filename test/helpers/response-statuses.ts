// Test helper for the browser tests: what each request a page sends was answered, as soon as it is.

import type { Page, Request } from 'playwright-core'

/**
 * The status of each request `page` sends, taken as its response arrives (undefined while there
 * is none, or when it failed without one). Asking `request.response()` from a `requestfinished`
 * handler costs another round trip to the browser, so a record made that way can hear of a
 * request after the page has acted on its answer (test/browser/client.test.ts's recorder takes
 * the status this way too).
 *
 * @example
 * const statusOf = responseStatuses(page)
 * page.on('requestfinished', (request) => sent.push({ url: request.url(), status: statusOf(request) }))
 */
export function responseStatuses(page: Page): (request: Request) => number | undefined {
  const statuses = new WeakMap<Request, number>()
  page.on('response', (response) => statuses.set(response.request(), response.status()))
  return (request) => statuses.get(request)
}
