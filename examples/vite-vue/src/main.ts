// A Vite + Vue app on its own origin, on waybill-client/store: the caller's upload rules before a
// file is picked (the file input's `accept`; a file they refuse fails before any request), a batch
// uploaded with per-file progress, and its outcomes awaited. Render functions (h), so the app needs
// no Vue plugin; a single-file component uses the store the same way.
//
// Where waybill is, and the credential, come from the page's fragment, which is never sent to a
// server: #waybill=http://127.0.0.1:8787&key=<API key>&origin=demo&prefix=app/.

import { createApp, defineComponent, h, ref, shallowRef } from 'vue'
import { createClient } from 'waybill-client'
import { createUploadStore, uploadRules, type UploadRules } from 'waybill-client/store'
import { useUploadStore } from './use-upload-store'

const settings = new URLSearchParams(location.hash.slice(1))
const ORIGIN = settings.get('origin') ?? 'demo'
const PREFIX = settings.get('prefix') ?? 'app/'

const waybill = createClient({
  baseUrl: settings.get('waybill') ?? 'http://127.0.0.1:8787',
  auth: () => settings.get('key') ?? undefined,
})

/** Where each file goes: a new key under the app's prefix, its name made unique. */
const options = {
  origin: ORIGIN,
  keyOf: (file: File) => `${PREFIX}${crypto.randomUUID()}-${file.name}`,
}

const Uploads = defineComponent(() => {
  const store = createUploadStore(waybill, options)
  const queue = useUploadStore(store)
  const rules = shallowRef<UploadRules>()
  const outcome = ref<string[]>()
  uploadRules(waybill, ORIGIN).then(
    (answer) => {
      rules.value = answer
      // Files the rules refuse fail at once, and nothing is sent for them.
      store.setOptions({ ...options, rules: answer })
    },
    (error: Error) => (outcome.value = [error.message]),
  )
  const upload = async (event: Event) => {
    const input = event.target as HTMLInputElement
    const files = [...(input.files ?? [])]
    input.value = ''
    const outcomes = await store.add(files)
    outcome.value = outcomes.map((settled, i) =>
      settled.status === 'fulfilled'
        ? `${files[i]?.name}: stored at ${settled.value.key}`
        : `${files[i]?.name}: ${(settled.reason as Error).message}`,
    )
  }
  return () =>
    h('main', [
      h('h1', 'Uploads with waybill-client in Vue'),
      h('input', {
        type: 'file',
        multiple: true,
        accept: rules.value?.accept,
        'data-ready': rules.value !== undefined,
        onChange: upload,
      }),
      h('p', { class: 'busy' }, queue.value.isUploading ? 'uploading' : 'idle'),
      h(
        'ul',
        queue.value.items.map((item) =>
          h('li', { key: item.id, 'data-name': item.name, 'data-state': item.state }, [
            `${item.name} `,
            h('progress', { value: item.progress.percentage, max: 100 }),
            ` ${item.progress.percentage}%`,
            item.error && h('span', { role: 'alert' }, item.error.message),
          ]),
        ),
      ),
      outcome.value &&
        h(
          'output',
          outcome.value.map((line) => h('p', line)),
        ),
    ])
})

createApp(Uploads).mount('#app')
