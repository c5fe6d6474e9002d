// The control plane's data migrations, run against the pool's D1 (migrated already, as a deployed
// database would be): each is run again on rows it is for, and must leave them as the code that
// follows it reads them. Idempotent ones run twice.

import type { D1Migration } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { LATEST_MIGRATION } from '../../src/control/readiness'
import { fresh } from '../helpers/control-plane'

const { WAYBILL_DB: db, TEST_MIGRATIONS: migrations } = env as unknown as {
  WAYBILL_DB: D1Database
  TEST_MIGRATIONS: D1Migration[]
}

describe('the schema this code needs', () => {
  it('is the latest migration of migrations/, which readiness asks D1 for', () => {
    expect(migrations.at(-1)!.name).toBe(LATEST_MIGRATION)
  })
})

async function run(name: string): Promise<void> {
  const migration = migrations.find((m) => m.name === name)
  expect(migration, name).toBeDefined()
  await db.batch(migration!.queries.map((query) => db.prepare(query)))
}

describe('0002: one spelling of callers', () => {
  it('folds usage and revocations by caller under `apiKey:`, summing what both spellings counted', async () => {
    const id = fresh('spelling')
    const usage = (principal: string, day: string, minted: number) =>
      db
        .prepare(
          "INSERT INTO usage (day, principal, origin, minted, refused, bytes_reserved, bytes_completed, links_followed) VALUES (?1, ?2, 'photos', ?3, 1, 10, 5, 2)",
        )
        .bind(day, principal, minted)
    await db.batch([
      usage(`api-key:${id}`, '2026-11-22', 3),
      usage(`api-key:${id}`, '2026-11-23', 4),
      // Written by a Worker already on the new spelling, the same day: added together.
      usage(`apiKey:${id}`, '2026-11-23', 5),
      db
        .prepare(
          "INSERT INTO revocations (id, kind, issued_before, principal, created_at) VALUES (?1, 'links', 1, ?2, 1)",
        )
        .bind(`r_${id}`, `api-key:${id}`),
    ])
    for (let i = 0; i < 2; i++) {
      await run('0002_one_principal_spelling.sql')
      const { results } = await db
        .prepare(
          'SELECT day, principal, minted, refused, bytes_reserved, bytes_completed, links_followed FROM usage WHERE principal LIKE ?1 ORDER BY day',
        )
        .bind(`%:${id}`)
        .all()
      expect(results).toEqual([
        {
          day: '2026-11-22',
          principal: `apiKey:${id}`,
          minted: 3,
          refused: 1,
          bytes_reserved: 10,
          bytes_completed: 5,
          links_followed: 2,
        },
        {
          day: '2026-11-23',
          principal: `apiKey:${id}`,
          minted: 9,
          refused: 2,
          bytes_reserved: 20,
          bytes_completed: 10,
          links_followed: 4,
        },
      ])
      const revocation = await db
        .prepare('SELECT principal FROM revocations WHERE id = ?1')
        .bind(`r_${id}`)
        .first()
      expect(revocation).toEqual({ principal: `apiKey:${id}` })
    }
  })
})
