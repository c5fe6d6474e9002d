// waybill-client/react: React hooks over a client's uploads and signed listings, and two
// unstyled, accessible components. They only call the client's methods and waybill-client/store
// (no code of the core is bundled twice): `useUploads` holds an upload store, as any framework
// can (useSyncExternalStore).

import {
  createElement as h,
  Fragment,
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type KeyboardEvent,
  type ReactNode,
} from 'react'
import type { ListOptions, WaybillClient } from './client.ts'
import { waybillError, type WaybillError } from './errors.ts'
import {
  createUploadStore,
  progressOf,
  uploadRules,
  type Progress,
  type RuleTarget,
  type UploadRules,
  type UploadSnapshot,
  type UploadStoreOptions,
} from './store.ts'
import type { UploadState, UploadTask } from './task.ts'
import type { ListedObject, ListPage } from './types.ts'
import type { UploadOptions, UploadResult } from './upload-common.ts'

/** What `useUpload` answers: the upload's state, and what can be done to it (stable functions). */
export interface UploadHandle {
  /** `idle` until `start()`; then the task's state. */
  state: UploadState | 'idle'
  progress: Progress | undefined
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
 * <progress value={upload.progress?.percentage} max={100} />
 * {upload.state === 'uploading' && <button onClick={upload.pause}>Pause</button>}
 * {upload.error && <p role="alert">{upload.error.message}</p>}
 */
export function useUpload(client: WaybillClient, options: UploadOptions): UploadHandle {
  const [task, setTask] = useState<UploadTask>()
  const status = useSyncExternalStore(
    useCallback((changed: () => void) => task?.subscribe(changed) ?? (() => {}), [task]),
    () => task?.status,
    () => task?.status,
  )
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
    progress: status && progressOf(status),
    result: status?.result,
    error: waybillError(status?.error),
    start,
    pause: useCallback(() => task?.pause(), [task]),
    resume: useCallback(() => task?.resume(), [task]),
    cancel: useCallback(async () => task?.cancel(), [task]),
  }
}

/** Options of `useUploads` (and the components): the store's, and a callback per batch. */
export interface UploadQueueOptions extends UploadStoreOptions {
  /** Each file's outcome, in order, once the files added together have all settled. */
  onComplete?: ((outcomes: PromiseSettledResult<UploadResult>[]) => void) | undefined
}

/** What `useUploads` answers: the queue, and the props that add files to it. */
export interface UploadQueue extends UploadSnapshot {
  /** Uploads these files, each on its own; resolves to each one's outcome once all have settled. */
  add: (files: Iterable<File> | ArrayLike<File>) => Promise<PromiseSettledResult<UploadResult>[]>
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
  /** Spread on a file input: `<input {...queue.inputProps} />` (with the rules' `accept`). */
  inputProps: {
    type: 'file'
    multiple: true
    accept: string | undefined
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
 * `add()` (which resolves to their outcomes), a drop zone or a file input. Up to `concurrency` (4)
 * upload at once. With `rules` (see `useUploadRules`), a file they refuse fails at once and
 * nothing is sent for it.
 *
 * @example
 * const queue = useUploads(waybill, { origin: 'photos', keyOf: (file) => `uploads/${file.name}` })
 * <div {...queue.dropProps} className={queue.dragging ? 'over' : ''}>Drop files here</div>
 * <input {...queue.inputProps} />
 * {queue.isUploading && <p>Uploading…</p>}
 * {queue.items.map((item) => (
 *   <li key={item.id}>{item.name} {item.state} <progress value={item.progress.percentage} max={100} /></li>
 * ))}
 */
export function useUploads(client: WaybillClient, options: UploadQueueOptions): UploadQueue {
  const { onComplete, ...storeOptions } = options
  const store = useMemo(() => createUploadStore(client, storeOptions), [client])
  store.setOptions(storeOptions)
  const latest = useRef(onComplete)
  latest.current = onComplete
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot)
  const [dragging, setDragging] = useState(false)
  const add = useCallback(
    (files: Iterable<File> | ArrayLike<File>) => {
      const done = store.add(files)
      void done.then((outcomes) => latest.current?.(outcomes))
      return done
    },
    [store],
  )
  const drop = (event: DragLike, over: boolean) => {
    event.preventDefault()
    setDragging(over)
    return event.dataTransfer
  }
  return {
    ...snapshot,
    add,
    clear: store.clear,
    dragging,
    dropProps: {
      onDragOver: (event) => {
        const transfer = drop(event, true)
        if (transfer) transfer.dropEffect = 'copy'
      },
      onDragLeave: () => setDragging(false),
      onDrop: (event) => void add(drop(event, false)?.files ?? []),
    },
    inputProps: {
      type: 'file',
      multiple: true,
      accept: options.rules?.accept || undefined,
      onChange: ({ target }) => {
        void add(target.files ?? [])
        // The same files may be chosen again.
        target.value = ''
      },
    },
  }
}

/** What `useUploadRules` answers: the caller's rules, once fetched. */
export interface UploadRulesHandle {
  /** Undefined until they arrive; give them to `useUploads` (`rules`) to check files first. */
  rules: UploadRules | undefined
  /** For `<input accept>`: the types the rules name (`''`: any); undefined until they arrive. */
  accept: string | undefined
  /** Why waybill would refuse `file`, or undefined (also until the rules arrive). Sends nothing. */
  check: (file: Blob, target?: RuleTarget) => WaybillError | undefined
  /** Why they could not be fetched. */
  error: WaybillError | undefined
}

/**
 * `GET /v1/uploads/rules`, for a page to know what may be uploaded before a file is picked: an
 * `accept` for its file input, and a check that refuses a file before any request.
 *
 * @example
 * const { rules, accept } = useUploadRules(waybill, 'photos')
 * const queue = useUploads(waybill, { origin: 'photos', rules })
 * <input {...queue.inputProps} /> // accept={accept}; a refused file fails at once, sending nothing
 */
export function useUploadRules(client: WaybillClient, origin: string): UploadRulesHandle {
  const [answer, setAnswer] = useState<{ rules?: UploadRules; error?: WaybillError }>({})
  useEffect(() => {
    const run = new AbortController()
    uploadRules(client, origin, { signal: run.signal }).then(
      (rules) => setAnswer({ rules }),
      (error: unknown) => run.signal.aborted || setAnswer({ error: waybillError(error) }),
    )
    return () => run.abort()
  }, [client, origin])
  const { rules } = answer
  return {
    rules,
    accept: rules?.accept,
    check: (file, target) => rules?.check(file, target),
    error: answer.error,
  }
}

/** Props of `UploadButton` and `UploadDropzone`: `useUploads`' options, and the client. */
export interface UploadComponentProps extends UploadQueueOptions {
  client: WaybillClient
  /** The control's label. */
  children?: ReactNode
  className?: string | undefined
}

/** What a component's live region says: the share sent, then how it ended (each refusal). */
function statusOf({ items, isUploading }: UploadQueue): string {
  if (isUploading) {
    let loaded = 0
    let total = 0
    for (const { progress } of items) {
      loaded += progress.loaded
      total += progress.total
    }
    // In steps of ten: a screen reader reads each change.
    return `Uploading ${items.length} files: ${total ? Math.floor((loaded * 10) / total) * 10 : 0}%`
  }
  const failed = items.filter((item) => item.error)
  return items.length === 0
    ? ''
    : [
        `${items.filter((item) => item.state === 'done').length} of ${items.length} uploaded`,
        ...failed.map((item) => `${item.name}: ${item.error!.message}`),
      ].join('. ')
}

/** A component's parts: its queue (a new pick forgets the last one's), picker and live region. */
function useUploadControl({ client, children, className, ...options }: UploadComponentProps) {
  const queue = useUploads(client, options)
  const input = useRef<HTMLInputElement>(null)
  const status = useId()
  const pick = () => {
    queue.clear()
    input.current?.click()
  }
  return {
    queue,
    pick,
    control: { className, 'aria-describedby': status, onClick: pick },
    label: children,
    parts: [
      h('input', { ...queue.inputProps, key: 'i', ref: input, hidden: true, tabIndex: -1 }),
      h('span', { key: 's', id: status, role: 'status', 'aria-live': 'polite' }, statusOf(queue)),
    ],
  }
}

/**
 * A button that picks files and uploads them, unstyled: a native `<button>` (keyboard as any
 * button), and a live region (`role="status"`) that tells the progress and then each outcome.
 *
 * @example
 * const { rules } = useUploadRules(waybill, 'photos')
 * <UploadButton client={waybill} origin="photos" rules={rules} onComplete={(outcomes) => refresh()}>
 *   Upload photos
 * </UploadButton>
 */
export function UploadButton(props: UploadComponentProps) {
  const { control, label, parts } = useUploadControl(props)
  return h(
    Fragment,
    null,
    h('button', { ...control, type: 'button' }, label ?? 'Upload files'),
    ...parts,
  )
}

/**
 * A drop zone that uploads the files dropped on it, or picked (click, Enter or Space: it is a
 * focusable `role="button"`), unstyled: `data-dragging` is set while files are over it, and a
 * live region (`role="status"`) tells the progress and then each outcome.
 *
 * @example
 * <UploadDropzone client={waybill} origin="photos" keyOf={(file) => `inbox/${file.name}`}>
 *   Drop files here, or press to choose
 * </UploadDropzone>
 */
export function UploadDropzone(props: UploadComponentProps) {
  const { queue, pick, control, label, parts } = useUploadControl(props)
  return h(
    Fragment,
    null,
    h(
      'div',
      {
        ...control,
        ...queue.dropProps,
        role: 'button',
        tabIndex: 0,
        'data-dragging': queue.dragging || undefined,
        onDrop: (event: DragLike) => {
          queue.clear()
          queue.dropProps.onDrop(event)
        },
        onKeyDown: (event: KeyboardEvent) => {
          if (event.key !== 'Enter' && event.key !== ' ') return
          event.preventDefault()
          pick()
        },
      },
      label ?? 'Drop files here, or choose them',
    ),
    ...parts,
  )
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
