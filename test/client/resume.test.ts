// Resuming a multipart upload: the record kept while it runs, the parts sent after an
// interruption (only the missing ones, and any stored with the wrong size), and what happens when
// the upload is gone or the file is not the same.

import { describe, expect, it } from 'vitest'
import { createClient } from '../../client/src/index.ts'
import { fakeWaybill, memoryStorage, patternBytes, WAYBILL } from './fake-waybill.ts'

const LAST_MODIFIED = 1_700_000_000_000
const file = (size = 70, lastModified = LAST_MODIFIED) =>
  new File([patternBytes(size)], 'big.bin', { type: 'application/octet-stream', lastModified })
const options = { origin: 'o', key: 'big.bin', multipartThreshold: 64, partSize: 10 }

/** A page that loses its connection after `okParts` parts; then a reload that tries again. */
async function interrupted(okParts: number) {
  const fake = fakeWaybill()
  const storage = memoryStorage()
  const page = () =>
    createClient({ baseUrl: WAYBILL, fetch: fake.fetch, storage, retryBaseDelayMs: 1 })
  let sent = 0
  fake.hooks.bucket = () => {
    if (++sent > okParts) throw new TypeError('Failed to fetch')
    return undefined
  }
  await expect(
    page().upload(file(), { ...options, partConcurrency: 1, retries: 0 }),
  ).rejects.toMatchObject({ code: 'network_error' })
  fake.hooks.bucket = undefined
  return { fake, storage, page }
}

describe('resume', () => {
  it('keeps the upload open and remembered when it fails', async () => {
    const { fake, storage } = await interrupted(2)
    expect(fake.calls('/v1/uploads/multipart/abort')).toHaveLength(0)
    expect(fake.uploads.size).toBe(1)
    const [record] = [...storage.map.values()].map((v) => JSON.parse(v) as Record<string, unknown>)
    expect(record).toMatchObject({ origin: 'o', key: 'big.bin', partSize: 10 })
    expect(record!.uploadId).toBe([...fake.uploads.keys()][0])
  })

  it('sends only the missing parts after a reload, then completes', async () => {
    const { fake, storage, page } = await interrupted(2)
    const before = fake.partPuts().length
    const client = page()
    expect(client.resumableUpload(file(), options)).toMatchObject({ key: 'big.bin' })
    const stored = await client.upload(file(), options)
    expect(fake.calls('/v1/uploads/multipart/list')).toHaveLength(1)
    expect(fake.calls('/v1/uploads')).toHaveLength(1)
    expect(
      fake
        .partPuts()
        .slice(before)
        .sort((a, b) => a - b),
    ).toEqual([3, 4, 5, 6, 7])
    expect(stored).toMatchObject({ size: 70, resumed: true, partsSent: 5, partCount: 7 })
    expect(fake.objects.get('big.bin')?.bytes).toEqual(patternBytes(70))
    // The completion names every part: the listed ones with their listed ETags.
    const parts = fake.calls('/v1/uploads/multipart/complete')[0]!.body!.parts as unknown[]
    expect(parts).toHaveLength(7)
    expect(storage.map.size).toBe(0)
    expect(client.resumableUpload(file(), options)).toBeUndefined()
  })

  it('counts the stored parts in the progress from the start', async () => {
    const { page } = await interrupted(3)
    const loaded: number[] = []
    await page().upload(file(), { ...options, onProgress: (p) => loaded.push(p.loaded) })
    expect(loaded[0]).toBe(30)
    expect(loaded.at(-1)).toBe(70)
  })

  it('sends again a part the store holds with the wrong size', async () => {
    const { fake, page } = await interrupted(3)
    const upload = [...fake.uploads.values()][0]!
    upload.parts.get(2)!.bytes = patternBytes(4)
    const before = fake.partPuts().length
    await page().upload(file(), options)
    expect(
      fake
        .partPuts()
        .slice(before)
        .sort((a, b) => a - b),
    ).toEqual([2, 4, 5, 6, 7])
    expect(fake.objects.get('big.bin')?.bytes).toEqual(patternBytes(70))
  })

  it('starts again when the upload is gone, forgetting the record', async () => {
    const { fake, storage, page } = await interrupted(2)
    fake.uploads.clear() // completed elsewhere, aborted, or expired by a lifecycle rule
    const stored = await page().upload(file(), options)
    expect(fake.calls('/v1/uploads/multipart/list')).toHaveLength(1)
    expect(fake.calls('/v1/uploads')).toHaveLength(2)
    expect(stored).toMatchObject({ resumed: false, partsSent: 7 })
    expect(storage.map.size).toBe(0)
  })

  it('does not resume for another file of the same name (another size or modification time)', async () => {
    const { fake, page } = await interrupted(2)
    const client = page()
    expect(client.resumableUpload(file(70, LAST_MODIFIED + 1), options)).toBeUndefined()
    expect(client.resumableUpload(file(), { ...options, key: 'elsewhere.bin' })).toBeUndefined()
    await client.upload(file(70, LAST_MODIFIED + 1), options)
    expect(fake.calls('/v1/uploads/multipart/list')).toHaveLength(0)
    expect(fake.calls('/v1/uploads')).toHaveLength(2)
  })

  it('discards a remembered upload: aborted in the bucket, forgotten here', async () => {
    const { fake, storage, page } = await interrupted(2)
    const client = page()
    expect(await client.discardUpload(file(), options)).toBe(true)
    expect(fake.calls('/v1/uploads/multipart/abort')).toHaveLength(1)
    expect(fake.uploads.size).toBe(0)
    expect(storage.map.size).toBe(0)
    expect(await client.discardUpload(file(), options)).toBe(false)
  })

  it('aborts a failed upload when there is no storage to resume it from', async () => {
    const fake = fakeWaybill()
    const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch, storage: undefined })
    fake.hooks.bucket = (request) => {
      if (request.url.searchParams.get('partNumber') === '3') throw new TypeError('Failed to fetch')
      return undefined
    }
    await expect(client.upload(file(), { ...options, retries: 0 })).rejects.toMatchObject({
      code: 'network_error',
    })
    expect(fake.calls('/v1/uploads/multipart/abort')).toHaveLength(1)
    expect(fake.uploads.size).toBe(0)
    fake.hooks.bucket = undefined
    expect(await client.upload(file(), options)).toMatchObject({ size: 70, resumed: false })
  })
})
