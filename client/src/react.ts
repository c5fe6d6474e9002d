// waybill-client/react: React hooks over a client's upload tasks and signed listings. They only
// call the client's methods (no code of the core is bundled twice), and keep React's state in
// step with what the tasks report.

import { useCallback, useEffect, useRef, useState } from 'react'
import type { ListOptions, WaybillClient } from './client.ts'
import type { WaybillError } from './errors.ts'
import type { UploadState, UploadStatus, UploadTask } from './task.ts'
import type { ListedObject, ListPage } from './types.ts'
import type { UploadOptions, UploadProgress, UploadResult } from './upload-common.ts'
import type { UploadManyOptions } from './upload.ts'

/** A task's error when it is a WaybillError (a cancel's abort reason is not). */
const waybillError = (error: unknown) =>
  (error as Error | undefined)?.name === 'WaybillError' ? (error as WaybillError) : undefined

/** What `useUpload` answers: the upload's state, and what can be done to it (stable functions). */
export interface UploadHandle {
  /** `idle` until `start()`; then the task's state. */
  state: UploadState | 'idle'
  progress: UploadProgress | undefined
  /** The stored object, once `done`. */
  result: UploadResult | undefined
  /** Why it failed, as waybill (or the client) explained it. */
  error: WaybillError | undefined
  /** Uploads `file` with the hook's options and these; answers what the task's `done` does. */
  start: (file: Blob, options?: Partial<UploadOptions>) => Promise<UploadResult>
  pause: () => void
  resume: () => void
  /** Stops for good (a multipart upload is aborted). */
  cancel: () => Promise<void>
}

/**
 * One upload at a time, with its progress, pause, resume and cancel. Starting another replaces
 * the one shown (which goes on unless cancelled).
 *
 * @example
 * const upload = useUpload(waybill, { origin: 'photos' })
 * <input type="file" onChange={(e) => upload.start(e.target.files![0]!).catch(() => {})} />
 * <progress value={upload.progress?.loaded} max={upload.progress?.total} />
 * {upload.state === 'uploading' && <button onClick={upload.pause}>Pause</button>}
 * {upload.error && <p role="alert">{upload.error.message}</p>}
 */
export function useUpload(client: WaybillClient, options: UploadOptions): UploadHandle {
  const [task, setTask] = useState<UploadTask>()
  const status = useStatus(task)
  const latest = useRef(options)
  latest.current = options
  const start = useCallback(
    (file: Blob, more?: Partial<UploadOptions>) => {
      const started = client.startUpload(file, { ...latest.current, ...more })
      setTask(started)
      return started.done
    },
    [client],
  )
  return {
    state: status?.state ?? 'idle',
    progress: status?.progress,
    result: status?.result,
    error: waybillError(status?.error),
    start,
    pause: useCallback(() => task?.pause(), [task]),
    resume: useCallback(() => task?.resume(), [task]),
    cancel: useCallback(async () => task?.cancel(), [task]),
  }
}

/** A task's status, kept in React's state while the component shows it. */
function useStatus(task: UploadTask | undefined): UploadStatus | undefined {
  const [status, setStatus] = useState(task?.status)
  useEffect(() => {
    setStatus(task?.status)
    return task?.subscribe(setStatus)
  }, [task])
  return status
}

/** One file of `useUploads`' queue. */
export interface QueuedUpload {
  /** Stable, for React's `key`. */
  id: number
  file: Blob
  /** The file's name, when it has one. */
  name: string | undefined
  state: UploadState
  progress: UploadProgress
  result: UploadResult | undefined
  error: WaybillError | undefined
  task: UploadTask
}

/** What `useUploads` answers: the queue, and the props that add files to it. */
export interface UploadQueue {
  items: readonly QueuedUpload[]
  /** Uploads these files, each on its own (a refusal of one does not stop the others). */
  add: (files: Iterable<Blob> | ArrayLike<Blob>) => void
  /** Forgets the files that are done, failed or cancelled. */
  clear: () => void
  /** True while files are dragged over the drop zone. */
  dragging: boolean
  /** Spread on a drop zone: `<div {...queue.dropProps}>`. */
  dropProps: {
    onDragOver: (event: DragLike) => void
    onDragLeave: () => void
    onDrop: (event: DragLike) => void
  }
  /** Spread on a file input: `<input {...queue.inputProps} />`. */
  inputProps: {
    type: 'file'
    multiple: true
    onChange: (event: { target: { files: FileList | null; value: string } }) => void
  }
}

/** The parts of a drag event the drop zone reads (React's DragEvent has them). */
export interface DragLike {
  preventDefault(): void
  dataTransfer: { files: FileList; dropEffect: string } | null
}

/**
 * A queue of uploads, each with its own progress, state, pause, resume and cancel; files come from
 * `add()`, a drop zone or a file input. Up to `concurrency` (4) upload at once.
 *
 * @example
 * const queue = useUploads(waybill, { origin: 'photos' })
 * <div {...queue.dropProps} className={queue.dragging ? 'over' : ''}>Drop files here</div>
 * <input {...queue.inputProps} />
 * {queue.items.map((item) => (
 *   <li key={item.id}>{item.name} {item.state} <progress value={item.progress.loaded} max={item.progress.total} /></li>
 * ))}
 */
export function useUploads(
  client: WaybillClient,
  options: UploadManyOptions & {
    /** The key for a file; without it, the grant's `uploadKey` names it after the file's name. */
    keyOf?: ((file: Blob) => string) | undefined
  },
): UploadQueue {
  const [items, setItems] = useState<readonly QueuedUpload[]>([])
  const [dragging, setDragging] = useState(false)
  const latest = useRef(options)
  latest.current = options
  const next = useRef(0)

  const add = useCallback(
    (files: Iterable<Blob> | ArrayLike<Blob>) => {
      const list = Array.from(files)
      if (list.length === 0) return
      const { keyOf, ...rest } = latest.current
      const { tasks } = client.startUploads(
        list.map((file) => ({ file, key: keyOf?.(file) })),
        { ...rest, continueOnError: true },
      )
      const added = tasks.map((task, i): QueuedUpload => {
        const id = next.current++
        const item = (status: UploadStatus): QueuedUpload => ({
          id,
          file: list[i]!,
          name: (list[i] as Partial<File>).name,
          state: status.state,
          progress: status.progress,
          result: status.result,
          error: waybillError(status.error),
          task,
        })
        task.subscribe((status) =>
          setItems((all) => all.map((one) => (one.id === id ? item(status) : one))),
        )
        return item(task.status)
      })
      setItems((all) => [...all, ...added])
    },
    [client],
  )
  const drop = (event: DragLike, over: boolean) => {
    event.preventDefault()
    setDragging(over)
    return event.dataTransfer
  }
  return {
    items,
    add,
    clear: () =>
      setItems((all) => all.filter((item) => /^(queued|uploading|paused)$/.test(item.state))),
    dragging,
    dropProps: {
      onDragOver: (event) => {
        const transfer = drop(event, true)
        if (transfer) transfer.dropEffect = 'copy'
      },
      onDragLeave: () => setDragging(false),
      onDrop: (event) => add(drop(event, false)?.files ?? []),
    },
    inputProps: {
      type: 'file',
      multiple: true,
      onChange: ({ target }) => {
        add(target.files ?? [])
        // The same files may be chosen again.
        target.value = ''
      },
    },
  }
}

/** What `useSignedList` answers: the objects of the pages loaded so far, with fresh URLs. */
export interface SignedList {
  items: readonly ListedObject[]
  /** With `delimiter`: the "folders" of the pages loaded. */
  prefixes: readonly string[]
  loading: boolean
  error: WaybillError | undefined
  /** More pages to load. */
  more: boolean
  loadMore: () => void
  /** Lists the pages loaded so far again (new objects, fresh URLs). */
  refresh: () => void
}

/**
 * A signed listing a page at a time, listed again before its URLs expire (a minute before, on
 * waybill's clock) and when `refresh()` is called, so its URLs always work.
 *
 * @example
 * const gallery = useSignedList(waybill, 'photos', { prefix: 'gallery/', limit: 50 })
 * {gallery.items.map((o) => o.url && <img key={o.key} src={o.url} alt={o.key} />)}
 * {gallery.more && <button onClick={gallery.loadMore}>More</button>}
 */
export function useSignedList(
  client: WaybillClient,
  origin: string,
  options: Omit<ListOptions, 'cursor' | 'signal'> = {},
): SignedList {
  const [pages, setPages] = useState<readonly ListPage[]>([])
  const [loading, setLoading] = useState(true)
  const [error, setError] = useState<WaybillError>()
  const [round, setRound] = useState(0)
  // What is listed: a change lists it from the start.
  const of = JSON.stringify([origin, options.prefix, options.delimiter, options.limit])
  const latest = useRef({ options, pages, of, run: new AbortController() })
  latest.current.options = options

  /** `count` pages from `cursor` (the start when undefined), or undefined when superseded. */
  const list = useCallback(
    async (count: number, cursor?: string) => {
      latest.current.run.abort()
      const run = (latest.current.run = new AbortController())
      const loaded: ListPage[] = []
      setLoading(true)
      try {
        for await (const page of client.listPages(origin, {
          ...latest.current.options,
          cursor,
          signal: run.signal,
        })) {
          if (loaded.push(page) >= count) break
        }
        setError(undefined)
        return loaded
      } catch (failure) {
        if (!run.signal.aborted) setError(waybillError(failure))
      } finally {
        if (!run.signal.aborted) setLoading(false)
      }
    },
    // `of` stands for the options that change what is listed.
    [client, of],
  )

  // From the start: as many pages as are shown (a refresh), or the first (another listing).
  useEffect(() => {
    const shown = latest.current.of === of ? latest.current.pages.length : 0
    latest.current.of = of
    void list(Math.max(1, shown)).then((loaded) => loaded && setPages(loaded))
  }, [list, of, round])
  latest.current.pages = pages
  useEffect(() => () => latest.current.run.abort(), [])

  // Listed again a minute before the first of its URLs expires.
  const expiresAt = pages.flatMap((page) => page.expiresAt ?? []).sort()[0]
  useEffect(() => {
    if (expiresAt === undefined) return
    const timer = setTimeout(() => setRound((n) => n + 1), client.renewAt(expiresAt) - Date.now())
    return () => clearTimeout(timer)
  }, [client, expiresAt])

  const cursor = pages.at(-1)?.cursor ?? undefined
  return {
    items: pages.flatMap((page) => page.items),
    prefixes: pages.flatMap((page) => page.prefixes),
    loading,
    error,
    more: cursor !== undefined,
    loadMore: useCallback(() => {
      if (cursor !== undefined) {
        void list(1, cursor).then((loaded) => loaded && setPages((all) => [...all, ...loaded]))
      }
    }, [list, cursor]),
    refresh: useCallback(() => setRound((n) => n + 1), []),
  }
}
