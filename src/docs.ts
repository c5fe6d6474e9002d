// Whether this build carries the API's documentation: the route descriptions, schema descriptions,
// examples and JSON Schema hints that only scripts/openapi.mjs reads. True here, for the generator
// and the tests; the Workers' bundles alias this module to build/no-docs.ts (wrangler.jsonc
// "alias"), where it is false, and esbuild then drops every `DOCS ? … : …` branch's text, so
// neither Worker ships words nobody reads there.
export const DOCS: boolean = true
