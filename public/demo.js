// The waybill demo page: a gallery from a signed asset list (GET /v1/list) and an upload box that
// sends files straight to the bucket through URLs waybill signs (POST /v1/uploads): one presigned
// PUT, a POST form, or a multipart upload with parts in parallel. No framework, no build step.
//
// The API key arrives in the URL fragment (#key=…), which browsers never send to a server; the page
// moves it to sessionStorage (this tab only) and removes it from the address bar.

const DEFAULT_ORIGIN = 'demo'
const UPLOAD_PREFIX = 'uploads/'
const KEY_STORAGE = 'waybill.demo.apiKey'
const AUTO_MULTIPART_BYTES = 8 * 1024 * 1024
const PART_CONCURRENCY = 3
const PART_URL_BATCH = 50
const PART_ATTEMPTS = 3
const LIST_LIMIT = 100
const API_TIMEOUT_MS = 30_000
const SMALL_UPLOAD_TIMEOUT_MS = 120_000
const PART_TIMEOUT_MS = 300_000
const IMAGE_KEY = /\.(?:png|jpe?g|gif|webp|avif|svg)$/i

const $ = (id) => document.getElementById(id)

/** An answer from waybill that is not a success, with its problem+json body when there is one. */
class ApiError extends Error {
  constructor(status, problem) {
    super(describeProblem(status, problem))
    this.name = 'ApiError'
    this.status = status
  }
}

/** An answer from the bucket that is not a success (S3 XML error body). */
class BucketError extends Error {
  constructor(status, text, what) {
    const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1]
    const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1]
    super(
      `The bucket answered ${status} to ${what}` +
        (code ? ` (${code}${message ? `: ${message}` : ''})` : '') +
        '.',
    )
    this.name = 'BucketError'
    // 5xx and 429 may pass on a retry; anything else will not.
    this.retryable = status >= 500 || status === 429
  }
}

// fetch and XMLHttpRequest report a CORS refusal and an unreachable host the same way, on purpose.
const unreachableBucket = (what) =>
  Object.assign(
    new Error(
      `The bucket could not be reached for ${what}, or its CORS rules do not allow this page ` +
        `(${location.origin}). Apply them with: node scripts/bucket-cors.mjs`,
    ),
    { retryable: true },
  )

function describeProblem(status, problem) {
  if (problem === null || typeof problem !== 'object') return `waybill answered ${status}.`
  const parts = [typeof problem.title === 'string' ? problem.title : `HTTP ${status}`]
  if (typeof problem.detail === 'string') parts.push(problem.detail)
  if (Array.isArray(problem.errors)) {
    for (const error of problem.errors) parts.push(`${error.path}: ${error.message}`)
  }
  if (status === 401) parts.push('Check the API key.')
  return parts.join(' — ')
}

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

function withTimeout(signal, timeoutMs) {
  const timeout = AbortSignal.timeout(timeoutMs)
  return signal ? AbortSignal.any([signal, timeout]) : timeout
}

// --- API key ------------------------------------------------------------------------------------

const storage = {
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
    storage.set(fromLink)
    // Out of the address bar, history, bookmarks and screenshots.
    history.replaceState(null, '', location.pathname + location.search)
  }
  apiKey = fromLink || storage.get()
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

// --- waybill API ----------------------------------------------------------------------------------

async function api(method, path, body, signal) {
  if (!apiKey) throw new Error('Paste an API key first.')
  const headers = { authorization: `Bearer ${apiKey}`, accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    signal: withTimeout(signal, API_TIMEOUT_MS),
  })
  if (response.status === 204) return null
  const type = response.headers.get('content-type') ?? ''
  const data = type.includes('json') ? await response.json().catch(() => null) : null
  if (!response.ok) throw new ApiError(response.status, data)
  if (data === null) throw new ApiError(response.status, { title: 'Not a JSON answer' })
  return data
}

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
  state.textContent = 'Loading…'
  const params = new URLSearchParams({ limit: String(LIST_LIMIT) })
  if (append && cursor) params.set('cursor', cursor)
  try {
    const page = await api('GET', `/v1/list/${encodeURIComponent(origin)}?${params}`)
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
    state.textContent = `Could not list the bucket: ${error.message}`
    return false
  }
}

// --- uploads ------------------------------------------------------------------------------------

async function uploadPut(key, file, signal) {
  const grant = await api(
    'POST',
    '/v1/uploads',
    { origin, key, contentType: contentTypeOf(file), contentLength: file.size, mode: 'put' },
    signal,
  )
  if (grant.method !== 'PUT') throw new Error(`expected a PUT upload, got ${grant.method}`)
  let response
  try {
    response = await fetch(grant.url, {
      method: 'PUT',
      headers: grant.headers ?? {},
      body: file,
      credentials: 'omit',
      signal: withTimeout(signal, SMALL_UPLOAD_TIMEOUT_MS),
    })
  } catch (error) {
    if (signal.aborted) throw error
    if (error.name === 'TimeoutError') throw new Error('the PUT timed out')
    throw unreachableBucket('the PUT')
  }
  // Read to the end (usually empty), so the exchange completes rather than being dropped.
  const answer = await response.text()
  if (!response.ok) throw new BucketError(response.status, answer, 'the PUT')
  return 'one presigned PUT'
}

async function uploadPost(key, file, signal) {
  const grant = await api(
    'POST',
    '/v1/uploads',
    { origin, key, contentType: contentTypeOf(file), contentLength: file.size, mode: 'post' },
    signal,
  )
  if (grant.method !== 'POST') throw new Error(`expected a POST form, got ${grant.method}`)
  const form = new FormData()
  for (const [name, value] of Object.entries(grant.fields)) form.append(name, value)
  // S3 ignores every field after the file, so it goes last.
  form.append('file', file, file.name)
  let response
  try {
    response = await fetch(grant.url, {
      method: 'POST',
      body: form,
      credentials: 'omit',
      signal: withTimeout(signal, SMALL_UPLOAD_TIMEOUT_MS),
    })
  } catch (error) {
    if (signal.aborted) throw error
    if (error.name === 'TimeoutError') throw new Error('the POST form timed out')
    throw unreachableBucket('the POST form')
  }
  // Read to the end (usually empty), so the exchange completes rather than being dropped.
  const answer = await response.text()
  if (!response.ok) throw new BucketError(response.status, answer, 'the POST form')
  return 'a POST form'
}

/** PUTs one part with XMLHttpRequest (for upload progress); resolves to the part's ETag. */
function putPart(url, blob, partNumber, signal, onProgress) {
  const what = `part ${partNumber}`
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const xhr = new XMLHttpRequest()
    const onAbort = () => xhr.abort()
    signal.addEventListener('abort', onAbort, { once: true })
    xhr.open('PUT', url)
    xhr.timeout = PART_TIMEOUT_MS
    xhr.upload.addEventListener('progress', (event) => onProgress(event.loaded))
    xhr.addEventListener('loadend', () => signal.removeEventListener('abort', onAbort))
    xhr.addEventListener('load', () => {
      if (xhr.status < 200 || xhr.status > 299) {
        return reject(new BucketError(xhr.status, xhr.responseText, what))
      }
      const etag = xhr.getResponseHeader('ETag')
      if (!etag) {
        return reject(
          new Error(
            `The bucket stored ${what} but did not expose its ETag to this page; its CORS ` +
              'rules must list ETag in ExposeHeaders (node scripts/bucket-cors.mjs).',
          ),
        )
      }
      onProgress(blob.size)
      resolve(etag)
    })
    xhr.addEventListener('error', () => reject(unreachableBucket(what)))
    xhr.addEventListener('timeout', () =>
      reject(Object.assign(new Error(`${what} timed out`), { retryable: true })),
    )
    xhr.addEventListener('abort', () => reject(signal.reason ?? new Error('aborted')))
    // A sliced Blob has no type, so no Content-Type is sent; the browser sets Content-Length to
    // the slice's size, which is what a part URL that signs the length expects.
    xhr.send(blob)
  })
}

async function uploadMultipart(key, file, signal, onProgress) {
  const init = await api(
    'POST',
    '/v1/uploads',
    { origin, key, contentType: contentTypeOf(file), contentLength: file.size, mode: 'multipart' },
    signal,
  )
  if (init.method !== 'MULTIPART')
    throw new Error(`expected a multipart upload, got ${init.method}`)
  const { uploadId, partSize, partCount } = init
  const objectKey = init.key ?? key
  if (
    !(partSize > 0) ||
    !(partCount > 0) ||
    partCount * partSize < file.size ||
    (partCount - 1) * partSize >= Math.max(file.size, 1)
  ) {
    throw new Error(`waybill's part plan (${partCount} × ${partSize} bytes) does not fit the file`)
  }

  const urls = new Map(init.parts.map((part) => [part.partNumber, part.url]))
  const pendingUrls = new Map()
  const local = new AbortController()
  const partSignal = AbortSignal.any([signal, local.signal])

  // Part URLs beyond the first batch, asked for in batches and shared by the workers.
  async function urlFor(partNumber) {
    if (!urls.has(partNumber) && !pendingUrls.has(partNumber)) {
      const numbers = []
      for (let n = partNumber; n <= partCount && numbers.length < PART_URL_BATCH; n++) {
        if (!urls.has(n) && !pendingUrls.has(n)) numbers.push(n)
      }
      const batch = api(
        'POST',
        '/v1/uploads/multipart/parts',
        { origin, key: objectKey, uploadId, partNumbers: numbers },
        partSignal,
      )
        .then((answer) => {
          for (const part of answer.parts) urls.set(part.partNumber, part.url)
        })
        .finally(() => {
          for (const n of numbers) pendingUrls.delete(n)
        })
      // Awaited by whichever worker needs it; a failure is reported there, not as unhandled.
      batch.catch(() => {})
      for (const n of numbers) pendingUrls.set(n, batch)
    }
    if (!urls.has(partNumber)) await pendingUrls.get(partNumber)
    const url = urls.get(partNumber)
    if (!url) throw new Error(`waybill gave no URL for part ${partNumber}`)
    return url
  }

  const sent = new Array(partCount + 1).fill(0)
  const report = (partsDone) =>
    onProgress(
      sent.reduce((a, b) => a + b, 0),
      file.size,
      `${partsDone} of ${partCount} part${partCount === 1 ? '' : 's'}`,
    )
  const etags = []
  let next = 1

  async function worker() {
    while (next <= partCount) {
      const partNumber = next++
      const start = (partNumber - 1) * partSize
      const blob = file.slice(start, Math.min(start + partSize, file.size))
      for (let attempt = 1; ; attempt++) {
        try {
          const url = await urlFor(partNumber)
          const etag = await putPart(url, blob, partNumber, partSignal, (loaded) => {
            sent[partNumber] = loaded
            report(etags.length)
          })
          etags.push({ partNumber, etag })
          report(etags.length)
          break
        } catch (error) {
          sent[partNumber] = 0
          if (partSignal.aborted || !error.retryable || attempt >= PART_ATTEMPTS) throw error
        }
      }
    }
  }

  try {
    const workers = Array.from({ length: Math.min(PART_CONCURRENCY, partCount) }, () =>
      worker().catch((error) => {
        local.abort(error)
        throw error
      }),
    )
    await Promise.all(workers)
    etags.sort((a, b) => a.partNumber - b.partNumber)
    await api(
      'POST',
      '/v1/uploads/multipart/complete',
      { origin, key: objectKey, uploadId, parts: etags },
      signal,
    )
  } catch (error) {
    // Best effort: the parts already stored are released; the error that matters is the first one.
    await api('POST', '/v1/uploads/multipart/abort', { origin, key: objectKey, uploadId }).catch(
      () => {},
    )
    throw error
  }
  return `a multipart upload of ${partCount} part${partCount === 1 ? '' : 's'}`
}

const contentTypeOf = (file) => file.type || 'application/octet-stream'

// --- the upload form ----------------------------------------------------------------------------

let uploading = null

function setStatus(text, kind = 'info') {
  const status = $('status')
  status.textContent = text
  status.dataset.kind = kind
}

function setProgress(done, total, detail) {
  const progress = $('progress')
  if (total === undefined) {
    progress.removeAttribute('value')
    $('progress-text').textContent = detail ?? ''
    return
  }
  progress.max = Math.max(total, 1)
  progress.value = Math.min(done, total)
  const percent = total > 0 ? Math.floor((done / total) * 100) : 100
  $('progress-text').textContent =
    `${percent}% · ${formatBytes(done)} of ${formatBytes(total)}` + (detail ? ` · ${detail}` : '')
}

async function onUpload(event) {
  event.preventDefault()
  if (uploading) return
  const file = $('file').files?.[0]
  if (!file) return setStatus('Choose a file first.', 'error')
  if (!apiKey) return setStatus('Paste an API key first.', 'error')
  const chosen = new FormData($('upload-form')).get('mode') ?? 'auto'
  const mode = chosen === 'auto' ? (file.size > AUTO_MULTIPART_BYTES ? 'multipart' : 'put') : chosen
  const key = UPLOAD_PREFIX + file.name
  const controller = new AbortController()
  uploading = controller
  $('upload-button').setAttribute('aria-disabled', 'true')
  $('cancel-button').hidden = false
  setStatus(`Uploading ${key} (${formatBytes(file.size)})…`)
  if (mode === 'multipart') setProgress(0, file.size)
  else setProgress(0, undefined, 'sending…')
  const started = performance.now()
  try {
    const how =
      mode === 'put'
        ? await uploadPut(key, file, controller.signal)
        : mode === 'post'
          ? await uploadPost(key, file, controller.signal)
          : await uploadMultipart(key, file, controller.signal, setProgress)
    setProgress(file.size, file.size)
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    await loadGallery()
    markUploaded(key)
    setStatus(`Uploaded ${key} (${formatBytes(file.size)}) with ${how} in ${seconds} s.`, 'success')
  } catch (error) {
    setProgress(0, 1)
    const cancelled = controller.signal.aborted && controller.signal.reason === 'cancelled'
    setStatus(cancelled ? 'Upload cancelled.' : `Upload failed: ${error.message}`, 'error')
  } finally {
    uploading = null
    $('upload-button').removeAttribute('aria-disabled')
    const hadFocus = document.activeElement === $('cancel-button')
    $('cancel-button').hidden = true
    if (hadFocus) $('upload-button').focus()
  }
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
  $('auto-limit').textContent = formatBytes(AUTO_MULTIPART_BYTES)

  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault()
    const input = $('api-key')
    const value = input.value.trim()
    if (!value) return
    apiKey = value
    storage.set(value)
    input.value = ''
    showKeyState('pasted')
    void loadGallery()
  })
  $('forget-key').addEventListener('click', () => {
    apiKey = null
    storage.set(null)
    showKeyState('none')
    $('gallery').replaceChildren()
    $('gallery-state').textContent = ''
    $('api-key').focus()
  })
  $('upload-form').addEventListener('submit', onUpload)
  $('cancel-button').addEventListener('click', () => uploading?.abort('cancelled'))
  $('refresh').addEventListener('click', () => void loadGallery())
  $('more').addEventListener('click', () => void loadGallery({ append: true }))

  if (apiKey) void loadGallery()
}

start()
