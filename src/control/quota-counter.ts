// The Durable Object behind upload quotas: one per quota and caller, holding that caller's
// reservations and the totals of each window. A Durable Object runs one call at a time, and each
// method below reads and writes its SQLite storage synchronously, without awaiting anything in
// between: two uploads minted at once are judged one after the other, so they never overshoot.
// https://developers.cloudflare.com/durable-objects/api/sqlite-storage-api/
//
// The Worker's clock comes with each call (`nowMs`), as it does everywhere else in waybill.

import { DurableObject } from 'cloudflare:workers'
import { quotaWindow, type QuotaLimits, type QuotaUse, type ReserveAnswer } from './quota'

export class QuotaCounter extends DurableObject<object> {
  constructor(ctx: DurableObjectState, env: object) {
    super(ctx, env)
    const { sql } = ctx.storage
    sql.exec(
      'CREATE TABLE IF NOT EXISTS reservations (id TEXT PRIMARY KEY, window_start INTEGER NOT NULL, bytes INTEGER NOT NULL, settled INTEGER NOT NULL DEFAULT 0)',
    )
    sql.exec(
      'CREATE TABLE IF NOT EXISTS windows (window_start INTEGER PRIMARY KEY, objects INTEGER NOT NULL, bytes INTEGER NOT NULL)',
    )
  }

  /** The totals of the window holding `nowMs`. Private: not a call the Worker makes. */
  #use(limits: QuotaLimits, nowMs: number): QuotaUse {
    const { start } = quotaWindow(limits, nowMs)
    const row = this.ctx.storage.sql
      .exec<{ objects: number; bytes: number }>(
        'SELECT objects, bytes FROM windows WHERE window_start = ?',
        start,
      )
      .toArray()[0]
    return { objects: row?.objects ?? 0, bytes: row?.bytes ?? 0 }
  }

  /**
   * Reserves every upload of a request (all or none) when they fit the limits, on top of what the
   * window holds. A reservation id seen before counts once.
   */
  reserve(
    reservations: readonly { id: string; bytes: number }[],
    limits: QuotaLimits,
    nowMs: number,
  ): ReserveAnswer {
    const { sql } = this.ctx.storage
    const { start, end } = quotaWindow(limits, nowMs)
    // What two windows ago held can no longer be settled into anything that matters.
    sql.exec('DELETE FROM reservations WHERE window_start < ?', start - (end - start))
    sql.exec('DELETE FROM windows WHERE window_start < ?', start - (end - start))
    const used = this.#use(limits, nowMs)
    const fresh = reservations.filter(
      ({ id }) => sql.exec('SELECT 1 FROM reservations WHERE id = ?', id).toArray().length === 0,
    )
    const objects = used.objects + fresh.length
    const bytes = used.bytes + fresh.reduce((sum, r) => sum + r.bytes, 0)
    const retryAfterS = Math.max(1, Math.ceil((end - nowMs) / 1000))
    if (limits.maxObjects !== undefined && objects > limits.maxObjects) {
      return { ok: false, over: 'objects', used, retryAfterS }
    }
    if (limits.maxBytes !== undefined && bytes > limits.maxBytes) {
      return { ok: false, over: 'bytes', used, retryAfterS }
    }
    for (const { id, bytes: size } of fresh) {
      sql.exec(
        'INSERT INTO reservations (id, window_start, bytes) VALUES (?, ?, ?)',
        id,
        start,
        size,
      )
    }
    sql.exec(
      'INSERT INTO windows (window_start, objects, bytes) VALUES (?, ?, ?) ON CONFLICT (window_start) DO UPDATE SET objects = ?, bytes = ?',
      start,
      objects,
      bytes,
      objects,
      bytes,
    )
    return { ok: true, used: { objects, bytes } }
  }

  /** The upload finished with `bytes`: its reservation now counts that (once). */
  settle(id: string, bytes: number): void {
    const { sql } = this.ctx.storage
    const row = sql
      .exec<{
        window_start: number
        bytes: number
        settled: number
      }>('SELECT window_start, bytes, settled FROM reservations WHERE id = ?', id)
      .toArray()[0]
    if (row === undefined || row.settled === 1) return
    sql.exec('UPDATE reservations SET bytes = ?, settled = 1 WHERE id = ?', bytes, id)
    sql.exec(
      'UPDATE windows SET bytes = MAX(0, bytes + ?) WHERE window_start = ?',
      bytes - row.bytes,
      row.window_start,
    )
  }

  /**
   * The uploads will never land (aborted, deleted as not what was signed, or a batch that could not
   * be signed): free their room. An id not held (released before, or expired) frees nothing.
   */
  release(ids: readonly string[]): void {
    const { sql } = this.ctx.storage
    for (const id of ids) {
      const row = sql
        .exec<{
          window_start: number
          bytes: number
        }>('SELECT window_start, bytes FROM reservations WHERE id = ?', id)
        .toArray()[0]
      if (row === undefined) continue
      sql.exec('DELETE FROM reservations WHERE id = ?', id)
      sql.exec(
        'UPDATE windows SET objects = MAX(0, objects - 1), bytes = MAX(0, bytes - ?) WHERE window_start = ?',
        row.bytes,
        row.window_start,
      )
    }
  }
}
