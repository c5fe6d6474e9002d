// Stands in for @valibot/to-json-schema in the Worker bundle (wrangler.jsonc "alias"): only route
// descriptions convert schemas, and the Worker drops those (build/hono-openapi.ts).

import type * as ToJsonSchema from '@valibot/to-json-schema'

export const toJsonSchema: typeof ToJsonSchema.toJsonSchema = () => ({})
