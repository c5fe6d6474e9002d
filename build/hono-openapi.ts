// Stands in for hono-openapi in the Workers' bundles (wrangler.jsonc "alias"). The routes describe
// themselves with its describeRoute and validator, and scripts/openapi.mjs generates
// docs/openapi.json from those descriptions with the real package, in Node, at build time; the
// Worker serves that file (src/app.ts). So the Worker needs only the validation: the descriptions
// are dropped here, and the generator and its JSON Schema converters stay out of the bundle
// (about 30 KB).
//
// The validation is hono-openapi's, as its validator runs it (@hono/standard-validator on
// hono/validator), for the three targets the routes validate: the JSON body, the query and the
// path parameters. Written out here because the two packages carry every other target's reading
// (forms, headers, cookies) into the bundle. The e2e project runs the Worker with this file in
// place (vitest.config.ts), so every bad-input row checks it.

import type { Context, MiddlewareHandler } from 'hono'
import type * as HonoOpenApi from 'hono-openapi'

const described: MiddlewareHandler = async function describeRoute(_c, next) {
  await next()
}

/** The route's description is the document's; the Worker keeps none. */
export const describeRoute: typeof HonoOpenApi.describeRoute = () => described

/** What the description would hold: nothing reads it in the Worker. */
export const resolver = (() => undefined) as unknown as typeof HonoOpenApi.resolver

/** A JSON media type, as hono/validator reads one (no parameters). */
const JSON_MEDIA = /^application\/([\w.-]+\+)?json$/i

type Target = 'json' | 'query' | 'param'

interface StandardSchema {
  '~standard': {
    validate(value: unknown): { value?: unknown; issues?: readonly unknown[] } | Promise<never>
  }
}

type Hook = (result: object, c: Context) => unknown

/** What `target` holds in `c`: as hono/validator reads it. */
async function valueOf(c: Context, target: Target): Promise<unknown> {
  if (target === 'json') {
    const type = c.req.header('content-type')?.split(';')[0]?.trim() ?? ''
    // The body is read and parsed by the route's jsonBody() before this; c.req.json() gives it.
    return JSON_MEDIA.test(type) ? c.req.json() : {}
  }
  if (target === 'query') {
    return Object.fromEntries(
      Object.entries(c.req.queries()).map(([name, values]) => [
        name,
        values.length === 1 ? values[0] : values,
      ]),
    )
  }
  return c.req.param()
}

/**
 * `validator(target, schema, hook)`: the value validated by the schema (Standard Schema), the hook
 * given the result, the output kept for `c.req.valid(target)`; a refusal the hook does not answer
 * is a 400 with the issues, as @hono/standard-validator's.
 */
function validate(target: Target, schema: StandardSchema, hook?: Hook): MiddlewareHandler {
  return async function validator(c, next) {
    const value = await valueOf(c, target)
    const result = await schema['~standard'].validate(value)
    const answered = await hook?.(
      result.issues === undefined
        ? { data: value, success: true, target }
        : { data: value, error: result.issues, success: false, target },
      c,
    )
    if (answered instanceof Response) return answered
    if (result.issues !== undefined) return c.json(result, 400)
    c.req.addValidatedData(target, result.value as object)
    await next()
  }
}

export const validator = validate as unknown as typeof HonoOpenApi.validator
