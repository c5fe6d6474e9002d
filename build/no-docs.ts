// Stands in for src/docs.ts in the Workers' bundles (wrangler.jsonc "alias"): the documentation is
// served from the generated docs/openapi.json, so the code keeps none of it.
export const DOCS: boolean = false
