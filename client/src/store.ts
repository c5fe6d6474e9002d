// waybill-client/store: the upload engine as a store any framework can hold (`subscribe` and
// `getSnapshot`, as React's useSyncExternalStore and Vue's shallowRef take it), and the caller's
// upload rules, fetched before a file is picked. waybill-client/react's hooks are built on it.
// It only calls the client's methods: the engine is the client's, not a copy.

import type { WaybillClient } from './client.ts'
import { contextOf } from './context.ts'
import { waybillError, WaybillError } from './errors.ts'
import type { CallOptions } from './http.ts'
import type { UploadState, UploadStatus, UploadTask } from './task.ts'
import type { UploadRule, UploadRulesAnswer } from './types.ts'
import type { UploadOptions, UploadProgress, UploadResult } from './upload-common.ts'
import type { UploadManyOptions } from './upload.ts'

/** How far an upload has come, with the share sent in whole percent (100 once done). */
export interface Progress extends UploadProgress {
  percentage: number
}

/** A status's progress with its percentage. */
export const progressOf = ({ progress, state }: UploadStatus): Progress => ({
  ...progress,
  percentage: progress.total
    ? Math.floor((progress.loaded * 100) / progress.total)
    : state === 'done'
      ? 100
      : 0,
})

/** The caller's upload rules on an origin, and what a page does with them before any request. */
export interface UploadRules extends UploadRulesAnswer {
  /**
   * For a file input's `accept`: the types the rules name (`image/*,text/plain`), or `''` when one
   * of them takes any type.
   */
  accept: string
  /**
   * Why waybill would refuse to upload `file` (a WaybillError with code `refused`, naming the
   * field as waybill would), or undefined when a rule admits it. Sends nothing.
   */
  check: (file: Blob, target?: RuleTarget) => WaybillError | undefined
}

/** What decides which rule an upload falls under, as `upload()` takes it. */
export type RuleTarget = Pick<UploadOptions, 'key' | 'contentType' | 'overwrite'>

/** True when a rule's prefix covers `key`, on whole path segments (as the document says). */
const covers = (prefix: string, key: string) =>
  !prefix ||
  (prefix.endsWith('/') ? key.startsWith(prefix) : key === prefix || key.startsWith(`${prefix}/`))

/**
 * The rules an answer of `GET /v1/uploads/rules` gives, with `accept` and `check`.
 *
 * @example
 * const rules = withChecks(answer)
 * input.accept = rules.accept
 */
export function withChecks(answer: UploadRulesAnswer): UploadRules {
  const { rules } = answer
  const patterns = rules.map((rule) => rule.contentTypes)
  return {
    ...answer,
    accept: patterns.includes(null) ? '' : [...new Set(patterns.flat())].join(),
    check(file, target = {}) {
      const type = (target.contentType ?? (file.type || 'application/octet-stream'))
        .split(';')[0]!
        .trim()
        .toLowerCase()
      const { key } = target
      // A file sent by name goes where the first rule with an uploadKey puts it: under the
      // template's text before its first placeholder.
      const named = rules.find((rule) => rule.uploadKey !== null)?.uploadKey?.split('{')[0]
      const steps: [admits: (rule: UploadRule) => boolean, path: string, why: () => string][] = [
        [
          (rule) =>
            key !== undefined
              ? covers(rule.prefix, key)
              : named !== undefined && covers(rule.prefix, `${named}x`),
          key === undefined ? 'filename' : 'key',
          () =>
            key !== undefined
              ? `"${key}" is not covered by a grant to write`
              : named === undefined
                ? 'no grant of this caller chooses upload keys on this origin (uploadKey); send "key"'
                : 'is not covered by a grant to write',
        ],
        [
          (rule) => rule.admittedTypes?.includes(type) ?? true,
          'contentType',
          () =>
            `must be one of ${[...new Set(left.flatMap((rule) => rule.contentTypes!))].join(', ')} for this caller`,
        ],
        [
          (rule) => file.size <= (rule.maxContentLength ?? Infinity),
          'contentLength',
          () =>
            `must be at most ${Math.max(...left.map((rule) => rule.maxContentLength!))} bytes for this caller`,
        ],
        [
          (rule) => !target.overwrite || rule.overwrite,
          'overwrite',
          () =>
            'cannot be true for this caller: no grant covering the key allows replacing an existing object (overwrite)',
        ],
      ]
      // In the order waybill judges them, each among the rules that passed the ones before.
      let left = rules
      for (const [admits, path, why] of steps) {
        const passed = left.filter(admits)
        if (passed.length === 0) {
          const message = why()
          return new WaybillError('refused', `${path}: ${message}`, { errors: [{ path, message }] })
        }
        left = passed
      }
      return undefined
    },
  }
}

/**
 * `GET /v1/uploads/rules`: what the caller may upload on `origin`, with `accept` for a file input
 * and `check`, which refuses a file before any request.
 *
 * @example
 * import { uploadRules } from 'waybill-client/store'
 * const rules = await uploadRules(waybill, 'photos')
 * input.accept = rules.accept
 * input.onchange = () => {
 *   const refused = rules.check(input.files[0])
 *   if (refused) alert(refused.message) // nothing was sent
 * }
 */
export async function uploadRules(
  client: WaybillClient,
  origin: string,
  options?: CallOptions,
): Promise<UploadRules> {
  return withChecks(
    await contextOf(client).http.json<UploadRulesAnswer>(
      { method: 'GET', path: '/v1/uploads/rules', query: { origin } },
      options,
    ),
  )
}

/** One file of a store's queue. */
export interface QueuedUpload {
  /** Stable, for a framework's list key. */
  id: number
  file: File
  name: string
  state: UploadState
  progress: Progress
  /** The stored object, once `done`. */
  result: UploadResult | undefined
  /** Why it failed: waybill's refusal, the rules' (nothing was sent), or the transfer's. */
  error: WaybillError | undefined
  /** Its pause, resume and cancel. */
  task: UploadTask
}

/** What a store holds: a new object on every change (compare by identity). */
export interface UploadSnapshot {
  items: readonly QueuedUpload[]
  /** True while a file waits for its turn or is being sent. */
  isUploading: boolean
}

/** Options of `createUploadStore`: those of `uploadMany()`, and how each file is named. */
export interface UploadStoreOptions extends UploadManyOptions {
  /** The key for a file; without it, the grant's `uploadKey` names it after the file's name. */
  keyOf?: ((file: File) => string) | undefined
  /** Rules to check each file against before any request (see `uploadRules`). */
  rules?: UploadRules | undefined
}

/**
 * A queue of uploads, as a store: files in, each file's state and progress out. Its functions
 * need no `this`: hand them on as they are.
 */
export interface UploadStore {
  /** Calls `listener` after each change; answers a function that stops it. */
  subscribe: (listener: () => void) => () => void
  getSnapshot: () => UploadSnapshot
  /**
   * Uploads these files, each on its own (a refusal of one does not stop the others); resolves
   * to each one's outcome, in order, once all have settled. A file the rules refuse fails at
   * once, and nothing is sent for it.
   */
  add: (files: Iterable<File> | ArrayLike<File>) => Promise<PromiseSettledResult<UploadResult>[]>
  /** Forgets the files that are done, failed or cancelled. */
  clear: () => void
  /** The options for files added from now on (a binding passes its latest props). */
  setOptions: (options: UploadStoreOptions) => void
}

/** A task that failed before it started: what the rules refused. */
function refusedTask(error: WaybillError, total: number): UploadTask {
  const done = Promise.reject(error)
  done.catch(() => {})
  const status: UploadStatus = { state: 'failed', progress: { loaded: 0, total }, error }
  const nothing = () => {}
  return {
    done,
    status,
    subscribe: () => nothing,
    pause: nothing,
    resume: nothing,
    cancel: async () => {},
  }
}

/**
 * A queue of uploads as a store any framework can hold: `subscribe` and `getSnapshot`, as
 * React's `useSyncExternalStore` takes them (waybill-client/react's `useUploads` does). Up to
 * `concurrency` (4) files upload at once.
 *
 * @example
 * import { createUploadStore } from 'waybill-client/store'
 * const store = createUploadStore(waybill, { origin: 'photos' })
 * store.subscribe(() => render(store.getSnapshot().items))
 * const outcomes = await store.add(input.files)
 */
export function createUploadStore(client: WaybillClient, options: UploadStoreOptions): UploadStore {
  const listeners = new Set<() => void>()
  let snapshot: UploadSnapshot = { items: [], isUploading: false }
  let next = 0
  const set = (items: readonly QueuedUpload[]) => {
    snapshot = {
      items,
      isUploading: items.some((item) => item.state === 'queued' || item.state === 'uploading'),
    }
    for (const listener of listeners) listener()
  }
  const itemOf = (id: number, file: File, task: UploadTask): QueuedUpload => {
    const { status } = task
    return {
      id,
      file,
      name: file.name,
      state: status.state,
      progress: progressOf(status),
      result: status.result,
      error: waybillError(status.error),
      task,
    }
  }
  return {
    subscribe(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    getSnapshot: () => snapshot,
    add(files) {
      const { keyOf, rules, ...rest } = options
      const entries = Array.from(files, (file) => {
        const key = keyOf?.(file)
        return { file, key, refused: rules?.check(file, { key, overwrite: rest.overwrite }) }
      })
      const sent = entries.filter((entry) => !entry.refused)
      const { tasks } = client.startUploads(
        sent.map(({ file, key }) => ({ file, key })),
        { ...rest, continueOnError: true },
      )
      const added = entries.map((entry) => {
        const id = next++
        const { file, refused } = entry
        const task = refused ? refusedTask(refused, file.size) : tasks[sent.indexOf(entry)]!
        task.subscribe(() =>
          set(snapshot.items.map((item) => (item.id === id ? itemOf(id, file, task) : item))),
        )
        return itemOf(id, file, task)
      })
      set([...snapshot.items, ...added])
      return Promise.allSettled(added.map((item) => item.task.done))
    },
    clear: () =>
      set(snapshot.items.filter((item) => /^(queued|uploading|paused)$/.test(item.state))),
    setOptions(latest) {
      options = latest
    },
  }
}
