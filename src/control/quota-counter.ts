// The Durable Object behind upload quotas: one per quota and caller, holding that caller's
// reservations and the totals of each window. A Durable Object runs one call at a time, and each
// method below reads and writes its SQLite storage synchronously, without awaiting anything in
// between: two uploads minted at once are judged one after the other, so they never overshoot.
// https://developers.cloudflare.com/durable-objects/api/sqlite-storage-api/
//
// A reservation counts the most its artifact can store (one object, at the most bytes it admits)
// and holds that until `held_until`: while a PUT URL or POST policy lives, the store accepts it
// again and again, so neither a completion check (which sees one use) nor a deleted object can
// give room back before then. A multipart upload holds nothing past its end: once it is completed
// or aborted the store takes no more parts for it.
//
// The Worker's clock comes with each call (`nowMs`), as it does everywhere else in waybill.

import { DurableObject } from 'cloudflare:workers'
import {
  quotaWindow,
  type QuotaLimits,
  type QuotaReading,
  type QuotaUse,
  type ReserveAnswer,
} from './quota'

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
    // Counters made before reservations held their artifact's life: theirs hold nothing (0).
    const columns = sql.exec<{ name: string }>('PRAGMA table_info(reservations)').toArray()
    if (!columns.some((column) => column.name === 'held_until')) {
      sql.exec('ALTER TABLE reservations ADD COLUMN held_until INTEGER NOT NULL DEFAULT 0')
    }
  }

  /** The totals of the window holding `nowMs`. */
  #use(limits: Pick<QuotaLimits, 'windowS'>, nowMs: number): QuotaUse {
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
   * What the window holding `nowMs` holds (objects reserved and their bytes, settled to their
   * real size once checked) and when it ends: a quota's use, as the admin plane shows it, and a
   * readiness check's question. Reads only: reserving, settling and releasing are as they were.
   */
  read(limits: Pick<QuotaLimits, 'windowS'>, nowMs: number): QuotaReading {
    const { start, end } = quotaWindow(limits, nowMs)
    const { objects, bytes } = this.#use(limits, nowMs)
    const held = this.ctx.storage.sql
      .exec<{ n: number }>(
        'SELECT COUNT(*) AS n FROM reservations WHERE window_start = ? AND held_until > ?',
        start,
        nowMs,
      )
      .toArray()[0]!.n
    return { objects, bytes, held, windowStart: start, windowEnd: end }
  }

  /**
   * Reserves every upload of a request (all or none) when they fit the limits, on top of what the
   * window holds: each at `bytes`, the most it can store, held until `heldUntil` (epoch ms). A
   * reservation id seen before counts once.
   */
  reserve(
    reservations: readonly { id: string; bytes: number; heldUntil: number }[],
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
    for (const { id, bytes: size, heldUntil } of fresh) {
      sql.exec(
        'INSERT INTO reservations (id, window_start, bytes, held_until) VALUES (?, ?, ?, ?)',
        id,
        start,
        size,
        heldUntil,
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

  /**
   * The upload stored `bytes` (its completion check passed, or its multipart upload completed):
   * from now on its reservation counts that, once nothing can store through it any more (its
   * hold has ended). Before then it keeps counting the most its artifact admits.
   */
  settle(id: string, bytes: number, nowMs: number): void {
    const { sql } = this.ctx.storage
    const row = this.#reservation(id)
    if (row === undefined || nowMs < row.held_until || row.bytes === bytes) return
    sql.exec('UPDATE reservations SET bytes = ?, settled = 1 WHERE id = ?', bytes, id)
    sql.exec(
      'UPDATE windows SET bytes = MAX(0, bytes + ?) WHERE window_start = ?',
      bytes - row.bytes,
      row.window_start,
    )
  }

  /**
   * The uploads will never land (aborted, or deleted as not what was signed): free their room,
   * once their hold has ended (a PUT URL or POST policy may still
   * store until it expires). An id not held (released before, or expired) frees nothing.
   */
  release(ids: readonly string[], nowMs: number): void {
    this.#free(ids, nowMs)
  }

  /** The uploads were never signed (their request failed after reserving): free them now. */
  cancel(ids: readonly string[]): void {
    this.#free(ids, Infinity)
  }

  /** The reservation `id`: its window, the bytes it counts, until when it may still store. */
  #reservation(id: string) {
    return this.ctx.storage.sql
      .exec<{
        window_start: number
        bytes: number
        held_until: number
      }>('SELECT window_start, bytes, held_until FROM reservations WHERE id = ?', id)
      .toArray()[0]
  }

  #free(ids: readonly string[], nowMs: number): void {
    const { sql } = this.ctx.storage
    for (const id of ids) {
      const row = this.#reservation(id)
      if (row === undefined || nowMs < row.held_until) continue
      sql.exec('DELETE FROM reservations WHERE id = ?', id)
      sql.exec(
        'UPDATE windows SET objects = MAX(0, objects - 1), bytes = MAX(0, bytes - ?) WHERE window_start = ?',
        row.bytes,
        row.window_start,
      )
    }
  }
}
