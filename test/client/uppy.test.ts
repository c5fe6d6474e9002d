// The Uppy adapter on the client's engine, driven as @uppy/aws-s3 drives it (signRequest for each
// S3 request), with a stand-in for Uppy: the part plan and checksums are upload()'s, a failed
// multipart upload is aborted and forgotten on the file, and a page whose CSP refuses `data:` is
// told so. The real Uppy runs in test/browser/uppy.test.ts.

import { afterEach, describe, expect, it, vi } from 'vitest'
import { createClient } from '../../client/src/index.ts'
import { waybillUppy, type UppyFileLike, type UppyLike } from '../../client/src/uppy.ts'
import { fakeWaybill, PART, patternBytes, WAYBILL } from '../helpers/fake-waybill.ts'

afterEach(() => {
  vi.unstubAllGlobals()
})

/** Uppy's part of the contract: its files, its error event, and what the adapter set on files. */
function standIn(files: UppyFileLike[]) {
  const onError: Array<(file: UppyFileLike | undefined, error: { message: string }) => void> = []
  const fileStates: Array<[string, unknown]> = []
  const uppy: UppyLike = {
    addPostProcessor: () => {},
    getFile: (id) => files.find((f) => f.id === id),
    getFiles: () => files,
    emit: () => {},
    on: (_event, callback) => onError.push(callback),
    setFileState: (id, state) => fileStates.push([id, state]),
  }
  return { uppy, onError, fileStates }
}

const setup = () => {
  const fake = fakeWaybill()
  const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch, storage: undefined })
  const data = new File([patternBytes(2.5 * PART)], 'big.bin', { type: 'video/mp4' })
  const file: UppyFileLike = { id: 'f1', name: 'big.bin', type: 'video/mp4', size: data.size, data }
  const { uppy, onError, fileStates } = standIn([file])
  const s3 = waybillUppy(uppy, client, { origin: 'o', key: (f) => `videos/${f.name}` })
  return { fake, file, s3, onError, fileStates }
}

/** What the plugin reads from a data: URL the adapter answers. */
const xmlOf = (url: string) => decodeURIComponent(url.slice(url.indexOf(',') + 1))

describe('waybillUppy', () => {
  it("starts a multipart upload with upload()'s plan and checksums: every part URL comes with it", async () => {
    const { fake, file, s3 } = setup()
    expect(s3.getChunkSize({ size: file.size! })).toBe(PART)
    const created = await s3.signRequest({ method: 'POST', key: s3.generateObjectKey(file) })
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(xmlOf(created.url))![1]!
    expect(created.key).toBe('videos/big.bin')
    const body = fake.calls('/v1/uploads')[0]!.body!
    expect(body).toMatchObject({ mode: 'multipart', partSize: PART, contentLength: file.size })
    expect(body.partChecksums).toHaveLength(3)
    const part = await s3.signRequest({
      method: 'PUT',
      key: 'videos/big.bin',
      uploadId,
      partNumber: 2,
    })
    expect(part.headers).toEqual({
      'x-amz-checksum-sha256': (body.partChecksums as string[])[1],
    })
    expect(fake.calls('/v1/uploads/multipart/parts')).toHaveLength(0)
  })

  it('aborts the multipart upload of a file that fails, and clears it from the file so a retry starts afresh', async () => {
    const { fake, file, s3, onError, fileStates } = setup()
    const created = await s3.signRequest({ method: 'POST', key: s3.generateObjectKey(file) })
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(xmlOf(created.url))![1]!
    file.s3Multipart = { key: 'videos/big.bin', uploadId }
    for (const callback of onError) callback(file, { message: 'Network error during S3 request' })
    expect(fileStates).toEqual([['f1', { s3Multipart: undefined }]])
    await expect.poll(() => fake.calls('/v1/uploads/multipart/abort').length).toBe(1)
    expect(fake.uploads.size).toBe(0)
  })

  it('leaves alone a failed file without a multipart upload', () => {
    const { fake, onError, fileStates } = setup()
    for (const callback of onError) callback({ id: 'f2', size: 1 }, { message: 'refused' })
    expect(fileStates).toEqual([])
    expect(fake.calls('/v1/uploads/multipart/abort')).toHaveLength(0)
  })

  it("names the CSP when the page may not fetch data: URLs (the plugin's XML answers)", async () => {
    vi.stubGlobal('fetch', (input: RequestInfo | URL) =>
      typeof input === 'string' && input.startsWith('data:')
        ? Promise.reject(new TypeError('Failed to fetch'))
        : Promise.reject(new Error('unexpected')),
    )
    const { fake, file, s3 } = setup()
    await expect(
      s3.signRequest({ method: 'POST', key: s3.generateObjectKey(file) }),
    ).rejects.toThrow(
      "This page's Content-Security-Policy does not allow data: URLs in connect-src",
    )
    // Asked before the upload is started: nothing is left open that the plugin cannot abort.
    expect(fake.calls('/v1/uploads')).toHaveLength(0)
  })
})
