// The Uppy test page: @uppy/core, @uppy/dashboard, @uppy/aws-s3 and @uppy/golden-retriever, wired
// to waybill with waybill-client/uppy exactly as the README's "Use with Uppy" shows. Bundled by
// test/browser/uppy.test.ts and served on the Worker's own origin; the test drives it through
// `window.uppyTest`.

import AwsS3 from '@uppy/aws-s3'
import Uppy from '@uppy/core'
import '@uppy/core/css/style.min.css'
import Dashboard from '@uppy/dashboard'
import '@uppy/dashboard/css/style.min.css'
import GoldenRetriever, { type GoldenRetrieverOptions } from '@uppy/golden-retriever'
import { createClient } from '../../../client/src/index.ts'
import { waybillUppy } from '../../../client/src/uppy.ts'

const MIB = 1024 * 1024

interface StartOptions {
  apiKey: string
  origin: string
  /** A key under a prefix instead of one the grant chooses from the file name. */
  keyPrefix?: string
  /** Small files as one PUT (the default) or as a POST form (which needs overwrite). */
  mode?: 'put' | 'post'
  overwrite?: boolean
}

interface FileOutcome {
  name: string
  key?: string
  error?: string
}

/** Bytes no two files share: a seeded xorshift, so the test can rebuild them. */
function bytesOf(size: number, seed: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size)
  let x = seed || 1
  for (let i = 0; i < size; i += 4) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
    out[i + 1] = (x >>> 8) & 0xff
    out[i + 2] = (x >>> 16) & 0xff
    out[i + 3] = (x >>> 24) & 0xff
  }
  return out
}

async function sha256Hex(data: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data))
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')
}

let uppy: Uppy | undefined

function start(options: StartOptions) {
  const client = createClient({ baseUrl: location.origin, auth: () => options.apiKey })
  uppy = new Uppy({ id: 'waybill-test', autoProceed: false })
  uppy.use(Dashboard, { inline: true, target: '#uploads', proudlyDisplayPoweredByUppy: false })
  // File bytes kept in IndexedDB so an interrupted upload resumes after a reload (as the
  // README's snippet: Golden Retriever 6.0's types leave out the two sizes it reads).
  const indexedDB: NonNullable<GoldenRetrieverOptions['indexedDB']> & {
    maxFileSize: number
    maxTotalSize: number
  } = { maxFileSize: 64 * MIB, maxTotalSize: 256 * MIB }
  uppy.use(GoldenRetriever, { indexedDB })
  uppy.use(
    AwsS3,
    waybillUppy(uppy, client, {
      origin: options.origin,
      mode: options.mode,
      overwrite: options.overwrite,
      key:
        options.keyPrefix === undefined
          ? undefined
          : (file) => `${options.keyPrefix}${file.name ?? 'file'}`,
    }),
  )
  return true
}

function current(): Uppy {
  if (uppy === undefined) throw new Error('start() first')
  return uppy
}

async function add(name: string, type: string, size: number, seed: number) {
  const data = bytesOf(size, seed)
  current().addFile({ name, type, data: new Blob([data], { type }), source: 'test' })
  return sha256Hex(data)
}

/** Uploads what is added (or restored) and answers each file's key or error. */
async function upload(): Promise<FileOutcome[]> {
  const result = await current().upload()
  const outcomes: FileOutcome[] = []
  for (const file of [...(result?.successful ?? []), ...(result?.failed ?? [])]) {
    const body = file.response?.body as { key?: string } | undefined
    outcomes.push({
      name: file.name ?? '',
      key: body?.key,
      error: typeof file.error === 'string' ? file.error : undefined,
    })
  }
  return outcomes
}

/** After a reload: the files Golden Retriever brought back, with their bytes and upload state. */
function restored() {
  return current()
    .getFiles()
    .map((file) => ({
      name: file.name,
      hasData: file.data !== undefined && file.data !== null && (file.data as Blob).size > 0,
      resumable: (file as { s3Multipart?: unknown }).s3Multipart !== undefined,
    }))
}

/** Resumes what Golden Retriever restored, as its "resume" button does. */
function resume(): Promise<FileOutcome[]> {
  return new Promise((resolve) => {
    const files = () => current().getFiles()
    current().once('complete', (result) => {
      resolve(
        [...(result.successful ?? []), ...(result.failed ?? [])].map((file) => ({
          name: file.name ?? '',
          key: (file.response?.body as { key?: string } | undefined)?.key,
          error: typeof file.error === 'string' ? file.error : undefined,
        })),
      )
    })
    if (files().length === 0) resolve([])
    current().emit('restore-confirmed')
  })
}

declare global {
  interface Window {
    uppyTest: {
      start: typeof start
      add: typeof add
      upload: typeof upload
      restored: typeof restored
      resume: typeof resume
      ready: boolean
    }
  }
}

window.uppyTest = { start, add, upload, restored, resume, ready: true }
