// An app of its own, on its own origin, using waybill-client: a gallery from a signed listing,
// a queue of uploads with per-file progress, one large upload that can be paused and resumed,
// Uppy's Dashboard, and download links.
//
// Where waybill is, and the credential, come from the page's fragment, which is never sent to a
// server: #waybill=http://127.0.0.1:8787&key=<API key>&origin=demo&prefix=app/. A key in a
// browser is public: in production, give the page a short-lived JWT from your backend instead
// (waybill's README, "Your app on another origin").

import AwsS3 from '@uppy/aws-s3'
import Uppy from '@uppy/core'
import '@uppy/core/css/style.min.css'
import Dashboard from '@uppy/dashboard'
import '@uppy/dashboard/css/style.min.css'
import { StrictMode, useEffect, useRef, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { createClient } from 'waybill-client'
import { useSignedList, useUpload, useUploads } from 'waybill-client/react'
import { waybillUppy } from 'waybill-client/uppy'
import './styles.css'

const settings = new URLSearchParams(location.hash.slice(1))
const ORIGIN = settings.get('origin') ?? 'demo'
const PREFIX = settings.get('prefix') ?? 'app/'

const waybill = createClient({
  baseUrl: settings.get('waybill') ?? 'http://127.0.0.1:8787',
  // Asked before each request: a JWT can be refreshed here.
  auth: () => settings.get('key') ?? undefined,
})

/** A new key under the app's prefix for a file: its name, made unique. */
const keyFor = (name: string | undefined) => `${PREFIX}${crypto.randomUUID()}-${name ?? 'file'}`

const IMAGE = /\.(png|jpe?g|gif|webp|avif)$/i

const percent = (loaded: number, total: number) =>
  total === 0 ? 100 : Math.round((loaded / total) * 100)

function Gallery({ version }: { version: number }) {
  const gallery = useSignedList(waybill, ORIGIN, { prefix: PREFIX, limit: 24 })
  const { refresh } = gallery
  // Listed again when an upload completes.
  useEffect(() => {
    if (version > 0) refresh()
  }, [version, refresh])
  return (
    <section id="gallery">
      <h2>Gallery</h2>
      {gallery.error && <p role="alert">{gallery.error.message}</p>}
      <ul>
        {gallery.items.map((object) => (
          <li key={object.key} data-key={object.key}>
            {object.url && IMAGE.test(object.key) ? (
              <img src={object.url} alt={object.key} loading="lazy" />
            ) : (
              <span>{object.key.slice(PREFIX.length)}</span>
            )}
          </li>
        ))}
      </ul>
      {gallery.more && <button onClick={gallery.loadMore}>More</button>}
    </section>
  )
}

/** A link anyone holding it may follow for a day, which downloads the object. */
function DownloadLink({ objectKey }: { objectKey: string }) {
  const [url, setUrl] = useState<string>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    waybill
      .links({ origin: ORIGIN, expiresIn: 86_400, items: [{ key: objectKey, download: true }] })
      .then(({ links }) => setUrl(links[0]?.url))
      .catch((failure: Error) => setError(failure.message))
  }, [objectKey])
  if (error) return <span role="alert">{error}</span>
  return url ? (
    <a className="download" href={url} download>
      Download
    </a>
  ) : null
}

function Queue({ onStored }: { onStored: () => void }) {
  const queue = useUploads(waybill, { origin: ORIGIN, keyOf: (file) => keyFor(file.name) })
  const stored = queue.items.filter((item) => item.state === 'done').length
  useEffect(() => {
    if (stored > 0) onStored()
  }, [stored, onStored])
  return (
    <section id="queue">
      <h2>Uploads</h2>
      <div {...queue.dropProps} className={queue.dragging ? 'drop over' : 'drop'}>
        Drop files here, or <input {...queue.inputProps} />
      </div>
      <ul>
        {queue.items.map((item) => (
          <li
            key={item.id}
            data-name={item.name}
            data-state={item.state}
            data-key={item.result?.key}
          >
            <span>{item.name}</span>
            <progress value={item.progress.loaded} max={item.progress.total} />
            <span className="state">
              {item.state} {percent(item.progress.loaded, item.progress.total)}%
            </span>
            {item.state === 'uploading' && <button onClick={item.task.pause}>Pause</button>}
            {item.state === 'paused' && <button onClick={item.task.resume}>Resume</button>}
            {item.error && <span role="alert">{item.error.message}</span>}
            {item.result && <DownloadLink objectKey={item.result.key} />}
          </li>
        ))}
      </ul>
      <button onClick={queue.clear}>Clear finished</button>
    </section>
  )
}

function LargeFile({ onStored }: { onStored: () => void }) {
  const upload = useUpload(waybill, { origin: ORIGIN })
  const { progress } = upload
  return (
    <section id="large" data-state={upload.state} data-key={upload.result?.key}>
      <h2>A large file</h2>
      <input
        type="file"
        onChange={(event) => {
          const file = event.target.files?.[0]
          if (file) upload.start(file, { key: keyFor(file.name) }).then(onStored, () => {})
        }}
      />
      <progress value={progress?.loaded ?? 0} max={progress?.total ?? 1} />
      <span className="state">
        {upload.state}
        {progress?.partCount !== undefined &&
          ` (${progress.partsDone} of ${progress.partCount} parts)`}
      </span>
      <button onClick={upload.pause} disabled={upload.state !== 'uploading'}>
        Pause
      </button>
      <button onClick={upload.resume} disabled={upload.state !== 'paused'}>
        Resume
      </button>
      <button onClick={() => void upload.cancel()}>Cancel</button>
      {upload.error && <p role="alert">{upload.error.message}</p>}
    </section>
  )
}

function UppyPanel({ onStored }: { onStored: () => void }) {
  const target = useRef<HTMLDivElement>(null)
  const [keys, setKeys] = useState<string[]>([])
  useEffect(() => {
    const uppy = new Uppy({ id: 'waybill-example' }).use(Dashboard, {
      inline: true,
      target: target.current!,
      height: 320,
      proudlyDisplayPoweredByUppy: false,
    })
    uppy.use(
      AwsS3,
      waybillUppy(uppy, waybill, { origin: ORIGIN, key: (file) => keyFor(file.name) }),
    )
    uppy.on('upload-success', (_file, response) => {
      const key = (response.body as { key?: string } | undefined)?.key
      if (key !== undefined) setKeys((all) => [...all, key])
      onStored()
    })
    return () => uppy.destroy()
  }, [onStored])
  return (
    <section id="uppy">
      <h2>With Uppy</h2>
      <div ref={target} />
      <ul>
        {keys.map((key) => (
          <li key={key} data-key={key}>
            {key.slice(PREFIX.length)}
          </li>
        ))}
      </ul>
    </section>
  )
}

function App() {
  const [version, setVersion] = useState(0)
  // Stable: the panels' effects depend on it.
  const [stored] = useState(() => () => setVersion((n) => n + 1))
  return (
    <main>
      <h1>Uploads through waybill</h1>
      <Gallery version={version} />
      <Queue onStored={stored} />
      <LargeFile onStored={stored} />
      <UppyPanel onStored={stored} />
    </main>
  )
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
