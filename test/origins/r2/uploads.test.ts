// Uploads to an R2 origin through the Worker: a PUT stores only what was signed (its length, its
// checksum), a form only what its policy allows, a multipart upload resumes from the parts the
// Worker recorded; and what follows an upload (the completion check) works as for S3.

import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../../src/app'
import type { Env } from '../../../src/env'
import { form } from '../../helpers/forms'
import { sha256Base64 } from '../../helpers/hex'
import { apiCall, browserRequest, r2Bucket, r2Env } from '../../helpers/r2'

const KEY = `wb_test_r2_uploads_${crypto.randomUUID()}`
const FOLDER = `r2-uploads-${crypto.randomUUID().slice(0, 8)}/`
const MIB = 1024 * 1024
const app = createApp()
let env: Env

beforeAll(async () => {
  env = await r2Env(KEY, {}, { overwrite: true })
})

const bytes = (text: string) => new TextEncoder().encode(text)
const stored = async (key: string) => (await r2Bucket().get(key))?.text()

async function ok<T>(path: string, body: unknown): Promise<T> {
  const response = await apiCall(app, env, KEY, path, body)
  expect(response.status, await response.clone().text()).toBe(200)
  return response.json<T>()
}

interface Put {
  url: string
  headers: Record<string, string>
  receipt: string
}

describe('a PUT stores only what its URL signed', () => {
  it('stores nothing for a body beyond (or short of) its signed size', async () => {
    const key = `${FOLDER}sized.txt`
    const put = await ok<Put>('/v1/uploads', {
      origin: 'media',
      key,
      contentType: 'text/plain',
      contentLength: 5,
    })
    for (const body of ['hello!', 'hell']) {
      const refused = await browserRequest(app, env, put.url, {
        method: 'PUT',
        headers: put.headers,
        body,
      })
      expect(refused.status, body).toBe(400)
      expect((await refused.json<{ errors: { path: string }[] }>()).errors[0]!.path).toBe(
        'Content-Length',
      )
      expect(await stored(key)).toBeUndefined()
    }
    // A body that runs past the Content-Length it declares: cut off, nothing stored.
    const overrun = await browserRequest(app, env, put.url, {
      method: 'PUT',
      headers: { ...put.headers, 'content-length': '5' },
      body: 'hello, and more',
    })
    expect(overrun.status).toBe(400)
    expect(await stored(key)).toBeUndefined()
    const sent = await browserRequest(app, env, put.url, {
      method: 'PUT',
      headers: put.headers,
      body: 'hello',
    })
    expect(sent.status).toBe(200)
    expect(sent.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/)
    expect(await stored(key)).toBe('hello')
  })

  it('stores nothing when the bytes are not the signed SHA-256, nor with another type', async () => {
    const key = `${FOLDER}checked.txt`
    const put = await ok<Put>('/v1/uploads', {
      origin: 'media',
      key,
      contentType: 'text/plain',
      contentLength: 5,
      checksumSha256: await sha256Base64(bytes('hello')),
    })
    const wrong = await browserRequest(app, env, put.url, {
      method: 'PUT',
      headers: put.headers,
      body: 'HELLO',
    })
    expect(wrong.status).toBe(400)
    expect((await wrong.json<{ errors: { path: string }[] }>()).errors[0]!.path).toBe('body')
    expect(await stored(key)).toBeUndefined()
    const retyped = await browserRequest(app, env, put.url, {
      method: 'PUT',
      headers: { 'content-type': 'text/html' },
      body: 'hello',
    })
    expect(retyped.status).toBe(400)
    expect(await stored(key)).toBeUndefined()
    expect(
      (
        await browserRequest(app, env, put.url, {
          method: 'PUT',
          headers: put.headers,
          body: 'hello',
        })
      ).status,
    ).toBe(200)
    // The completion check reads it back by its tag, as for S3.
    const checked = await ok<{ size: number; checksumSha256: string }>('/v1/uploads/complete', {
      origin: 'media',
      key,
      receipt: put.receipt,
    })
    expect(checked).toMatchObject({ size: 5, checksumSha256: await sha256Base64(bytes('hello')) })
  })

  it('needs a Content-Length, and keeps within the Worker’s request body limit', async () => {
    const limited = await r2Env(KEY, { maxBodyBytes: 1000 }, { overwrite: true })
    const refused = await apiCall(app, limited, KEY, '/v1/uploads', {
      origin: 'media',
      key: `${FOLDER}big.bin`,
      contentType: 'application/octet-stream',
      contentLength: 2000,
    })
    expect(refused.status).toBe(400)
    expect((await refused.json<{ errors: { path: string }[] }>()).errors[0]!.path).toBe(
      'contentLength',
    )
    const put = await ok<Put>('/v1/uploads', {
      origin: 'media',
      key: `${FOLDER}unsized.txt`,
      contentType: 'text/plain',
      contentLength: 3,
    })
    const chunked = await app.request(
      put.url,
      {
        method: 'PUT',
        headers: put.headers,
        body: new Blob(['abc']).stream(),
        duplex: 'half',
      } as RequestInit,
      env,
    )
    expect(chunked.status).toBe(411)
  })
})

describe('a form stores only what its policy allows', () => {
  const issue = (body: Record<string, unknown> = {}) =>
    ok<{ url: string; fields: Record<string, string> }>('/v1/uploads', {
      origin: 'media',
      mode: 'post',
      overwrite: true,
      key: `${FOLDER}form.txt`,
      contentType: 'text/plain',
      contentLength: 4,
      ...body,
    })
  const post = async (url: string, data: ReturnType<typeof form>) => {
    const { body, headers } = await data
    return browserRequest(app, env, url, { method: 'POST', headers, body })
  }

  it('refuses a form outside its policy, storing nothing', async () => {
    const { url, fields } = await issue()
    const file = new Blob([bytes('form')])
    const cases: [string, ReturnType<typeof form>][] = [
      ['another key', form(fields, file, { key: `${FOLDER}elsewhere.txt` })],
      ['another type', form(fields, file, { 'Content-Type': 'text/html' })],
      ['another size', form(fields, new Blob([bytes('form!')]))],
      ['an extra field', form(fields, file, { 'x-amz-meta-extra': 'yes' })],
      ['its tag changed', form(fields, file, { 'x-amz-meta-waybill-upload': 'x'.repeat(22) })],
      ['a policy changed', form(fields, file, { policy: `${fields.policy!.slice(0, -2)}AA` })],
    ]
    for (const [what, data] of cases) {
      const refused = await post(url, data)
      expect(refused.status, what).toBe(403)
      expect(await stored(`${FOLDER}form.txt`), what).toBeUndefined()
      expect(await stored(`${FOLDER}elsewhere.txt`), what).toBeUndefined()
    }
    const accepted = await post(url, form(fields, file))
    expect(accepted.status).toBe(204)
    expect(accepted.headers.get('etag')).toMatch(/^"/)
    expect(await stored(`${FOLDER}form.txt`)).toBe('form')
  })

  it('keeps a range of sizes and a key prefix, with the file’s own name', async () => {
    const { url, fields } = await issue({
      key: undefined,
      keyPrefix: `${FOLDER}drop/`,
      contentLength: undefined,
      successActionStatus: 201,
    })
    expect(fields.key).toBe(`${FOLDER}drop/\${filename}`)
    const created = await post(url, form(fields, new Blob([bytes('dropped')])))
    expect(created.status, await created.clone().text()).toBe(201)
    expect(await created.text()).toContain(`<Key>${FOLDER}drop/upload.bin</Key>`)
    expect(await stored(`${FOLDER}drop/upload.bin`)).toBe('dropped')
  })

  it('refuses a body that does not end where a form ends', async () => {
    const { url, fields } = await issue({ key: `${FOLDER}framed.txt` })
    const { body, headers } = await form(fields, new Blob([bytes('form')]))
    const broken = new Uint8Array(body.length)
    broken.set(body)
    broken[broken.length - 3] = 0x41
    const refused = await browserRequest(app, env, url, { method: 'POST', headers, body: broken })
    expect(refused.status).toBe(400)
    expect(await stored(`${FOLDER}framed.txt`)).toBeUndefined()
  })
})

interface Multipart {
  uploadId: string
  partSize: number
  partCount: number
  parts: { partNumber: number; url: string }[]
}

describe('a multipart upload through the Worker', () => {
  it('resumes after an interruption from the parts the Worker recorded, each checked', async () => {
    const key = `${FOLDER}big.bin`
    const data = new Uint8Array(6 * MIB)
    for (let i = 0; i < data.length; i += 991) data[i] = i % 251
    const slice = (n: number, size: number) => data.slice((n - 1) * size, n * size)
    const partSize = 5 * MIB
    const checksums = [
      await sha256Base64(slice(1, partSize)),
      await sha256Base64(slice(2, partSize)),
    ]
    const upload = await ok<Multipart>('/v1/uploads', {
      origin: 'media',
      mode: 'multipart',
      key,
      contentType: 'application/octet-stream',
      contentLength: data.length,
      partSize,
      partChecksums: checksums,
    })
    expect(upload.partCount).toBe(2)
    const send = (n: number, body: BodyInit, headers: Record<string, string> = {}) =>
      browserRequest(app, env, upload.parts[n - 1]!.url, { method: 'PUT', headers, body })
    expect((await send(1, slice(1, partSize))).status).toBe(200)
    // Part 2 breaks off halfway: the connection is lost before its last byte.
    const half = slice(2, partSize).subarray(0, MIB / 2)
    const lost = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(half)
        controller.error(new Error('connection lost'))
      },
    })
    const cut = await browserRequest(app, env, upload.parts[1]!.url, {
      method: 'PUT',
      headers: { 'content-length': String(MIB) },
      body: lost,
      duplex: 'half',
    } as RequestInit)
    expect(cut.ok).toBe(false)
    // Part 2 with other bytes of its size: refused by its checksum before R2 has them all.
    const other = slice(2, partSize)
    other[0] = other[0]! ^ 1
    const corrupt = await send(2, other)
    expect(corrupt.status).toBe(400)
    const ref = { origin: 'media', key, uploadId: upload.uploadId }
    const listed = await ok<{ parts: { partNumber: number; size: number; etag: string }[] }>(
      '/v1/uploads/multipart/list',
      ref,
    )
    expect(listed.parts.map((p) => [p.partNumber, p.size])).toEqual([[1, partSize]])
    const early = await apiCall(app, env, KEY, '/v1/uploads/multipart/complete', ref)
    expect(early.status).toBe(409)
    // Resumed: part 2's URL again, then the whole.
    const more = await ok<{ parts: { partNumber: number; url: string }[] }>(
      '/v1/uploads/multipart/parts',
      { ...ref, partNumbers: [2], checksums: [checksums[1]] },
    )
    const resumed = await browserRequest(app, env, more.parts[0]!.url, {
      method: 'PUT',
      body: slice(2, partSize),
    })
    expect(resumed.status).toBe(200)
    const done = await ok<{ size: number }>('/v1/uploads/multipart/complete', ref)
    expect(done.size).toBe(data.length)
    const object = await r2Bucket().get(key)
    // Compared by digest: a deep equality of 6 MiB takes longer than the test may.
    expect(await sha256Base64(new Uint8Array(await object!.arrayBuffer()))).toBe(
      await sha256Base64(data),
    )
    // Its record is gone with it: the upload lists nothing now.
    const after = await apiCall(app, env, KEY, '/v1/uploads/multipart/list', ref)
    expect(after.status).not.toBe(200)
  })
})
