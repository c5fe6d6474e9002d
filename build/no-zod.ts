// Stands in for zod in the Worker bundle (wrangler.jsonc "alias"). hono-openapi's schema converters
// import zod's for zod schemas only; waybill's are valibot's, so this code never runs, yet without
// the alias the bundler would pack all of zod (about 300 KB), installed here for other tools.
export {}
