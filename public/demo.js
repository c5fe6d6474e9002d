// The waybill demo page, on the browser client (client/, bundled into /vendor/waybill-client.js by
// scripts/docs-assets.mjs): a gallery from a signed listing (GET /v1/list) and an upload box that
// sends files straight to the bucket through URLs waybill signs: one presigned PUT, a POST form, or
// a multipart upload with parts in parallel, which resumes where it stopped if it is interrupted.
//
// The API key arrives in the URL fragment (#key=…), which browsers never send to a server; the page
// moves it to sessionStorage (this tab only) and removes it from the address bar. The client asks
// for it before each request and sends it as a bearer header, never in a URL.

import { createClient, WaybillError } from '/vendor/waybill-client.js'

const DEFAULT_ORIGIN = 'demo'
const UPLOAD_PREFIX = 'uploads/'
const KEY_STORAGE = 'waybill.demo.apiKey'
const AUTO_MULTIPART_BYTES = 8 * 1024 * 1024
// Two retries after the first attempt, on network errors, 429 and 5xx.
const RETRIES = 2
const LIST_LIMIT = 100
const IMAGE_KEY = /\.(?:png|jpe?g|gif|webp|avif|svg)$/i

const $ = (id) => document.getElementById(id)

function formatBytes(bytes) {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`
}

const formatTime = (iso) => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString()
}

/** What to tell the user: waybill's own explanation, with a hint where one helps. */
function describe(error) {
  if (error instanceof WaybillError && error.status === 401) {
    return `${error.message} Check the API key.`
  }
  return error instanceof Error ? error.message : String(error)
}

// --- API key ------------------------------------------------------------------------------------

const keyStorage = {
  get() {
    try {
      return sessionStorage.getItem(KEY_STORAGE)
    } catch {
      return null
    }
  },
  set(value) {
    try {
      if (value === null) sessionStorage.removeItem(KEY_STORAGE)
      else sessionStorage.setItem(KEY_STORAGE, value)
    } catch {
      // Storage may be off (private mode); the key then lives for this page view only.
    }
  },
}

let apiKey = null
let origin = DEFAULT_ORIGIN

function readLocation() {
  const query = new URLSearchParams(location.search)
  if (query.get('origin')) origin = query.get('origin')
  const fragment = new URLSearchParams(location.hash.slice(1))
  const fromLink = fragment.get('key')
  if (fromLink) {
    keyStorage.set(fromLink)
    // Out of the address bar, history, bookmarks and screenshots.
    history.replaceState(null, '', location.pathname + location.search)
  }
  apiKey = fromLink || keyStorage.get()
  return fromLink ? 'link' : apiKey ? 'storage' : 'none'
}

function showKeyState(source) {
  const text = {
    link: 'Using the API key from the link. It is kept in this browser tab only.',
    storage: 'Using the API key saved in this browser tab.',
    pasted: 'Using the pasted API key. It is kept in this browser tab only.',
    none: 'No API key yet. npm start prints a link that carries one; or paste one below.',
  }[source]
  $('key-state').textContent = text
  $('forget-key').hidden = apiKey === null
}

// One client for the page; the key is read at each request, so pasting or forgetting it applies
// at once. Resumable uploads are remembered in localStorage (the client's default).
const waybill = createClient({
  baseUrl: location.origin,
  auth: () => apiKey ?? undefined,
  retries: RETRIES,
})

// --- gallery ------------------------------------------------------------------------------------

let cursor = null
let galleryCount = 0

function galleryItem(item) {
  const li = document.createElement('li')
  li.dataset.key = item.key
  const figure = document.createElement('figure')
  const caption = document.createElement('figcaption')
  const name = document.createElement('span')
  name.className = 'name'
  name.textContent = item.key
  const meta = document.createElement('span')
  meta.className = 'meta'
  meta.textContent = formatBytes(item.size)
  if (item.url) {
    const link = document.createElement('a')
    link.href = item.url
    link.target = '_blank'
    link.rel = 'noopener noreferrer'
    if (IMAGE_KEY.test(item.key)) {
      const img = document.createElement('img')
      img.src = item.url
      img.alt = item.key
      img.loading = 'lazy'
      img.decoding = 'async'
      link.append(img)
      figure.append(link)
      caption.append(name, meta)
    } else {
      link.className = 'file'
      link.textContent = item.key
      figure.append(link)
      caption.append(meta)
    }
  } else {
    // Listed but not readable with this key: no signed URL.
    caption.append(name, meta)
    meta.textContent += ' · no read access'
  }
  figure.append(caption)
  li.append(figure)
  return li
}

async function loadGallery({ append = false } = {}) {
  const state = $('gallery-state')
  if (!apiKey) {
    state.textContent = 'Paste an API key first.'
    return false
  }
  state.textContent = 'Loading…'
  try {
    // One page of the signed listing; "Load more" asks for the next one with its cursor.
    const pages = waybill.listPages(origin, {
      limit: LIST_LIMIT,
      cursor: append && cursor ? cursor : undefined,
    })
    const { value: page } = await pages.next()
    await pages.return()
    const gallery = $('gallery')
    if (!append) {
      gallery.replaceChildren()
      galleryCount = 0
    }
    for (const item of page.items) gallery.append(galleryItem(item))
    galleryCount += page.items.length
    cursor = page.cursor ?? null
    $('more').hidden = cursor === null
    state.textContent =
      `${galleryCount} object${galleryCount === 1 ? '' : 's'}` +
      (page.expiresAt ? `; links valid until ${formatTime(page.expiresAt)}` : '') +
      (cursor ? '; more below' : '')
    return true
  } catch (error) {
    state.textContent = `Could not list the bucket: ${describe(error)}`
    return false
  }
}

// --- uploads ------------------------------------------------------------------------------------

let uploading = null

function setStatus(text, kind = 'info') {
  const status = $('status')
  status.textContent = text
  status.dataset.kind = kind
}

function setProgress({ loaded, total, partsDone, partCount }) {
  const progress = $('progress')
  progress.max = Math.max(total, 1)
  progress.value = Math.min(loaded, total)
  const percent = total > 0 ? Math.floor((loaded / total) * 100) : 100
  $('progress-text').textContent =
    `${percent}% · ${formatBytes(loaded)} of ${formatBytes(total)}` +
    (partCount ? ` · ${partsDone} of ${partCount} part${partCount === 1 ? '' : 's'}` : '')
}

const chosenFile = () => $('file').files?.[0]
const targetOf = (file) => ({ origin, key: UPLOAD_PREFIX + file.name })

/** Shows whether the chosen file has an interrupted upload that Upload would resume. */
function showResumable() {
  const file = chosenFile()
  const record = file ? waybill.resumableUpload(file, targetOf(file)) : undefined
  $('resume-note').hidden = record === undefined
  $('discard-button').hidden = record === undefined
  if (record) {
    $('resume-note').textContent =
      `An upload of this file started ${formatTime(record.startedAt)} was interrupted: ` +
      'Upload resumes it and sends only the parts the bucket does not hold yet.'
  }
}

function describeUpload(stored, requested) {
  if (stored.mode === 'multipart') {
    const parts = `${stored.partCount} part${stored.partCount === 1 ? '' : 's'}`
    return stored.resumed
      ? `a multipart upload of ${parts}, resumed (${stored.partsSent} sent now)`
      : `a multipart upload of ${parts}`
  }
  if (stored.mode === 'post') return 'a POST form'
  return requested === 'post'
    ? "one presigned PUT (this origin's store takes no POST forms)"
    : 'one presigned PUT'
}

async function onUpload(event) {
  event.preventDefault()
  if (uploading) return
  const file = chosenFile()
  if (!file) return setStatus('Choose a file first.', 'error')
  if (!apiKey) return setStatus('Paste an API key first.', 'error')
  const mode = new FormData($('upload-form')).get('mode') ?? 'auto'
  const { key } = targetOf(file)
  const controller = new AbortController()
  uploading = controller
  $('upload-button').setAttribute('aria-disabled', 'true')
  $('cancel-button').hidden = false
  $('discard-button').hidden = true
  $('resume-note').hidden = true
  setStatus(`Uploading ${key} (${formatBytes(file.size)})…`)
  setProgress({ loaded: 0, total: file.size })
  const started = performance.now()
  try {
    const stored = await waybill.upload(file, {
      ...targetOf(file),
      mode,
      // A POST form cannot refuse to replace what is at its key: it is sent only when asked to.
      overwrite: mode === 'post',
      multipartThreshold: AUTO_MULTIPART_BYTES,
      onProgress: setProgress,
      signal: controller.signal,
    })
    setProgress({ loaded: file.size, total: file.size })
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    await loadGallery()
    markUploaded(stored.key)
    setStatus(
      `Uploaded ${stored.key} (${formatBytes(stored.size)}) with ${describeUpload(stored, mode)} in ${seconds} s.`,
      'success',
    )
  } catch (error) {
    setProgress({ loaded: 0, total: 1 })
    if (controller.signal.aborted) {
      setStatus('Upload cancelled.', 'error')
    } else {
      const resumable = waybill.resumableUpload(file, targetOf(file)) !== undefined
      setStatus(
        `Upload failed: ${describe(error)}` +
          (resumable
            ? ' Upload the same file again to resume it (only the missing parts are sent), or discard it.'
            : ''),
        'error',
      )
      showResumable()
    }
  } finally {
    uploading = null
    $('upload-button').removeAttribute('aria-disabled')
    const hadFocus = document.activeElement === $('cancel-button')
    $('cancel-button').hidden = true
    if (hadFocus) $('upload-button').focus()
  }
}

async function onDiscard() {
  const file = chosenFile()
  if (!file || uploading) return
  try {
    await waybill.discardUpload(file, targetOf(file))
    setStatus(`Discarded the interrupted upload of ${targetOf(file).key}.`, 'success')
  } catch (error) {
    setStatus(`Could not discard the upload: ${describe(error)}`, 'error')
  }
  showResumable()
  $('upload-button').focus()
}

function markUploaded(key) {
  for (const li of $('gallery').children) {
    const match = li.dataset.key === key
    li.classList.toggle('just-uploaded', match)
    if (match) li.scrollIntoView({ block: 'nearest' })
  }
}

// --- wiring -------------------------------------------------------------------------------------

function start() {
  showKeyState(readLocation())
  $('origin-name').textContent = origin
  for (const link of $('origins').querySelectorAll('a[data-origin]')) {
    if (link.dataset.origin === origin) link.setAttribute('aria-current', 'page')
  }
  $('auto-limit').textContent = formatBytes(AUTO_MULTIPART_BYTES)

  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault()
    const input = $('api-key')
    const value = input.value.trim()
    if (!value) return
    apiKey = value
    keyStorage.set(value)
    input.value = ''
    showKeyState('pasted')
    void loadGallery()
  })
  $('forget-key').addEventListener('click', () => {
    apiKey = null
    keyStorage.set(null)
    showKeyState('none')
    $('gallery').replaceChildren()
    $('gallery-state').textContent = ''
    $('api-key').focus()
  })
  $('file').addEventListener('change', showResumable)
  $('upload-form').addEventListener('submit', onUpload)
  $('cancel-button').addEventListener('click', () => uploading?.abort('cancelled'))
  $('discard-button').addEventListener('click', () => void onDiscard())
  $('refresh').addEventListener('click', () => void loadGallery())
  $('more').addEventListener('click', () => void loadGallery({ append: true }))

  if (apiKey) void loadGallery()
}

start()
