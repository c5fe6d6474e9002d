// The Durable Object that counts a link's uses (POST /v1/links with `maxUses`): one per link,
// named by the link's id. A Durable Object runs one call at a time, and `use` reads and writes its
// SQLite storage synchronously, awaiting nothing before its count is written: twenty visits at
// once are judged one after the other, so a one-time link leads exactly once.
// https://developers.cloudflare.com/durable-objects/api/sqlite-storage-api/
//
// It keeps its count while the link lives (and LINK_USES_KEPT_S more), then its alarm deletes
// everything it stored: nothing is kept for links nobody can follow.
// https://developers.cloudflare.com/durable-objects/api/alarms/

import { DurableObject } from 'cloudflare:workers'
import { LINK_USES_KEPT_S } from '../limits'

/** One use asked for: counted when `ok` (`used` includes it); refused when all were used. */
export interface LinkUse {
  ok: boolean
  used: number
  left: number
}

export class LinkUses extends DurableObject<object> {
  /**
   * Counts one use of a link that allows `max`, if one is left. `expiresAtMs` is the link's end
   * and `nowMs` the Worker's time: the count is kept for the life the Worker saw left, measured
   * by this object's own clock, so clocks that disagree (a test's, or a skewed one) agree on it.
   */
  async use(max: number, expiresAtMs: number, nowMs: number): Promise<LinkUse> {
    const { sql } = this.ctx.storage
    // Here rather than in the constructor: the alarm's deleteAll() drops the table too.
    sql.exec('CREATE TABLE IF NOT EXISTS uses (used INTEGER NOT NULL)')
    const row = sql.exec<{ used: number }>('SELECT used FROM uses').toArray()[0]
    const used = row?.used ?? 0
    if (used >= max) return { ok: false, used, left: 0 }
    if (row === undefined) sql.exec('INSERT INTO uses (used) VALUES (1)')
    else sql.exec('UPDATE uses SET used = ?', used + 1)
    if (row === undefined) {
      const life = Math.max(0, expiresAtMs - nowMs)
      await this.ctx.storage.setAlarm(Date.now() + life + LINK_USES_KEPT_S * 1000)
    }
    return { ok: true, used: used + 1, left: max - used - 1 }
  }

  /** The link has expired: its count is of no use to anyone. */
  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll()
  }
}
