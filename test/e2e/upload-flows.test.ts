// What browser upload clients need from the server, against versitygw: many uploads in one call,
// keys the grant chooses from a file name, the parts an interrupted multipart upload already holds
// (to resume it), completing from the store's own list, and the completion check of a PUT or POST
// upload against what was signed (with the offending object deleted where the grant says so).

import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { form, postForm } from '../helpers/forms'
import { sha256Base64, sha256Hex } from '../helpers/hex'
import { postJson } from '../helpers/requests'
import type { WebhookRecord } from '../helpers/provided-context'
import { apiKeysBinding } from '../helpers/api-keys'
import { e2eOrigin, objectUrl, store, workerEnv } from '../helpers/worker-env'

const app = createApp()
/** The same Worker with its clock an hour ahead: what it issues postdates every object stored now. */
const later = createApp({ clock: () => new Date(Date.now() + 3_600_000) })
const ROOT = `flows-${crypto.randomUUID().slice(0, 8)}`
const KEYS = { up: 'wb_test_flows_up_0123456789', other: 'wb_test_flows_other_0123456789' }
const MAX_BYTES = 4096
const MIB = 1024 * 1024

let env: Env

beforeAll(async () => {
  const safe = { ...e2eOrigin(), keys: 'safe' }
  env = {
    ...workerEnv,
    WAYBILL_ORIGINS: JSON.stringify({ e2e: safe, keep: safe }),
    WAYBILL_API_KEYS: await apiKeysBinding([
      { id: 'up', key: KEYS.up },
      { id: 'other', key: KEYS.other },
    ]),
    WAYBILL_GRANTS: JSON.stringify([
      {
        to: 'apiKey:up',
        origin: 'e2e',
        prefix: `${ROOT}/small/`,
        actions: ['write', 'read'],
        contentTypes: ['image/*', 'text/plain'],
        maxContentLength: MAX_BYTES,
        maxBatch: 3,
        uploadKey: `${ROOT}/small/{apiKey}/{uuid}-{filename}`,
        deleteMismatched: true,
        // POST forms cannot refuse to replace an object.
        overwrite: true,
      },
      { to: 'apiKey:up', origin: 'e2e', prefix: `${ROOT}/big/`, actions: ['write'] },
      // The same bucket, but mismatches are kept for a person to look at.
      { to: 'apiKey:up', origin: 'keep', prefix: `${ROOT}/kept/`, actions: ['write'] },
      { to: 'apiKey:other', origin: 'e2e', prefix: `${ROOT}/`, actions: ['write'] },
    ]),
  }
})

async function call(path: string, body: unknown, key = KEYS.up): Promise<Response> {
  return app.request(path, postJson(body, key), env)
}

async function ok<T>(path: string, body: Record<string, unknown>, key = KEYS.up): Promise<T> {
  const response = await call(path, { origin: 'e2e', ...body }, key)
  expect(response.status, await response.clone().text()).toBe(200)
  return response.json<T>()
}

interface Problem {
  type: string
  detail: string
  errors: { path: string; message: string }[]
}

async function problem(response: Response, status: number): Promise<Problem> {
  expect(response.status, await response.clone().text()).toBe(status)
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  return response.json<Problem>()
}

interface Put {
  mode: 'put'
  key: string
  url: string
  headers: Record<string, string>
  receipt: string
}
interface Post {
  mode: 'post'
  key: string
  url: string
  fields: Record<string, string>
  receipt: string
}

/** Sends a PUT upload as a browser would: Content-Length comes from the body. */
function put(upload: Put, body: BodyInit): Promise<Response> {
  const headers = Object.fromEntries(
    Object.entries(upload.headers).filter(([name]) => name !== 'content-length'),
  )
  return fetch(upload.url, { method: 'PUT', headers, body })
}

const stored = (key: string) => store.fetch(objectUrl(key))

/** The tag a PUT upload's URL signs, as a header: what a store that keeps metadata stores. */
const tagOf = (upload: Put) => ({
  'x-amz-meta-waybill-upload': upload.headers['x-amz-meta-waybill-upload']!,
})

describe('many uploads in one call', () => {
  it('issues a PUT per item, in order, each with its own key, type, length and receipt', async () => {
    const items = [
      { key: `${ROOT}/small/b1.txt`, contentType: 'text/plain', contentLength: 5 },
      { key: `${ROOT}/small/b2.png`, contentType: 'image/png', contentLength: 7 },
    ]
    const { uploads } = await ok<{ uploads: Put[] }>('/v1/uploads', { items })
    expect(uploads.map((u) => [u.mode, u.key])).toEqual(items.map((i) => ['put', i.key]))
    expect(uploads[0]!.headers['content-type']).toBe('text/plain')
    expect((await put(uploads[0]!, 'hello')).status).toBe(200)
    expect((await put(uploads[1]!, 'pngdata')).status).toBe(200)
    // Another item's length does not pass the first item's URL.
    expect((await put(uploads[0]!, 'hello, world')).status).not.toBe(200)
  })

  it('issues POST policies for many files, each bound to its own key', async () => {
    const items = ['p1.png', 'p2.png'].map((name) => ({
      key: `${ROOT}/small/${name}`,
      contentType: 'image/png',
      overwrite: true,
    }))
    const { uploads } = await ok<{ uploads: Post[] }>('/v1/uploads', { mode: 'post', items })
    const png = new Blob([new Uint8Array(100).fill(1)], { type: 'image/png' })
    expect((await postForm(uploads[1]!.url, form(uploads[1]!.fields, png))).status).toBe(204)
    // The first form's policy does not cover the second key.
    const swapped = form(uploads[0]!.fields, png, { key: uploads[1]!.fields.key! })
    expect((await postForm(uploads[0]!.url, swapped)).status).toBe(403)
  })

  it('is all or nothing: one uncovered key refuses the batch, naming it', async () => {
    const body = await problem(
      await call('/v1/uploads', {
        origin: 'e2e',
        items: [
          { key: `${ROOT}/small/ok.txt`, contentType: 'text/plain', contentLength: 1 },
          { key: 'elsewhere/x.txt', contentType: 'text/plain', contentLength: 1 },
        ],
      }),
      403,
    )
    expect(body.errors.map((e) => e.path)).toEqual(['items.1.key'])
    expect(body.errors[0]?.message).toBe('"elsewhere/x.txt" is not covered by a grant to write')
    expect(body.detail).toContain('("elsewhere/x.txt")')
    expect(body.detail).not.toMatch(/X-Amz-Signature/)
  })

  it("gives every item's 400 at once, and caps the batch at the grant's maxBatch", async () => {
    const tooBig = await problem(
      await call('/v1/uploads', {
        origin: 'e2e',
        items: [
          { key: `${ROOT}/small/a.txt`, contentType: 'text/plain', contentLength: MAX_BYTES + 1 },
          { key: `${ROOT}/small/b.html`, contentType: 'text/html', contentLength: 1 },
        ],
      }),
      400,
    )
    expect(tooBig.errors.map((e) => e.path).sort()).toEqual([
      'items.0.contentLength',
      'items.1.contentType',
    ])
    const four = Array.from({ length: 4 }, (_, i) => ({
      key: `${ROOT}/small/${i}.txt`,
      contentType: 'text/plain',
      contentLength: 1,
    }))
    const capped = await problem(await call('/v1/uploads', { origin: 'e2e', items: four }), 400)
    expect(capped.errors.map((e) => e.path)).toEqual(['items'])
  })
})

describe('keys the grant chooses', () => {
  it('puts a sanitized file name under the template, with a fresh UUID each time', async () => {
    const name = 'C:\\fakepath\\My "Report" #1?.txt'
    const [a, b] = await Promise.all([
      ok<Put>('/v1/uploads', { filename: name, contentType: 'text/plain', contentLength: 3 }),
      ok<Put>('/v1/uploads', { filename: name, contentType: 'text/plain', contentLength: 3 }),
    ])
    const shape = new RegExp(
      `^${ROOT}/small/up/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-My _Report_ _1_\\.txt$`,
    )
    expect(a.key).toMatch(shape)
    expect(b.key).toMatch(shape)
    expect(a.key).not.toBe(b.key)
    expect((await put(a, 'abc')).status).toBe(200)
    expect(await (await stored(a.key)).text()).toBe('abc')
  })

  it('works for a batch, and refuses a caller with no uploadKey grant, naming filename', async () => {
    const { uploads } = await ok<{ uploads: Put[] }>('/v1/uploads', {
      items: [
        { filename: 'a.png', contentType: 'image/png', contentLength: 1 },
        { filename: '../../etc/passwd', contentType: 'text/plain', contentLength: 1 },
      ],
    })
    expect(uploads[1]!.key).toMatch(new RegExp(`^${ROOT}/small/up/[0-9a-f-]{36}-passwd$`))
    const none = await problem(
      await call(
        '/v1/uploads',
        { origin: 'e2e', filename: 'a.txt', contentType: 'text/plain' },
        KEYS.other,
      ),
      400,
    )
    expect(none.errors.map((e) => e.path)).toEqual(['filename'])
  })

  it('still applies every limit of the grant to the chosen key', async () => {
    const refused = await problem(
      await call('/v1/uploads', {
        origin: 'e2e',
        filename: 'a.html',
        contentType: 'text/html',
        contentLength: 1,
      }),
      400,
    )
    expect(refused.errors.map((e) => e.path)).toEqual(['contentType'])
  })
})

interface Multipart {
  key: string
  uploadId: string
  partSize: number
  partCount: number
  parts: { partNumber: number; url: string }[]
}

describe('resuming a multipart upload', () => {
  it('lists the parts the store holds, then completes from that list', async () => {
    const key = `${ROOT}/big/resume.bin`
    const data = new Uint8Array(11 * MIB)
    for (let i = 0; i < data.length; i += 997) data[i] = i % 253
    const upload = await ok<Multipart>('/v1/uploads', {
      mode: 'multipart',
      key,
      contentType: 'application/octet-stream',
      contentLength: data.length,
    })
    expect(upload.partCount).toBe(3)
    const slice = (n: number) => data.slice((n - 1) * upload.partSize, n * upload.partSize)
    const send = (n: number) => fetch(upload.parts[n - 1]!.url, { method: 'PUT', body: slice(n) })
    // "Interrupted" after parts 1 and 3.
    expect((await send(1)).status).toBe(200)
    expect((await send(3)).status).toBe(200)
    const ref = { key, uploadId: upload.uploadId }
    const listed = await ok<{
      partSize: number
      partCount: number
      contentLength: number
      parts: { partNumber: number; size: number; etag: string }[]
    }>('/v1/uploads/multipart/list', ref)
    expect(listed).toMatchObject({ partSize: 5 * MIB, partCount: 3, contentLength: data.length })
    expect(listed.parts.map((p) => [p.partNumber, p.size])).toEqual([
      [1, 5 * MIB],
      [3, MIB],
    ])
    // Completing now says which part is missing: a conflict with the upload's state (409).
    const early = await problem(
      await call('/v1/uploads/multipart/complete', { origin: 'e2e', ...ref }),
      409,
    )
    expect(early.errors[0]).toEqual({ path: 'parts', message: 'part 2 of 3 has not been uploaded' })
    expect((await send(2)).status).toBe(200)
    const done = await ok<{ key: string; size: number; contentType: string; etag: string }>(
      '/v1/uploads/multipart/complete',
      ref,
    )
    expect(done).toMatchObject({ key, size: data.length, contentType: 'application/octet-stream' })
    const back = new Uint8Array(await (await stored(key)).arrayBuffer())
    expect(await sha256Hex(back)).toBe(await sha256Hex(data))
  })

  it("lists only the caller's own upload, for the key it was started on", async () => {
    const key = `${ROOT}/big/theirs.bin`
    const upload = await ok<Multipart>('/v1/uploads', {
      mode: 'multipart',
      key,
      contentType: 'application/octet-stream',
      contentLength: 6 * MIB,
    })
    const ref = { origin: 'e2e', key, uploadId: upload.uploadId }
    const other = await problem(await call('/v1/uploads/multipart/list', ref, KEYS.other), 403)
    expect(other.errors.map((e) => e.path)).toEqual(['uploadId'])
    const moved = await problem(
      await call('/v1/uploads/multipart/list', { ...ref, key: `${ROOT}/big/elsewhere.bin` }),
      403,
    )
    expect(moved.errors.map((e) => e.path)).toEqual(['uploadId'])
    // Another origin on the same bucket and credentials does not take it either.
    const elsewhere = await problem(
      await call('/v1/uploads/multipart/list', { ...ref, origin: 'keep' }),
      403,
    )
    expect(elsewhere.errors.map((e) => e.path)).toEqual(['uploadId'])
    expect((await call('/v1/uploads/multipart/abort', ref)).status).toBe(204)
  })
})

describe('completing twice', () => {
  /** A multipart upload of `data` under big/, every part sent, with the ETags the store gave. */
  async function sentUpload(key: string, data: Uint8Array<ArrayBuffer>) {
    const upload = await ok<Multipart>('/v1/uploads', {
      mode: 'multipart',
      key,
      contentType: 'application/octet-stream',
      contentLength: data.length,
    })
    const parts: { partNumber: number; etag: string }[] = []
    for (const part of upload.parts) {
      const n = part.partNumber
      const body = data.slice((n - 1) * upload.partSize, n * upload.partSize)
      const sent = await fetch(part.url, { method: 'PUT', body })
      expect(sent.status).toBe(200)
      parts.push({ partNumber: n, etag: sent.headers.get('etag')! })
    }
    return { key, uploadId: upload.uploadId, parts }
  }

  it('answers a repeated complete with the object, as when the first answer was lost', async () => {
    const data = new Uint8Array(5 * MIB + 7).fill(7)
    const { parts, ...ref } = await sentUpload(`${ROOT}/big/twice.bin`, data)
    const first = await ok<{ etag: string }>('/v1/uploads/multipart/complete', ref)
    // The store knows the upload no more: its parts name the object it made.
    const again = await ok<{ etag: string }>('/v1/uploads/multipart/complete', { ...ref, parts })
    expect(again).toEqual(first)
    expect(first.etag).toMatch(/-2"?$/)
    // Without them, nothing shows that the object at the key is this upload's.
    await problem(await call('/v1/uploads/multipart/complete', { origin: 'e2e', ...ref }), 404)
  })

  it('stays 404 for an upload whose tag the object at its key does not carry', async () => {
    const key = `${ROOT}/big/earlier.bin`
    const data = new Uint8Array(5 * MIB + 7).fill(5)
    const { parts: earlierParts, ...earlier } = await sentUpload(key, data)
    await ok('/v1/uploads/multipart/complete', earlier)
    // Same key, size and type, created (by the clock) after that object, then aborted.
    const response = await later.request(
      '/v1/uploads',
      postJson(
        {
          origin: 'e2e',
          mode: 'multipart',
          key,
          contentType: 'application/octet-stream',
          contentLength: data.length,
        },
        KEYS.up,
      ),
      env,
    )
    const { uploadId } = await response.json<Multipart>()
    const ref = { origin: 'e2e', key, uploadId }
    expect((await call('/v1/uploads/multipart/abort', ref)).status).toBe(204)
    await problem(await call('/v1/uploads/multipart/complete', ref), 404)
    // Even naming the parts of the object that is there: another upload stored it.
    await problem(
      await call('/v1/uploads/multipart/complete', { ...ref, parts: earlierParts }),
      404,
    )
  })

  it('stays 404 for an aborted upload, even where a single PUT left an object of its size', async () => {
    const key = `${ROOT}/big/aborted.bin`
    const data = new Uint8Array(5 * MIB + 7).fill(9)
    const { parts, ...ref } = await sentUpload(key, data)
    expect((await call('/v1/uploads/multipart/abort', { origin: 'e2e', ...ref })).status).toBe(204)
    const single = await ok<Put>('/v1/uploads', {
      key,
      contentType: 'application/octet-stream',
      contentLength: data.length,
    })
    expect((await put(single, data)).status).toBe(200)
    // Even naming its parts: the single PUT's object is not what they make.
    const gone = await problem(
      await call('/v1/uploads/multipart/complete', { origin: 'e2e', ...ref, parts }),
      404,
    )
    expect(gone.detail).toContain('NoSuchUpload')
  })
})

describe('the completion check of a PUT or POST upload', () => {
  it('answers the stored object when it is what was signed, checksum included', async () => {
    const body = new TextEncoder().encode('checked body')
    const checksumSha256 = await sha256Base64(body)
    const upload = await ok<Put>('/v1/uploads', {
      key: `${ROOT}/small/checked.txt`,
      contentType: 'text/plain',
      contentLength: body.length,
      checksumSha256,
    })
    const check = { origin: 'e2e', key: upload.key, receipt: upload.receipt }
    const missing = await problem(await call('/v1/uploads/complete', check), 404)
    expect(missing.errors.map((e) => e.path)).toEqual(['key'])
    expect((await put(upload, body)).status).toBe(200)
    const done = await ok<Record<string, unknown>>('/v1/uploads/complete', check)
    expect(done).toMatchObject({
      key: upload.key,
      size: body.length,
      contentType: 'text/plain',
      mode: 'put',
    })
    expect(typeof done.etag).toBe('string')
    expect(done.checksumSha256).toBe(checksumSha256)
    // The same size and type written around the URL: without the upload's tag, it is not this
    // upload's object.
    await store.fetch(objectUrl(upload.key), {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: 'CHECKED BODY',
    })
    const swapped = await problem(await call('/v1/uploads/complete', check), 422)
    expect(swapped.errors.map((e) => e.path)).toEqual(['key'])
    // The object is not this upload's: it was neither passed nor deleted.
    expect(await (await stored(upload.key)).text()).toBe('CHECKED BODY')
  })

  it('checks a POST upload against the most its policy admitted', async () => {
    const upload = await ok<Post>('/v1/uploads', {
      mode: 'post',
      overwrite: true,
      key: `${ROOT}/small/form.png`,
      contentType: 'image/png',
    })
    const png = new Blob([new Uint8Array(300).fill(2)], { type: 'image/png' })
    const sent = await postForm(upload.url, form(upload.fields, png))
    expect(sent.status).toBe(204)
    // No checksum was signed: the ETag the store answered names the upload's bytes.
    const done = await ok<{ size: number; contentType: string }>('/v1/uploads/complete', {
      key: upload.key,
      receipt: upload.receipt,
      etag: sent.headers.get('etag'),
    })
    expect(done).toMatchObject({ size: 300, contentType: 'image/png' })
  })

  it('never passes nor deletes an object another upload stored', async () => {
    const upload = await ok<Put>('/v1/uploads', {
      key: `${ROOT}/small/swapped.txt`,
      contentType: 'text/plain',
      contentLength: 5,
    })
    const mine = await put(upload, 'abcde')
    expect(mine.status).toBe(200)
    // Something other than the signed URL replaced it: another size and type.
    const written = await store.fetch(objectUrl(upload.key), {
      method: 'PUT',
      headers: { 'content-type': 'text/html' },
      body: '<script>1</script>',
    })
    expect(written.status).toBe(200)
    const check = { key: upload.key, receipt: upload.receipt, etag: mine.headers.get('etag') }
    const body = await problem(await call('/v1/uploads/complete', { origin: 'e2e', ...check }), 422)
    expect(body.type).toBe('urn:waybill:problem:upload_mismatch')
    expect(body.errors.map((e) => e.path)).toEqual(['key'])
    // The grant says deleteMismatched, but this is not this upload's object: it stays.
    expect(await (await stored(upload.key)).text()).toBe('<script>1</script>')
  })

  it("names each difference of this upload's bytes, and deletes them where the grant says so", async () => {
    const upload = await ok<Put>('/v1/uploads', {
      key: `${ROOT}/small/differs.txt`,
      contentType: 'text/plain',
      contentLength: 5,
    })
    // A store that ignored what the URL signed but kept its metadata: the upload's own bytes
    // (they carry its tag) are another size and type.
    const written = await store.fetch(objectUrl(upload.key), {
      method: 'PUT',
      headers: { 'content-type': 'text/html', ...tagOf(upload) },
      body: '<script>1</script>',
    })
    const body = await problem(
      await call('/v1/uploads/complete', {
        origin: 'e2e',
        key: upload.key,
        receipt: upload.receipt,
        etag: written.headers.get('etag'),
      }),
      422,
    )
    expect(body.type).toBe('urn:waybill:problem:upload_mismatch')
    expect(body.errors.map((e) => e.path)).toEqual(['size', 'contentType'])
    expect(body.errors[0]!.message).toBe('is 18 bytes; the upload was signed for exactly 5')
    expect(body.detail).toMatch(/It has been deleted\.$/)
    expect((await stored(upload.key)).status).toBe(404)
  })

  it('keeps the object where no grant says to delete it', async () => {
    const key = `${ROOT}/kept/x.bin`
    const upload = await ok<Put>('/v1/uploads', {
      origin: 'keep',
      key,
      contentType: 'application/octet-stream',
      contentLength: 2,
    })
    // As above: the upload's own bytes (its tag), not what was signed.
    const written = await store.fetch(objectUrl(key), {
      method: 'PUT',
      headers: tagOf(upload),
      body: 'three',
    })
    const body = await problem(
      await call('/v1/uploads/complete', {
        origin: 'keep',
        key,
        receipt: upload.receipt,
        etag: written.headers.get('etag'),
      }),
      422,
    )
    expect(body.detail).not.toMatch(/deleted/)
    // No grant lets this caller read the key: it learns that the object differs, not how.
    expect(body.errors).toEqual([
      { path: 'size', message: 'differs' },
      { path: 'contentType', message: 'differs' },
    ])
    expect((await stored(key)).status).toBe(200)
  })

  it('passes or deletes only what its own upload stored', async () => {
    const key = `${ROOT}/small/older.txt`
    const first = await ok<Put>('/v1/uploads', { key, contentType: 'text/plain', contentLength: 3 })
    const sent = await put(first, 'abc')
    expect(sent.status).toBe(200)
    // A receipt issued after that object was stored, for another size: never used to upload.
    const response = await later.request(
      '/v1/uploads',
      postJson({ origin: 'e2e', key, contentType: 'text/plain', contentLength: 9 }, KEYS.up),
      env,
    )
    const { receipt } = await response.json<Put>()
    const etag = sent.headers.get('etag')
    const stale = await problem(
      await call('/v1/uploads/complete', { origin: 'e2e', key, receipt, etag }),
      422,
    )
    expect(stale.errors.map((e) => e.path)).toEqual(['key'])
    // The grant says deleteMismatched, yet the object is not this receipt's upload: it stays.
    expect(await (await stored(key)).text()).toBe('abc')
  })

  it("refuses another caller's receipt and a receipt for another key", async () => {
    const upload = await ok<Put>('/v1/uploads', {
      key: `${ROOT}/small/mine.txt`,
      contentType: 'text/plain',
      contentLength: 1,
    })
    const check = { origin: 'e2e', key: upload.key, receipt: upload.receipt }
    const other = await problem(await call('/v1/uploads/complete', check, KEYS.other), 403)
    expect(other.errors.map((e) => e.path)).toEqual(['receipt'])
    const moved = await problem(
      // As a multipart handle, a receipt vouches for its own key: another key is a 403.
      await call('/v1/uploads/complete', { ...check, key: `${ROOT}/small/yours.txt` }),
      403,
    )
    expect(moved.errors.map((e) => e.path)).toEqual(['key'])
    // "keep" is the same bucket with the same credentials: the receipt is still e2e's only.
    const elsewhere = await problem(
      await call('/v1/uploads/complete', { ...check, origin: 'keep' }),
      403,
    )
    expect(elsewhere.errors.map((e) => e.path)).toEqual(['receipt'])
  })
})

describe('notifications of checked uploads', () => {
  const receiver = inject('webhook')

  /** The app with a webhook (the test's receiver) and a queue that records what it is sent. */
  function notifying() {
    const sent: unknown[] = []
    const notifyEnv: Env = {
      ...env,
      WAYBILL_WEBHOOK_URL: `${receiver.baseUrl}/hooks/flows`,
      WAYBILL_WEBHOOK_SECRET: receiver.secret,
      WAYBILL_UPLOAD_QUEUE: {
        send: (body: unknown) => {
          sent.push(body)
          return Promise.resolve()
        },
      },
    }
    const ctx = createExecutionContext()
    const request = (path: string, body: unknown) =>
      app.request(path, postJson({ origin: 'e2e', ...(body as object) }, KEYS.up), notifyEnv, ctx)
    return { sent, ctx, request }
  }

  async function deliveries(): Promise<WebhookRecord[]> {
    return (await fetch(`${receiver.baseUrl}/events`)).json()
  }

  it('sends a verified upload.completed to the webhook and the queue, after the answer', async () => {
    const { sent, ctx, request } = notifying()
    const issued = await request('/v1/uploads', {
      key: `${ROOT}/small/announced.txt`,
      contentType: 'text/plain',
      contentLength: 4,
    })
    const upload = await issued.json<Put>()
    const sentPut = await put(upload, 'news')
    expect(sentPut.status).toBe(200)
    const checked = await request('/v1/uploads/complete', {
      key: upload.key,
      receipt: upload.receipt,
      etag: sentPut.headers.get('etag'),
    })
    expect(checked.status).toBe(200)
    await waitOnExecutionContext(ctx)

    expect(sent).toHaveLength(1)
    const event = sent[0] as { id: string; type: string; data: Record<string, unknown> }
    expect(event).toMatchObject({
      type: 'upload.completed',
      data: {
        origin: 'e2e',
        key: upload.key,
        size: 4,
        contentType: 'text/plain',
        mode: 'put',
        principal: 'apiKey:up',
      },
    })
    const record = (await deliveries()).find((delivery) => delivery.id === event.id)
    expect(record?.verified).toBe(true)
    expect(JSON.parse(record!.body)).toMatchObject({ type: 'upload.completed', data: event.data })
  })

  it('announces a completed multipart upload, and nothing for a refused check', async () => {
    const { sent, ctx, request } = notifying()
    const data = new Uint8Array(5 * MIB + 3)
    const upload = await (
      await request('/v1/uploads', {
        mode: 'multipart',
        key: `${ROOT}/big/announced.bin`,
        contentType: 'application/octet-stream',
        contentLength: data.length,
      })
    ).json<Multipart>()
    const parts: { partNumber: number; etag: string }[] = []
    for (const part of upload.parts) {
      const body = data.slice(
        (part.partNumber - 1) * upload.partSize,
        part.partNumber * upload.partSize,
      )
      const sent = await fetch(part.url, { method: 'PUT', body })
      expect(sent.status).toBe(200)
      parts.push({ partNumber: part.partNumber, etag: sent.headers.get('etag')! })
    }
    const done = await request('/v1/uploads/multipart/complete', {
      key: upload.key,
      uploadId: upload.uploadId,
    })
    expect(done.status).toBe(200)
    // A repeated complete (its first answer lost) answers again, announced under the same id.
    const again = await request('/v1/uploads/multipart/complete', {
      key: upload.key,
      uploadId: upload.uploadId,
      parts,
    })
    expect(again.status).toBe(200)
    const refused = await request('/v1/uploads/complete', {
      key: `${ROOT}/small/none.txt`,
      etag: '"0"',
      receipt: (
        await (
          await request('/v1/uploads', {
            key: `${ROOT}/small/none.txt`,
            contentType: 'text/plain',
            contentLength: 1,
          })
        ).json<Put>()
      ).receipt,
    })
    expect(refused.status).toBe(404)
    await waitOnExecutionContext(ctx)
    expect(sent).toHaveLength(2)
    expect(sent[0]).toMatchObject({
      data: { key: upload.key, size: data.length, mode: 'multipart' },
    })
    const [first, second] = sent as { id: string; data: unknown }[]
    expect(second!.id).toBe(first!.id)
    expect(second!.data).toEqual(first!.data)
  })
})
