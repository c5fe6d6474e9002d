// Stands in for hono-openapi in the Worker bundle (wrangler.jsonc "alias"). The routes describe
// themselves with its describeRoute and validator, and scripts/openapi.mjs generates
// docs/openapi.json from those descriptions with the real package, in Node, at build time; the
// Worker serves that file (src/app.ts). So the Worker needs only the validation, which is
// @hono/standard-validator's, as the package's own validator runs it: the descriptions are dropped
// here, and the generator and its JSON Schema converters stay out of the bundle (about 30 KB).

import { sValidator } from '@hono/standard-validator'
import type { MiddlewareHandler } from 'hono'
import type * as HonoOpenApi from 'hono-openapi'

const described: MiddlewareHandler = async function describeRoute(_c, next) {
  await next()
}

/** The route's description is the document's; the Worker keeps none. */
export const describeRoute: typeof HonoOpenApi.describeRoute = () => described

/** What the description would hold: nothing reads it in the Worker. */
export const resolver = (() => undefined) as unknown as typeof HonoOpenApi.resolver

/**
 * Validation only: hono-openapi's validator is `sValidator(target, schema, hook)` with the schema
 * kept for the document. (Its types and @hono/standard-validator's differ only in generics.)
 */
export const validator = sValidator as unknown as typeof HonoOpenApi.validator
