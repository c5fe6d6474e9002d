// The React test page: waybill-client/react's hooks in a real React 19 build (react and react-dom
// from npm), bundled by test/browser/react.test.ts and served on the Worker's own origin. Three
// components: one upload (useUpload), a queue with a drop zone and a file input (useUploads), and
// a gallery (useSignedList). The test drives them through the DOM.

import { createElement as h, type ReactNode } from 'react'
import { createRoot } from 'react-dom/client'
import { createClient, type WaybillClient } from '../../../client/src/index.ts'
import { useSignedList, useUpload, useUploads } from '../../../client/src/react.ts'

interface Settings {
  apiKey: string
  origin: string
  /** Keys under this prefix (else the grant's uploadKey chooses them). */
  keyPrefix?: string
  gallery?: { prefix: string; limit: number; expiresIn: number }
}

function One({ client, settings }: { client: WaybillClient; settings: Settings }) {
  const upload = useUpload(client, { origin: settings.origin, multipartThreshold: 16 * 2 ** 20 })
  return h(
    'section',
    { id: 'one' },
    h('input', {
      id: 'one-file',
      type: 'file',
      onChange: (event: { target: HTMLInputElement }) => {
        const file = event.target.files?.[0]
        const key = settings.keyPrefix && file ? `${settings.keyPrefix}${file.name}` : undefined
        if (file) upload.start(file, { key }).catch(() => {})
      },
    }),
    h('output', { id: 'one-state' }, upload.state),
    h('progress', {
      id: 'one-progress',
      value: upload.progress?.loaded ?? 0,
      max: upload.progress?.total ?? 1,
    }),
    h('output', { id: 'one-key' }, upload.result?.key ?? ''),
    h(
      'output',
      { id: 'one-error' },
      upload.error ? `${upload.error.code}: ${upload.error.message}` : '',
    ),
    h('button', { id: 'one-pause', onClick: upload.pause }, 'Pause'),
    h('button', { id: 'one-resume', onClick: upload.resume }, 'Resume'),
    h('button', { id: 'one-cancel', onClick: () => void upload.cancel() }, 'Cancel'),
  )
}

function Queue({ client, settings }: { client: WaybillClient; settings: Settings }) {
  const { keyPrefix } = settings
  const queue = useUploads(client, {
    origin: settings.origin,
    keyOf: keyPrefix === undefined ? undefined : (file) => `${keyPrefix}${file.name}`,
  })
  return h(
    'section',
    { id: 'queue' },
    h('div', { id: 'drop', ...queue.dropProps, 'data-dragging': String(queue.dragging) }, 'Drop'),
    h('input', { id: 'queue-files', ...queue.inputProps }),
    h('button', { id: 'queue-clear', onClick: queue.clear }, 'Clear'),
    h(
      'ul',
      null,
      queue.items.map((item) =>
        h(
          'li',
          {
            key: item.id,
            'data-name': item.name,
            'data-state': item.state,
            'data-loaded': item.progress.loaded,
            'data-total': item.progress.total,
            'data-key': item.result?.key ?? '',
            'data-error': item.error?.message ?? '',
          },
          item.name,
        ),
      ),
    ),
  )
}

function Gallery({ client, settings }: { client: WaybillClient; settings: Settings }) {
  const gallery = useSignedList(client, settings.origin, settings.gallery)
  return h(
    'section',
    { id: 'gallery', 'data-loading': String(gallery.loading) },
    gallery.items.map((item) => h('a', { key: item.key, href: item.url, 'data-key': item.key })),
    gallery.more && h('button', { id: 'gallery-more', onClick: gallery.loadMore }, 'More'),
    h('output', { id: 'gallery-error' }, gallery.error?.message ?? ''),
  )
}

function mount(settings: Settings) {
  const client = createClient({ baseUrl: location.origin, auth: () => settings.apiKey })
  const root = document.createElement('div')
  document.body.append(root)
  const parts: ReactNode[] = [
    h(One, { key: 'one', client, settings }),
    h(Queue, { key: 'queue', client, settings }),
  ]
  if (settings.gallery) parts.push(h(Gallery, { key: 'gallery', client, settings }))
  createRoot(root).render(parts)
  return true
}

declare global {
  interface Window {
    reactTest: { mount: typeof mount; ready: boolean }
  }
}

window.reactTest = { mount, ready: true }
