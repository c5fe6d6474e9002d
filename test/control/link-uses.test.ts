// The Durable Object that counts a link's uses: one use per call while any are left, one call at
// a time (so uses asked for at once never overshoot), and nothing kept once the link has expired.

import { env } from 'cloudflare:workers'
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { LINK_USES_KEPT_S } from '../../src/limits'

/** A fresh counter, as a link's id names it. */
const counter = () =>
  env.WAYBILL_LINK_USES.get(env.WAYBILL_LINK_USES.idFromName(crypto.randomUUID()))

const HOUR_MS = 3_600_000

describe('LinkUses', () => {
  it('counts one use per call, and refuses once all are used', async () => {
    const uses = counter()
    const now = Date.parse('2026-11-23T10:00:00Z')
    const expiresAt = now + HOUR_MS
    expect(await uses.use(2, expiresAt, now)).toEqual({ ok: true, used: 1, left: 1 })
    expect(await uses.use(2, expiresAt, now)).toEqual({ ok: true, used: 2, left: 0 })
    expect(await uses.use(2, expiresAt, now)).toEqual({ ok: false, used: 2, left: 0 })
    expect(await uses.use(2, expiresAt, now)).toEqual({ ok: false, used: 2, left: 0 })
  })

  it('never overshoots, however many uses arrive at once', async () => {
    const uses = counter()
    const now = Date.now()
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => uses.use(3, now + HOUR_MS, now)),
    )
    expect(answers.filter((answer) => answer.ok)).toHaveLength(3)
    expect(answers.map((answer) => answer.used).sort((a, b) => a - b)).toEqual([
      1,
      2,
      ...Array<number>(18).fill(3),
    ])
  })

  it('keeps its count while the link lives, and deletes it once the link has expired', async () => {
    const uses = counter()
    // The Worker's clock may be anyone's (a test's is days off): the counter keeps the link's
    // life as the Worker measured it, by its own clock, and a margin.
    const workerNow = Date.parse('2026-01-01T00:00:00Z')
    const before = Date.now()
    expect(await uses.use(1, workerNow + HOUR_MS, workerNow)).toMatchObject({ ok: true })
    const after = Date.now()
    const alarm = await runInDurableObject(uses, (_, state) => state.storage.getAlarm())
    expect(alarm).toBeGreaterThanOrEqual(before + HOUR_MS + LINK_USES_KEPT_S * 1000)
    expect(alarm).toBeLessThanOrEqual(after + HOUR_MS + LINK_USES_KEPT_S * 1000)
    expect(await uses.use(1, workerNow + HOUR_MS, workerNow)).toMatchObject({ ok: false })
    expect(await runDurableObjectAlarm(uses)).toBe(true)
    const tables = await runInDurableObject(uses, (_, state) =>
      state.storage.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .toArray()
        .filter(({ name }) => !name.startsWith('_cf_') && !name.startsWith('sqlite_')),
    )
    expect(tables).toEqual([])
    // Asked again (a clock behind by more than the margin): it counts afresh, without failing.
    expect(await uses.use(1, workerNow + HOUR_MS, workerNow)).toEqual({
      ok: true,
      used: 1,
      left: 0,
    })
  })
})
