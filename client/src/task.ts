// An upload as a task that can be paused, resumed and cancelled: a body run once per start or
// resume, which keeps what it has done (a multipart upload's plan and stored parts) between runs.

import type { Pool } from './pool.ts'
import { abortReason, anySignal, throwIfAborted } from './retry.ts'
import type { UploadProgress, UploadResult } from './upload-common.ts'

/**
 * `queued` (waiting for its turn, or for the URLs of its batch), `uploading`, `paused`, and how it
 * ended: `done`, `failed` or `cancelled`.
 */
export type UploadState = 'queued' | 'uploading' | 'paused' | 'done' | 'failed' | 'cancelled'

/** Where a task is: a new object on every change, so it can be compared by identity. */
export interface UploadStatus {
  readonly state: UploadState
  readonly progress: UploadProgress
  /** The stored object, once `done`. */
  readonly result?: UploadResult | undefined
  /** Why it `failed` (a WaybillError) or was `cancelled` (the abort reason). */
  readonly error?: unknown
}

/**
 * One upload under way: `done` settles with the stored object; `pause()` stops sending but keeps
 * what is stored (a multipart upload stays open in the bucket); `resume()` sends only what is
 * missing; `cancel()` stops for good and aborts a multipart upload.
 *
 * @example
 * const task = waybill.startUpload(file, { origin: 'photos', key: 'videos/talk.mp4' })
 * task.subscribe(({ state, progress }) => render(state, progress.loaded / progress.total))
 * pauseButton.onclick = () => task.pause()
 * resumeButton.onclick = () => task.resume()
 * cancelButton.onclick = () => task.cancel()
 * const stored = await task.done
 */
export interface UploadTask {
  /** The stored object; rejects with a WaybillError, or the abort reason once cancelled. */
  readonly done: Promise<UploadResult>
  readonly status: UploadStatus
  /** Calls `listener` on every change of state or progress; answers a function that stops it. */
  subscribe(listener: (status: UploadStatus) => void): () => void
  /** Stops sending (what is in flight is dropped); what the bucket holds is kept. */
  pause(): void
  /** Continues a paused upload where it stopped. */
  resume(): void
  /** Stops for good: a multipart upload is aborted and forgotten. Resolves once it is. */
  cancel(): Promise<void>
}

/** What a task runs. */
export interface TaskBody {
  /** Sends what is not stored yet; run again after each resume. */
  run(signal: AbortSignal, report: (progress: UploadProgress) => void): Promise<UploadResult>
  /** After a failure, or a cancel (`cancelled`): drops what cannot be resumed. Never rejects. */
  drop(cancelled: boolean): Promise<void>
}

export interface TaskOptions {
  /** Cancels the task when it aborts. */
  signal?: AbortSignal | undefined
  onProgress?: ((progress: UploadProgress) => void) | undefined
  /** Where each run waits for its turn. */
  pool?: Pool | undefined
}

const aborted = (message: string) => new DOMException(message, 'AbortError')

/** A task running `body`; `stop(reason)` fails it from outside (a batch's first failure). */
export function createTask(
  body: TaskBody,
  total: number,
  options: TaskOptions,
): UploadTask & { stop(reason: unknown): void } {
  const listeners = new Set<(status: UploadStatus) => void>()
  let status: UploadStatus = { state: 'queued', progress: { loaded: 0, total } }
  const set = (patch: Partial<UploadStatus>) => {
    status = { ...status, ...patch }
    for (const listener of listeners) listener(status)
  }
  const cancel = anySignal([options.signal])
  let run = anySignal([])
  let stopped: { reason: unknown } | undefined
  let wake = () => {}
  const pool = options.pool ?? ((job) => job())

  const done = (async () => {
    try {
      for (;;) {
        run = anySignal([cancel.signal])
        try {
          if (status.state === 'paused') await new Promise<void>((go) => (wake = go))
          throwIfAborted(cancel.signal)
          if (stopped) throw stopped.reason
          const result = await pool(() => {
            throwIfAborted(run.signal)
            set({ state: 'uploading' })
            return body.run(run.signal, (progress) => {
              set({ progress })
              options.onProgress?.(progress)
            })
          })
          set({ state: 'done', result })
          return result
        } catch (error) {
          if (!cancel.signal.aborted && !stopped && status.state === 'paused') continue
          await body.drop(cancel.signal.aborted)
          const reason = cancel.signal.aborted ? abortReason(cancel.signal) : error
          set({ state: cancel.signal.aborted ? 'cancelled' : 'failed', error: reason })
          throw reason
        } finally {
          run.dispose()
        }
      }
    } finally {
      cancel.dispose()
    }
  })()
  // Settled for anyone who only watches the status (or a batch): never an unhandled rejection.
  done.catch(() => {})

  const ended = () => ['done', 'failed', 'cancelled'].includes(status.state)
  return {
    done,
    get status() {
      return status
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    pause() {
      if (ended() || status.state === 'paused') return
      set({ state: 'paused' })
      run.abort(aborted('The upload was paused.'))
    },
    resume() {
      if (status.state !== 'paused') return
      set({ state: 'queued' })
      wake()
    },
    async cancel() {
      if (!ended()) cancel.abort(aborted('The upload was cancelled.'))
      wake()
      await done.catch(() => {})
    },
    stop(reason) {
      if (ended()) return
      stopped = { reason }
      run.abort(reason)
      wake()
    },
  }
}
