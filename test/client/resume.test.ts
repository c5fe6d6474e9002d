// Resuming a multipart upload: the record kept while it runs, the parts sent after an
// interruption (only the missing ones, and any stored with the wrong size), and what happens when
// the upload is gone or the file is not the same.

import { describe, expect, it } from 'vitest'
import { createClient } from '../../client/src/index.ts'
import { sha256Base64 } from '../../client/src/hash.ts'
import {
  digestOf,
  fakeWaybill,
  memoryStorage,
  PART,
  patternBytes,
  problem,
  WAYBILL,
} from '../helpers/fake-waybill.ts'

/** 7 parts, the last one half a part. */
const SIZE = 6.5 * PART
const LAST_MODIFIED = 1_700_000_000_000
const file = (size = SIZE, lastModified = LAST_MODIFIED) =>
  new File([patternBytes(size)], 'big.bin', { type: 'application/octet-stream', lastModified })
const options = { origin: 'o', key: 'big.bin', multipartThreshold: 64, partSize: PART }

/** A page that loses its connection after `okParts` parts; then a reload that tries again. */
async function interrupted(okParts: number, extra: { checksum?: boolean } = {}) {
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
    page().upload(file(), { ...options, ...extra, partConcurrency: 1, retries: 0 }),
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
    expect(record).toMatchObject({ origin: 'o', key: 'big.bin', partSize: PART })
    expect(record!.uploadId).toBe([...fake.uploads.keys()][0])
    // The parts the bucket answered 2xx for, with their ETags.
    expect(record!.parts).toEqual([
      { partNumber: 1, etag: `"part-1-${PART}"` },
      { partNumber: 2, etag: `"part-2-${PART}"` },
    ])
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
    expect(stored).toMatchObject({ size: SIZE, resumed: true, partsSent: 5, partCount: 7 })
    expect(await digestOf(fake.objects.get('big.bin')?.bytes)).toBe(
      await digestOf(patternBytes(SIZE)),
    )
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
    expect(loaded[0]).toBe(3 * PART)
    expect(loaded.at(-1)).toBe(SIZE)
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
    expect(await digestOf(fake.objects.get('big.bin')?.bytes)).toBe(
      await digestOf(patternBytes(SIZE)),
    )
  })

  it('sends again a full-size part it never saw stored (a store that keeps a cut-off part)', async () => {
    const { fake, page } = await interrupted(3)
    // versitygw 1.8.0 keeps a part cut off mid-transfer, zero-filled to its full Content-Length.
    const upload = [...fake.uploads.values()][0]!
    upload.parts.set(4, { etag: '"zero-filled"', bytes: new Uint8Array(PART) })
    const before = fake.partPuts().length
    const stored = await page().upload(file(), options)
    expect(
      fake
        .partPuts()
        .slice(before)
        .sort((a, b) => a - b),
    ).toEqual([4, 5, 6, 7])
    expect(stored).toMatchObject({ resumed: true, partsSent: 4 })
    expect(await digestOf(fake.objects.get('big.bin')?.bytes)).toBe(
      await digestOf(patternBytes(SIZE)),
    )
  })

  it('sends again a part the store lists with another ETag than the one recorded', async () => {
    const { fake, page } = await interrupted(3)
    const upload = [...fake.uploads.values()][0]!
    upload.parts.set(2, { etag: 'zero-filled', bytes: new Uint8Array(PART) })
    // The same ETag without its quotes is the same part.
    upload.parts.get(1)!.etag = `part-1-${PART}`
    const before = fake.partPuts().length
    await page().upload(file(), options)
    expect(
      fake
        .partPuts()
        .slice(before)
        .sort((a, b) => a - b),
    ).toEqual([2, 4, 5, 6, 7])
    expect(await digestOf(fake.objects.get('big.bin')?.bytes)).toBe(
      await digestOf(patternBytes(SIZE)),
    )
  })

  it('trusts no stored part of a record that names none (one written before parts were)', async () => {
    const { fake, storage, page } = await interrupted(3, { checksum: false })
    const [[entry, text]] = [...storage.map.entries()] as [[string, string]]
    const old = JSON.parse(text) as Record<string, unknown>
    delete old.parts
    storage.map.set(entry, JSON.stringify(old))
    const before = fake.partPuts().length
    const stored = await page().upload(file(), { ...options, checksum: false })
    expect(
      fake
        .partPuts()
        .slice(before)
        .sort((a, b) => a - b),
    ).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(stored).toMatchObject({ resumed: true, partsSent: 7 })
    expect(fake.calls('/v1/uploads')).toHaveLength(1)
  })

  it("trusts a part stored with its checksum when it is this file's, whatever the record says", async () => {
    const { fake, storage, page } = await interrupted(3)
    const [[entry, text]] = [...storage.map.entries()] as [[string, string]]
    const old = JSON.parse(text) as Record<string, unknown>
    delete old.parts
    storage.map.set(entry, JSON.stringify(old))
    // Part 2 is listed with another file's checksum: not this file's, so it is sent again.
    const upload = [...fake.uploads.values()][0]!
    upload.parts.get(2)!.checksum = 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg='
    const before = fake.partPuts().length
    const stored = await page().upload(file(), { ...options, partConcurrency: 1 })
    expect(
      fake
        .partPuts()
        .slice(before)
        .sort((a, b) => a - b),
    ).toEqual([2, 4, 5, 6, 7])
    expect(stored).toMatchObject({ resumed: true, partsSent: 5 })
    expect(await digestOf(fake.objects.get('big.bin')?.bytes)).toBe(
      await digestOf(patternBytes(SIZE)),
    )
    // The parts left are hashed ahead of their transfers and signed in batches, each with its sum.
    const asked = fake.calls('/v1/uploads/multipart/parts').map((r) => r.body!)
    expect(asked.flatMap((b) => b.partNumbers as number[]).sort()).toEqual([2, 4, 5, 6, 7])
    // Part 2's URL is asked for as soon as it is hashed; by the time it is sent the others are.
    expect(asked.length).toBeLessThanOrEqual(2)
    for (const body of asked) {
      const numbers = body.partNumbers as number[]
      const sums = await Promise.all(
        numbers.map((n) =>
          sha256Base64(new Blob([patternBytes(SIZE).slice((n - 1) * PART, n * PART)])),
        ),
      )
      expect(body.checksums).toEqual(sums)
    }
  })

  it('keeps the record and fails when listing the parts is refused for another reason', async () => {
    const { fake, storage, page } = await interrupted(2)
    fake.hooks.api = (request) =>
      request.url.pathname === '/v1/uploads/multipart/list'
        ? problem(401, 'unauthorized', 'The token has expired.')
        : undefined
    await expect(page().upload(file(), options)).rejects.toMatchObject({
      code: 'unauthorized',
      status: 401,
    })
    expect(fake.calls('/v1/uploads')).toHaveLength(1)
    expect(fake.uploads.size).toBe(1)
    expect(storage.map.size).toBe(1)
    fake.hooks.api = undefined
    expect(await page().upload(file(), options)).toMatchObject({ resumed: true, partsSent: 5 })
  })

  it.each([403, 410])(
    'starts again, forgetting the record, when listing answers %i',
    async (status) => {
      const { fake, storage, page } = await interrupted(2)
      fake.hooks.api = (request) =>
        request.url.pathname === '/v1/uploads/multipart/list'
          ? problem(status, status === 403 ? 'forbidden' : 'gone', 'No.')
          : undefined
      expect(await page().upload(file(), options)).toMatchObject({ resumed: false, partsSent: 7 })
      expect(fake.calls('/v1/uploads')).toHaveLength(2)
      expect(storage.map.size).toBe(0)
    },
  )

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
    expect(client.resumableUpload(file(SIZE, LAST_MODIFIED + 1), options)).toBeUndefined()
    expect(client.resumableUpload(file(), { ...options, key: 'elsewhere.bin' })).toBeUndefined()
    await client.upload(file(SIZE, LAST_MODIFIED + 1), options)
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
    expect(await client.upload(file(), options)).toMatchObject({ size: SIZE, resumed: false })
  })

  it('aborts a failed upload when the storage refuses to keep its record', async () => {
    const fake = fakeWaybill()
    const storage = {
      getItem: () => null,
      setItem: () => {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError')
      },
      removeItem: () => {},
    }
    const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch, storage })
    fake.hooks.bucket = (request) => {
      if (request.url.searchParams.get('partNumber') === '3') throw new TypeError('Failed to fetch')
      return undefined
    }
    await expect(client.upload(file(), { ...options, retries: 0 })).rejects.toMatchObject({
      code: 'network_error',
    })
    expect(fake.calls('/v1/uploads/multipart/abort')).toHaveLength(1)
    expect(fake.uploads.size).toBe(0)
  })
})
