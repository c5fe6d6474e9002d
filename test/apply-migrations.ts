// A setup file of the workerd projects: the local D1 database (wrangler.jsonc's WAYBILL_DB) gets
// the migrations in migrations/, as `wrangler d1 migrations apply` would give a deployed one.
// vitest.config.ts reads them in Node (readD1Migrations) and hands them over as TEST_MIGRATIONS.
// Applied once: applyD1Migrations records what it applied, so later files skip it.

import { applyD1Migrations, type D1Migration } from 'cloudflare:test'
import { env } from 'cloudflare:workers'

const { WAYBILL_DB, TEST_MIGRATIONS } = env as unknown as {
  WAYBILL_DB: D1Database
  TEST_MIGRATIONS: D1Migration[]
}
await applyD1Migrations(WAYBILL_DB, TEST_MIGRATIONS)
