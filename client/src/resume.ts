// What a page remembers about its multipart uploads, so one interrupted by a reload, a crash or a
// lost connection can be finished later: one storage entry per file, under a fingerprint.

import { RESUME_KEY_PREFIX } from './constants.ts'

/**
 * Where resumable uploads are remembered: `localStorage` by default, or anything with these three
 * methods (`sessionStorage`, a Map-backed object, a wrapper around IndexedDB's data).
 */
export interface ResumeStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

/** A multipart upload in progress, as remembered for its file. */
export interface ResumeRecord {
  origin: string
  key: string
  uploadId: string
  partSize: number
  /** The file it is for: see `fingerprintOf`. */
  fingerprint: string
  /** When the upload was started (ISO 8601). */
  startedAt: string
  /**
   * The parts the bucket answered 2xx for, with the ETag it answered (none when its CORS rules
   * hide it). Only these are trusted when the upload resumes: a store may list a part whose
   * transfer was cut off. A record without them (an older one) trusts no part.
   */
  parts?: RecordedPart[] | undefined
  /** Each part's URL signs its SHA-256 (the upload was created with partChecksums). */
  checksums?: boolean | undefined
}

/** A part of a resumable upload that the bucket answered 2xx for. */
export interface RecordedPart {
  partNumber: number
  etag?: string | undefined
}

/** What names the upload's destination: the key asked for, or the file name the grant names it by. */
export interface UploadTarget {
  origin: string
  key?: string | undefined
  filename?: string | undefined
  contentType: string
}

/**
 * The file and destination an upload is for: the origin, the key (or file name) asked for, and
 * the file's name, size, modification time and content type. The same file picked again after a
 * reload has the same fingerprint; an edited one does not. (A file's bytes are not hashed: that
 * would read all of it before the first part could leave.)
 */
export function fingerprintOf(file: Blob, target: UploadTarget): string {
  const named = file as Partial<File>
  return JSON.stringify([
    target.origin,
    target.key ?? '',
    target.filename ?? '',
    named.name ?? '',
    file.size,
    named.lastModified ?? 0,
    target.contentType,
  ])
}

/** This page's localStorage, or undefined where there is none or it may not be used. */
export function defaultStorage(): ResumeStorage | undefined {
  try {
    return (globalThis as { localStorage?: ResumeStorage }).localStorage
  } catch {
    // A sandboxed frame or blocked storage throws on access.
    return undefined
  }
}

const isRecordOf = (value: unknown, fingerprint: string): value is ResumeRecord => {
  const r = value as Record<string, unknown> | null
  return (
    r?.fingerprint === fingerprint &&
    typeof r.partSize === 'number' &&
    ['origin', 'key', 'uploadId', 'startedAt'].every((field) => typeof r[field] === 'string')
  )
}

const isRecordedPart = (value: unknown): value is RecordedPart => {
  if (typeof value !== 'object' || value === null) return false
  const p = value as Record<string, unknown>
  return Number.isInteger(p.partNumber) && (p.etag === undefined || typeof p.etag === 'string')
}

/**
 * The records of one storage. A failure of the storage itself (quota, private mode) reads as no
 * record; `set` answers false when the record could not be kept.
 */
export function resumeRecords(storage: ResumeStorage | undefined) {
  const entry = (fingerprint: string) => RESUME_KEY_PREFIX + fingerprint
  return {
    get(fingerprint: string): ResumeRecord | undefined {
      try {
        const text = storage?.getItem(entry(fingerprint))
        if (text === null || text === undefined) return undefined
        const value: unknown = JSON.parse(text)
        if (!isRecordOf(value, fingerprint)) return undefined
        // Parts that cannot be read are not trusted: they are sent again.
        const parts = Array.isArray(value.parts) ? value.parts.filter(isRecordedPart) : undefined
        return { ...value, parts, checksums: value.checksums === true }
      } catch {
        return undefined
      }
    },
    set(record: ResumeRecord): boolean {
      if (storage === undefined) return false
      try {
        storage.setItem(entry(record.fingerprint), JSON.stringify(record))
        return true
      } catch {
        // Without storage the upload still completes; it only cannot be resumed.
        return false
      }
    },
    delete(fingerprint: string): void {
      try {
        storage?.removeItem(entry(fingerprint))
      } catch {
        // Nothing to do: the record is unreadable anyway.
      }
    },
  }
}
