// The parts of an R2 multipart upload, recorded as the Worker stores them. R2's binding can start,
// continue, complete and abort a multipart upload but not list its parts, and a client resumes by
// listing them: so each part the Worker stores (after its size and SHA-256 passed) is recorded
// here, one Durable Object per upload, and listed from here. A part R2 holds but this record does
// not (its checksum failed after R2 had its bytes) is never listed, so never completed.
//
// An upload R2 has not completed or aborted within seven days is gone from R2; its record deletes
// itself a day after that (an alarm).

import { DurableObject } from 'cloudflare:workers'
import type { UploadedPart } from '../types'

/** How long a record outlives its last part: R2 aborts an upload seven days after it starts. */
const RECORD_LIFETIME_MS = 8 * 24 * 3600 * 1000

/** What the Worker calls on an upload's record. */
export interface UploadPartsStub {
  record(part: UploadedPart, nowMs: number): Promise<void>
  /** The parts, or undefined once the upload has ended (completed or aborted). */
  list(): Promise<UploadedPart[] | undefined>
  end(nowMs: number): Promise<void>
}

export class UploadParts extends DurableObject<object> {
  /** The tables, made again after the alarm (deleteAll drops them). */
  #sql() {
    const { sql } = this.ctx.storage
    sql.exec(
      'CREATE TABLE IF NOT EXISTS parts (part_number INTEGER PRIMARY KEY, etag TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT)',
    )
    sql.exec('CREATE TABLE IF NOT EXISTS ended (at INTEGER NOT NULL)')
    return sql
  }

  #ended(): boolean {
    return this.#sql().exec('SELECT at FROM ended').toArray().length > 0
  }

  /** Records a stored part (a part stored again replaces its record, as it replaces the part). */
  async record(part: UploadedPart, nowMs: number): Promise<void> {
    this.#sql().exec(
      'INSERT OR REPLACE INTO parts (part_number, etag, size, sha256) VALUES (?, ?, ?, ?)',
      part.partNumber,
      part.etag,
      part.size,
      part.checksumSha256 ?? null,
    )
    await this.ctx.storage.setAlarm(nowMs + RECORD_LIFETIME_MS)
  }

  /** The recorded parts, ascending; undefined once the upload has ended. */
  list(): UploadedPart[] | undefined {
    if (this.#ended()) return undefined
    return this.#sql()
      .exec<{ part_number: number; etag: string; size: number; sha256: string | null }>(
        'SELECT part_number, etag, size, sha256 FROM parts ORDER BY part_number',
      )
      .toArray()
      .map((row) => ({
        partNumber: row.part_number,
        etag: row.etag,
        size: row.size,
        ...(row.sha256 === null ? {} : { checksumSha256: row.sha256 }),
      }))
  }

  /** Marks the upload ended (completed or aborted): its parts forgotten, the record kept a while. */
  async end(nowMs: number): Promise<void> {
    const sql = this.#sql()
    sql.exec('DELETE FROM parts')
    sql.exec('INSERT INTO ended (at) VALUES (?)', nowMs)
    await this.ctx.storage.setAlarm(nowMs + RECORD_LIFETIME_MS)
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll()
  }
}
