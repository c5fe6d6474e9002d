// Whether this build carries the API's documentation: the route descriptions, schema descriptions,
// examples and JSON Schema hints that only scripts/openapi.mjs reads. A global constant that each
// build defines, not a module's export, so that a Worker's bundle (wrangler.jsonc and
// wrangler.admin.jsonc "define", in every environment: DOCS is "false") drops every
// `DOCS ? … : …` branch as it is read, and with them every helper only those branches use (esbuild
// keeps the helpers an imported constant's dead branches name). True for the document's generator
// (scripts/openapi.mjs), the unit tests and the bench app; false in the Workers' bundles, the e2e
// project's Worker (vitest.config.ts) and the doctor's build of the configuration code.
declare const DOCS: boolean
