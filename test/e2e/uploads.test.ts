// POST /v1/uploads against versitygw: exact PUT URLs, POST policies and multipart uploads, each
// accepted when used as issued and rejected by the store when anything differs.

import { beforeAll, describe, expect, inject, it } from 'vitest'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { form, postForm } from '../helpers/forms'
import { sha256Base64, sha256Hex } from '../helpers/hex'
import { postJson } from '../helpers/requests'
import { apiKeysBinding } from '../helpers/api-keys'
import { e2eOrigin, objectUrl, store, workerEnv } from '../helpers/worker-env'

const s3 = inject('s3')
const app = createApp()
const ROOT = `up-${crypto.randomUUID().slice(0, 8)}`
const API_KEY = 'wb_test_uploads_0123456789'
const MAX_BYTES = 1024
const MIB = 1024 * 1024

let uploadEnv: Env

beforeAll(async () => {
  const origin = e2eOrigin()
  const safe = { ...origin, keys: 'safe' }
  uploadEnv = {
    ...workerEnv,
    WAYBILL_ORIGINS: JSON.stringify({
      // Prefix grants need the safe key policy; "open" signs any key, under a whole-bucket grant.
      e2e: safe,
      open: origin,
      r2like: { ...safe, postPolicy: false },
    }),
    WAYBILL_API_KEYS: await apiKeysBinding([{ id: 'up', key: API_KEY }]),
    WAYBILL_GRANTS: JSON.stringify([
      // Small files of a few types under small/, anything under big/.
      {
        to: 'apiKey:up',
        origin: 'e2e',
        prefix: `${ROOT}/small/`,
        actions: ['write', 'read'],
        contentTypes: ['image/*', 'text/plain'],
        maxContentLength: MAX_BYTES,
        // POST forms cannot refuse to replace an object; PUTs still refuse unless asked.
        overwrite: true,
      },
      { to: 'apiKey:up', origin: 'e2e', prefix: `${ROOT}/big/`, actions: ['write', 'read'] },
      { to: 'apiKey:up', origin: 'r2like', prefix: `${ROOT}/`, actions: ['write'] },
      {
        to: 'apiKey:up',
        origin: 'open',
        actions: ['write'],
        contentTypes: ['image/*'],
        maxContentLength: MAX_BYTES,
        overwrite: true,
      },
    ]),
  }
})

async function call(path: string, body: unknown): Promise<Response> {
  return app.request(path, postJson(body, API_KEY), uploadEnv)
}

async function issue<T>(body: Record<string, unknown>, path = '/v1/uploads'): Promise<T> {
  const response = await call(path, { origin: 'e2e', ...body })
  expect(response.status, await response.clone().text()).toBe(200)
  return await response.json<T>()
}

interface PutUpload {
  method: 'PUT'
  url: string
  headers: Record<string, string>
  expiresAt: string
}

interface PostUpload {
  method: 'POST'
  url: string
  fields: Record<string, string>
}

interface MultipartUpload {
  uploadId: string
  partSize: number
  partCount: number
  parts: { partNumber: number; url: string }[]
}

async function stored(key: string): Promise<Response> {
  return store.fetch(objectUrl(key))
}

/** `headers` less the one called `name`. */
function without(headers: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([n]) => n !== name))
}

/** Sends `headers` as a browser would: Content-Length comes from the body. */
function put(upload: PutUpload, body: BodyInit, headers = upload.headers): Promise<Response> {
  return fetch(upload.url, { method: 'PUT', headers: without(headers, 'content-length'), body })
}

describe('PUT uploads', () => {
  const text = 'hello from a browser upload\n'

  it('works with exactly the returned headers, and pins type, length and metadata', async () => {
    const key = `${ROOT}/small/hello.txt`
    const upload = await issue<PutUpload>({
      key,
      contentType: 'text/plain',
      contentLength: text.length,
      metadata: { caption: 'a caption' },
    })
    expect(upload.headers).toEqual({
      'content-type': 'text/plain',
      'content-length': String(text.length),
      'if-none-match': '*',
      'x-amz-meta-caption': 'a caption',
      // The upload's tag, which binds its receipt to what it stores.
      'x-amz-meta-waybill-upload': expect.stringMatching(/^[\w-]{22}$/) as string,
    })
    expect(new URL(upload.url).searchParams.get('X-Amz-SignedHeaders')).toBe(
      'content-length;content-type;host;if-none-match;x-amz-meta-caption;x-amz-meta-waybill-upload',
    )
    const response = await put(upload, text)
    expect(response.status, await response.text()).toBe(200)
    const back = await stored(key)
    expect(await back.text()).toBe(text)
    expect(back.headers.get('content-type')).toBe('text/plain')
    expect(back.headers.get('x-amz-meta-caption')).toBe('a caption')
  })

  it('is rejected with another Content-Type, another length or missing metadata', async () => {
    const key = `${ROOT}/small/strict.txt`
    const upload = await issue<PutUpload>({
      key,
      contentType: 'text/plain',
      contentLength: text.length,
      metadata: { caption: 'x' },
    })
    const otherType = await put(upload, text, { ...upload.headers, 'content-type': 'text/html' })
    expect(otherType.status).toBe(403)
    const longer = await put(upload, text + '!')
    expect(longer.status).toBe(403)
    const withoutMeta = without(upload.headers, 'x-amz-meta-caption')
    expect((await put(upload, text, withoutMeta)).status).toBe(403)
    expect((await stored(key)).status).toBe(404)
  })

  it('checks a supplied SHA-256 checksum', async () => {
    const body = new TextEncoder().encode('checksummed body')
    const good = await issue<PutUpload>({
      key: `${ROOT}/small/sum.txt`,
      contentType: 'text/plain',
      contentLength: body.length,
      checksumSha256: await sha256Base64(body),
    })
    expect(good.headers['x-amz-checksum-sha256']).toBe(await sha256Base64(body))
    expect((await put(good, body)).status).toBe(200)

    const wrong = await issue<PutUpload>({
      key: `${ROOT}/small/badsum.txt`,
      contentType: 'text/plain',
      contentLength: body.length,
      checksumSha256: await sha256Base64(new TextEncoder().encode('another body')),
    })
    const response = await put(wrong, body)
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(await response.text()).toMatch(/BadDigest|checksum/i)
    expect((await stored(`${ROOT}/small/badsum.txt`)).status).toBe(404)
  })

  it('never replaces an existing object by default: the store answers 412', async () => {
    const key = `${ROOT}/small/once.txt`
    const request = { key, contentType: 'text/plain', contentLength: 5 }
    const first = await issue<PutUpload>(request)
    expect(first.headers['if-none-match']).toBe('*')
    expect((await put(first, 'first')).status).toBe(200)
    const second = await issue<PutUpload>(request)
    expect((await put(second, 'again')).status).toBe(412)
    // Without the header the signature does not match: it cannot be left out.
    expect((await put(second, 'again', without(second.headers, 'if-none-match'))).status).toBe(403)
    expect(await (await stored(key)).text()).toBe('first')
    // Asked for, where a grant allows it, the upload replaces the object.
    const replace = await issue<PutUpload>({ ...request, overwrite: true })
    expect(replace.headers['if-none-match']).toBeUndefined()
    expect((await put(replace, 'third')).status).toBe(200)
    expect(await (await stored(key)).text()).toBe('third')
  })
})

describe('POST policy uploads', () => {
  const png = new Blob([new Uint8Array(200).fill(7)], { type: 'image/png' })

  it('accepts a good form (204 by default, 201 when asked)', async () => {
    const key = `${ROOT}/small/form.png`
    const post = await issue<PostUpload>({
      mode: 'post',
      overwrite: true,
      key,
      contentType: 'image/png',
    })
    expect(post.url).toBe(`${s3.endpoint}/${s3.bucket}/`)
    const response = await postForm(post.url, form(post.fields, png))
    expect(response.status, await response.text()).toBe(204)
    expect((await (await stored(key)).arrayBuffer()).byteLength).toBe(200)

    const created = await issue<PostUpload>({
      mode: 'post',
      overwrite: true,
      key: `${ROOT}/small/created.png`,
      contentType: 'image/png',
      successActionStatus: 201,
    })
    const answer = await postForm(created.url, form(created.fields, png))
    expect(answer.status, await answer.text()).toBe(201)
  })

  it('rejects a file over the grant, another key, and a wrong type', async () => {
    const key = `${ROOT}/small/alice/a.png`
    const post = await issue<PostUpload>({
      mode: 'post',
      overwrite: true,
      key,
      contentType: 'image/png',
    })
    const big = new Blob([new Uint8Array(MAX_BYTES + 1)], { type: 'image/png' })
    const tooBig = await postForm(post.url, form(post.fields, big))
    expect(tooBig.status).toBe(400)
    expect(await tooBig.text()).toMatch(/EntityTooLarge/)

    const other = await postForm(post.url, form(post.fields, png, { key: `${ROOT}/small/b.png` }))
    expect(other.status).toBe(403)

    const html = await postForm(post.url, form(post.fields, png, { 'Content-Type': 'text/html' }))
    expect(html.status).toBe(403)

    expect((await postForm(post.url, form(post.fields, png))).status).toBe(204)
    expect((await stored(key)).status).toBe(200)
    expect((await stored(`${ROOT}/small/b.png`)).status).toBe(404)
  })

  it('lets a form choose any key under keyPrefix where a grant covers the whole bucket', async () => {
    const post = await issue<PostUpload>({
      origin: 'open',
      mode: 'post',
      overwrite: true,
      keyPrefix: `${ROOT}/open/`,
      contentType: 'image/png',
    })
    expect(post.fields.key).toBe(`${ROOT}/open/\${filename}`)
    // S3 also fills in "${filename}"; versitygw does not. The type is the exact one signed.
    const send = (key: string, type: string) =>
      postForm(post.url, form(post.fields, png, { key, 'Content-Type': type }))
    expect((await send(`${ROOT}/open/a.png`, 'image/png')).status).toBe(204)
    expect((await stored(`${ROOT}/open/a.png`)).status).toBe(200)
    expect((await send(`${ROOT}/x.png`, 'image/png')).status).toBe(403)
    expect((await send(`${ROOT}/open/b.html`, 'text/html')).status).toBe(403)
  })
})

describe('multipart uploads', () => {
  it('round-trips a 12 MiB file in 3 parts byte for byte', async () => {
    const key = `${ROOT}/big/movie.bin`
    const data = new Uint8Array(12 * MIB)
    for (let i = 0; i < data.length; i += 4096) data[i] = (i / 4096) % 251
    const upload = await issue<MultipartUpload>({
      mode: 'multipart',
      key,
      contentType: 'application/octet-stream',
      contentLength: data.length,
    })
    expect(upload.partSize).toBe(5 * MIB)
    expect(upload.partCount).toBe(3)
    expect(upload.parts.map((p) => p.partNumber)).toEqual([1, 2, 3])

    // Part 3's URL again through the follow-up route.
    const more = await issue<{ parts: { partNumber: number; url: string }[] }>(
      { key, uploadId: upload.uploadId, partNumbers: [3] },
      '/v1/uploads/multipart/parts',
    )
    const urls = [upload.parts[0]!.url, upload.parts[1]!.url, more.parts[0]!.url]
    const parts = []
    for (let n = 1; n <= 3; n++) {
      const slice = data.slice((n - 1) * upload.partSize, n * upload.partSize)
      const response = await fetch(urls[n - 1]!, { method: 'PUT', body: slice })
      expect(response.status, await response.clone().text()).toBe(200)
      parts.push({ partNumber: n, etag: response.headers.get('etag')! })
    }
    const done = await issue<{ key: string; etag: string }>(
      { key, uploadId: upload.uploadId, parts },
      '/v1/uploads/multipart/complete',
    )
    expect(done.key).toBe(key)
    const back = new Uint8Array(await (await stored(key)).arrayBuffer())
    expect(back.length).toBe(data.length)
    expect(await sha256Hex(back)).toBe(await sha256Hex(data))
  })

  it('completes parts named in any order and once or more; a part not as stored is a 409', async () => {
    const key = `${ROOT}/big/unordered.bin`
    const data = new Uint8Array(6 * MIB).fill(7)
    const upload = await issue<MultipartUpload>({
      mode: 'multipart',
      key,
      contentType: 'application/octet-stream',
      contentLength: data.length,
    })
    const parts: { partNumber: number; etag: string }[] = []
    for (const { partNumber, url } of upload.parts) {
      const slice = data.slice((partNumber - 1) * upload.partSize, partNumber * upload.partSize)
      const response = await fetch(url, { method: 'PUT', body: slice })
      expect(response.status, await response.clone().text()).toBe(200)
      parts.push({ partNumber, etag: response.headers.get('etag')! })
    }
    const complete = (named: typeof parts) =>
      call('/v1/uploads/multipart/complete', {
        origin: 'e2e',
        key,
        uploadId: upload.uploadId,
        parts: named,
      })
    // Part 1 named again with another ETag: the store's listing refuses the one that is not it.
    const other = await complete([parts[0]!, { partNumber: 1, etag: '"0"' }, parts[1]!])
    expect(other.status).toBe(409)
    expect((await other.json<{ errors: { path: string }[] }>()).errors).toEqual([
      { path: 'parts.1.etag', message: 'is not the ETag of the uploaded part' },
    ])
    // The same part twice is that part; the order is waybill's to make.
    const done = await complete([parts[1]!, parts[0]!, parts[1]!])
    expect(done.status, await done.clone().text()).toBe(200)
    expect(await sha256Hex(new Uint8Array(await (await stored(key)).arrayBuffer()))).toBe(
      await sha256Hex(data),
    )
  })

  it('refuses checksums that do not pair with partNumbers', async () => {
    const key = `${ROOT}/big/checksummed.bin`
    const first = await sha256Base64(new Uint8Array(5 * MIB))
    const upload = await issue<MultipartUpload>({
      mode: 'multipart',
      key,
      contentType: 'application/octet-stream',
      contentLength: 6 * MIB,
      partSize: 5 * MIB,
      partChecksums: [first],
    })
    const response = await call('/v1/uploads/multipart/parts', {
      origin: 'e2e',
      key,
      uploadId: upload.uploadId,
      partNumbers: [1, 2],
      checksums: [first],
    })
    // Checked against the upload, which signs each part's SHA-256: a conflict with it (409).
    expect(response.status).toBe(409)
    expect((await response.json<{ errors: { path: string }[] }>()).errors).toEqual([
      {
        path: 'checksums',
        message:
          "must hold one checksum per entry of partNumbers, in the same order: this upload signs each part's SHA-256",
      },
    ])
    await call('/v1/uploads/multipart/abort', { origin: 'e2e', key, uploadId: upload.uploadId })
  })

  it('refuses a tampered part URL', async () => {
    // 5 MiB + 100 bytes: part 2 is small, so the store reads the whole body before answering.
    const upload = await issue<MultipartUpload>({
      mode: 'multipart',
      key: `${ROOT}/big/tampered.bin`,
      contentType: 'application/octet-stream',
      contentLength: 5 * MIB + 100,
    })
    const body = new Uint8Array(100)
    const url = upload.parts[1]!.url
    const tamperings = [
      (u: URL) => u.searchParams.set('partNumber', '1'),
      (u: URL) => u.searchParams.set('uploadId', `${u.searchParams.get('uploadId')}x`),
      (u: URL) => u.searchParams.set('X-Amz-Expires', '604800'),
      (u: URL) => u.searchParams.set('X-Amz-Signature', '0'.repeat(64)),
    ]
    for (const tamper of tamperings) {
      const tampered = new URL(url)
      tamper(tampered)
      const response = await fetch(tampered, { method: 'PUT', body })
      expect(response.status, tampered.search).toBe(403)
    }
    expect((await fetch(url, { method: 'PUT', body })).status).toBe(200)
    await call('/v1/uploads/multipart/abort', {
      origin: 'e2e',
      key: `${ROOT}/big/tampered.bin`,
      uploadId: upload.uploadId,
    })
  })

  it('abort leaves no upload behind, and completing it afterwards is a problem saying so', async () => {
    const key = `${ROOT}/big/aborted.bin`
    const upload = await issue<MultipartUpload>({
      mode: 'multipart',
      key,
      contentType: 'application/octet-stream',
      contentLength: 6 * MIB,
    })
    const inProgress = async () => {
      const xml = await (
        await store.fetch(`${s3.endpoint}/${s3.bucket}/?uploads&prefix=${encodeURIComponent(key)}`)
      ).text()
      return xml.includes('<UploadId>')
    }
    expect(await inProgress()).toBe(true)
    const abort = await call('/v1/uploads/multipart/abort', {
      origin: 'e2e',
      key,
      uploadId: upload.uploadId,
    })
    expect(abort.status).toBe(204)
    expect(await inProgress()).toBe(false)
    const complete = await call('/v1/uploads/multipart/complete', {
      origin: 'e2e',
      key,
      uploadId: upload.uploadId,
      parts: [{ partNumber: 1, etag: '"abc"' }],
    })
    // versitygw v1.8.0 (the pinned one) says NoSuchUpload, as S3 does; test/store/xml.test.ts
    // checks the status each store code maps to (InvalidPart: 400).
    expect(complete.status).toBe(404)
    expect(complete.headers.get('content-type')).toBe('application/problem+json')
    expect((await complete.json<{ detail: string }>()).detail).toMatch(
      /refused by the store: NoSuchUpload/,
    )
  })
})

describe('bad upload requests', () => {
  const cases: Array<[string, Record<string, unknown>, number, string]> = [
    ['missing contentType', { key: `${ROOT}/small/a.txt` }, 400, 'contentType'],
    [
      'size over the grant',
      { key: `${ROOT}/small/a.txt`, contentType: 'text/plain', contentLength: MAX_BYTES + 1 },
      400,
      'contentLength',
    ],
    [
      'PUT without a length where the grant limits size',
      { key: `${ROOT}/small/a.txt`, contentType: 'text/plain' },
      400,
      'contentLength',
    ],
    [
      'a type the grant does not allow',
      { key: `${ROOT}/small/a.html`, contentType: 'text/html', contentLength: 5 },
      400,
      'contentType',
    ],
    ['key outside the prefix', { key: 'elsewhere/a.txt', contentType: 'text/plain' }, 403, 'key'],
    [
      'POST on an origin without POST',
      {
        origin: 'r2like',
        mode: 'post',
        overwrite: true,
        key: `${ROOT}/a.png`,
        contentType: 'image/png',
      },
      400,
      'mode',
    ],
    [
      'multipart without a length',
      { mode: 'multipart', key: `${ROOT}/big/x`, contentType: 'text/plain' },
      400,
      'contentLength',
    ],
    [
      'a part size under 5 MiB',
      {
        mode: 'multipart',
        key: `${ROOT}/big/x`,
        contentType: 'text/plain',
        contentLength: 9,
        partSize: 1024,
      },
      400,
      'partSize',
    ],
    [
      'a malformed checksum',
      { key: `${ROOT}/big/x`, contentType: 'text/plain', checksumSha256: 'abc' },
      400,
      'checksumSha256',
    ],
  ]
  for (const [name, body, status, path] of cases) {
    it(`${name} → ${status} naming ${path}`, async () => {
      const response = await call('/v1/uploads', { origin: 'e2e', ...body })
      expect(response.status).toBe(status)
      expect(response.headers.get('content-type')).toBe('application/problem+json')
      const problem = await response.json<{ errors: { path: string }[] }>()
      expect(problem.errors.map((e) => e.path)).toContain(path)
    })
  }
})
