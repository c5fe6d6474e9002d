// A Vite + React app on its own origin: the caller's upload rules before a file is picked (the
// file input's `accept`, and files they refuse failing before any request), a batch uploaded with
// the hooks and its outcomes awaited, and the same with <UploadButton> and <UploadDropzone>.
//
// Where waybill is, and the credential, come from the page's fragment, which is never sent to a
// server: #waybill=http://127.0.0.1:8787&key=<API key>&origin=demo&prefix=app/. A key in a
// browser is public: in production, give the page a short-lived JWT from your backend instead.

import { StrictMode, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { createClient, type UploadResult } from 'waybill-client'
import { UploadButton, UploadDropzone, useUploadRules, useUploads } from 'waybill-client/react'

const settings = new URLSearchParams(location.hash.slice(1))
const ORIGIN = settings.get('origin') ?? 'demo'
const PREFIX = settings.get('prefix') ?? 'app/'

const waybill = createClient({
  baseUrl: settings.get('waybill') ?? 'http://127.0.0.1:8787',
  auth: () => settings.get('key') ?? undefined,
})

/** A new key under the app's prefix for a file: its name, made unique. */
const keyOf = (file: File) => `${PREFIX}${crypto.randomUUID()}-${file.name}`

/** One line per file of a batch: where it was stored, or why not. */
function summary(files: readonly File[], outcomes: PromiseSettledResult<UploadResult>[]) {
  return outcomes.map((outcome, i) =>
    outcome.status === 'fulfilled'
      ? `${files[i]?.name ?? '?'}: stored at ${outcome.value.key}`
      : `${files[i]?.name ?? '?'}: ${(outcome.reason as Error).message}`,
  )
}

function WithHooks({ rules }: { rules: ReturnType<typeof useUploadRules>['rules'] }) {
  const queue = useUploads(waybill, { origin: ORIGIN, keyOf, rules })
  const [outcome, setOutcome] = useState<string[]>()
  return (
    <section id="hooks">
      <h2>With the hooks</h2>
      <input
        type="file"
        multiple
        accept={queue.inputProps.accept}
        onChange={async (event) => {
          const files = [...(event.target.files ?? [])]
          event.target.value = ''
          // Every file's outcome, once the batch has settled.
          setOutcome(summary(files, await queue.add(files)))
        }}
      />
      <p className="busy">{queue.isUploading ? 'uploading' : 'idle'}</p>
      <ul>
        {queue.items.map((item) => (
          <li key={item.id} data-name={item.name} data-state={item.state}>
            {item.name} <progress value={item.progress.percentage} max={100} />{' '}
            {item.progress.percentage}%{' '}
            {item.error && <span role="alert">{item.error.message}</span>}
          </li>
        ))}
      </ul>
      {outcome && (
        <output>
          {outcome.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </output>
      )}
    </section>
  )
}

function WithComponents({ rules }: { rules: ReturnType<typeof useUploadRules>['rules'] }) {
  const [stored, setStored] = useState<string[]>([])
  const onComplete = (outcomes: PromiseSettledResult<UploadResult>[]) =>
    setStored((keys) => [
      ...keys,
      ...outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.key] : [])),
    ])
  return (
    <section id="components">
      <h2>With the components</h2>
      <UploadButton
        client={waybill}
        origin={ORIGIN}
        rules={rules}
        keyOf={keyOf}
        onComplete={onComplete}
      >
        Upload files
      </UploadButton>
      <UploadDropzone
        client={waybill}
        origin={ORIGIN}
        rules={rules}
        keyOf={keyOf}
        onComplete={onComplete}
        className="dropzone"
      >
        Drop files here, or press to choose
      </UploadDropzone>
      <ul className="stored">
        {stored.map((key) => (
          <li key={key}>{key}</li>
        ))}
      </ul>
    </section>
  )
}

function App() {
  const { rules, accept, error } = useUploadRules(waybill, ORIGIN)
  return (
    <main>
      <h1>Uploads with waybill-client/react</h1>
      <p id="rules" data-accept={accept}>
        {error
          ? error.message
          : accept === undefined
            ? 'Loading the upload rules…'
            : `Accepted: ${accept || 'any type'}`}
      </p>
      <WithHooks rules={rules} />
      <WithComponents rules={rules} />
    </main>
  )
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
