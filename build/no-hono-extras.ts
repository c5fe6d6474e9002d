// Stands in for three of hono's own modules in the data plane's bundle (wrangler.jsonc "alias",
// which matches hono's relative imports of them): what app.mount(), c.req.parseBody() and c.html()
// need, none of which the data plane calls (eslint.config.mjs forbids them there). Each throws, so
// a call that slipped through fails at once, named. test/scripts/bundle.node.test.ts checks that
// only hono imports these specifiers.

const unused = (what: string) => () => {
  throw new Error(`${what} is not in the data plane's bundle (build/no-hono-extras.ts)`)
}

/** hono/dist/utils/mount.js, for app.mount(). */
export const createMountedRequest = unused('app.mount()')

/** hono/dist/utils/body.js, for c.req.parseBody(). */
export const parseBody = unused('c.req.parseBody()')

/** hono/dist/utils/html.js, for c.html(). */
export const HtmlEscapedCallbackPhase = { Stringify: 1, BeforeStream: 2, Stream: 3 }
export const resolveCallback = unused('c.html()')
