// upload() and uploadMany() against the fake waybill and bucket, on the fetch path (workerd has no
// XMLHttpRequest): the calls made and their bodies, the bytes stored, retries, aborts, URLs
// signed again before they expire, and the completion check.

import { afterEach, describe, expect, it, vi } from 'vitest'
import { createClient, WaybillError } from '../../client/src/index.ts'
import {
  BUCKET,
  digestOf,
  fakeWaybill,
  PART,
  memoryStorage,
  patternBytes,
  problem,
  WAYBILL,
} from '../helpers/fake-waybill.ts'
import { sha256Base64 } from '../../client/src/hash.ts'

/** A multipart file: 7 parts, the last one half a part. */
const SIZE = 6.5 * PART

/** The base64 SHA-256 of bytes, as the client computes it of a Blob. */
const sumOf = (bytes: Uint8Array<ArrayBuffer>) => sha256Base64(new Blob([bytes]))

const file = (size: number, name = 'file.bin', type = 'application/octet-stream') =>
  new File([patternBytes(size)], name, { type, lastModified: 1_700_000_000_000 })

const setup = (options: Parameters<typeof fakeWaybill>[0] = {}) => {
  const fake = fakeWaybill(options)
  const storage = memoryStorage()
  const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch, storage, retryBaseDelayMs: 1 })
  return { fake, storage, client }
}

const bytesOf = (fake: ReturnType<typeof fakeWaybill>, key: string) => fake.objects.get(key)?.bytes
/** The bucket's answers, in order (undefined: a network error). */
const bucketStatuses = (fake: ReturnType<typeof fakeWaybill>) =>
  fake.log.filter((r) => r.url.origin === BUCKET).map((r) => r.status)

afterEach(() => {
  vi.useRealTimers()
})

describe('one PUT', () => {
  it('asks for a PUT with the exact length, sends it, then checks the receipt', async () => {
    const { fake, client } = setup()
    const progress: number[] = []
    const stored = await client.upload(file(1000, 'a.png', 'image/png'), {
      origin: 'photos',
      key: 'uploads/a.png',
      onProgress: ({ loaded, total }) => {
        expect(total).toBe(1000)
        progress.push(loaded)
      },
    })
    expect(fake.calls('/v1/uploads')[0]!.body).toEqual({
      origin: 'photos',
      mode: 'put',
      key: 'uploads/a.png',
      contentType: 'image/png',
      contentLength: 1000,
      // Hashed by default: the store refuses any other bytes.
      checksumSha256: await sumOf(patternBytes(1000)),
    })
    const put = fake.log.find((r) => r.url.origin === BUCKET)!
    expect(put.method).toBe('PUT')
    expect(put.headers.get('content-type')).toBe('image/png')
    expect(put.headers.get('x-amz-checksum-sha256')).toBe(await sumOf(patternBytes(1000)))
    expect(put.headers.get('if-none-match')).toBe('*')
    expect(fake.calls('/v1/uploads/complete')[0]!.body).toMatchObject({
      origin: 'photos',
      key: 'uploads/a.png',
      receipt: expect.any(String) as string,
    })
    expect(stored).toMatchObject({
      key: 'uploads/a.png',
      size: 1000,
      contentType: 'image/png',
      etag: '"put-1000"',
      mode: 'put',
    })
    expect(await digestOf(bytesOf(fake, 'uploads/a.png'))).toBe(await digestOf(patternBytes(1000)))
    expect(progress.at(-1)).toBe(1000)
  })

  it('defaults the type to application/octet-stream for a Blob without one', async () => {
    const { fake, client } = setup()
    await client.upload(new Blob([patternBytes(10)]), { origin: 'o', key: 'x' })
    expect(fake.calls('/v1/uploads')[0]!.body?.contentType).toBe('application/octet-stream')
  })

  it("sends a File's name for the grant's uploadKey when no key is given", async () => {
    const { fake, client } = setup()
    const stored = await client.upload(file(10, 'cat picture.png', 'image/png'), { origin: 'o' })
    const body = fake.calls('/v1/uploads')[0]!.body!
    expect(body.filename).toBe('cat picture.png')
    expect(body).not.toHaveProperty('key')
    expect(stored.key).toBe('uploads/k/1-cat picture.png')
    expect(fake.calls('/v1/uploads/complete')[0]!.body?.key).toBe('uploads/k/1-cat picture.png')
  })

  it('refuses a Blob with neither key nor name before any request', async () => {
    const { fake, client } = setup()
    await expect(client.upload(new Blob(['x']), { origin: 'o' })).rejects.toMatchObject({
      code: 'invalid_argument',
    })
    expect(fake.log).toEqual([])
  })

  it("rejects with the server's message when the grant refuses", async () => {
    const { fake, client } = setup({ contentTypes: ['image/png'] })
    const error = await client
      .upload(file(10, 'r.pdf', 'application/pdf'), { origin: 'o', key: 'r.pdf' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WaybillError)
    expect((error as WaybillError).message).toBe(
      'contentType: "application/pdf" is not a type the grant admits',
    )
    expect(fake.log.filter((r) => r.url.origin === BUCKET)).toEqual([])
  })

  it('retries the bucket on 503 and network errors, never on another 4xx', async () => {
    const { fake, client } = setup()
    let puts = 0
    fake.hooks.bucket = () => {
      puts++
      if (puts === 1) throw new TypeError('Failed to fetch')
      if (puts === 2) return new Response('<Error><Code>SlowDown</Code></Error>', { status: 503 })
      return undefined
    }
    await client.upload(file(10), { origin: 'o', key: 'k' })
    expect(puts).toBe(3)
    // A retry after a failure sends a newly issued URL, never the one that failed.
    expect(fake.calls('/v1/uploads')).toHaveLength(3)

    puts = 0
    fake.hooks.bucket = () => {
      puts++
      return new Response(
        '<Error><Code>SignatureDoesNotMatch</Code><Message>nope</Message></Error>',
        {
          status: 403,
        },
      )
    }
    await expect(client.upload(file(10), { origin: 'o', key: 'k2' })).rejects.toThrow(
      'The bucket refused the PUT with 403: SignatureDoesNotMatch (nope).',
    )
    expect(puts).toBe(1)
  })

  it('issues a new URL when the store says the URL has expired', async () => {
    const { fake, client } = setup()
    let puts = 0
    fake.hooks.bucket = () =>
      ++puts === 1
        ? new Response(
            '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
            {
              status: 403,
            },
          )
        : undefined
    const stored = await client.upload(file(10), { origin: 'o', key: 'k', retries: 0 })
    expect(stored.size).toBe(10)
    expect(fake.calls('/v1/uploads')).toHaveLength(2)
  })

  it('issues a new URL when waybill itself (an R2 origin) says the URL has expired', async () => {
    const { fake, client } = setup()
    let puts = 0
    fake.hooks.bucket = () =>
      ++puts === 1
        ? Response.json(
            {
              type: 'urn:waybill:problem:forbidden',
              title: 'Forbidden',
              status: 403,
              detail: 'This URL has expired.',
              errors: [{ path: 'url', message: 'has expired' }],
            },
            { status: 403, headers: { 'content-type': 'application/problem+json' } },
          )
        : undefined
    const stored = await client.upload(file(10), { origin: 'o', key: 'k', retries: 0 })
    expect(stored.size).toBe(10)
    expect(fake.calls('/v1/uploads')).toHaveLength(2)
    // Another refusal names waybill's reason, as an S3 refusal names its Code.
    fake.hooks.bucket = () =>
      Response.json(
        { status: 403, detail: 'This URL does not match its signature.' },
        { status: 403 },
      )
    await expect(client.upload(file(10), { origin: 'o', key: 'k3' })).rejects.toThrow(
      'The bucket refused the PUT with 403: This URL does not match its signature.',
    )
  })

  it('issues a new URL before sending when the one it has is about to expire', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { fake, client } = setup({ urlLifeMs: 120_000 })
    // The first file's transfer takes 100 s: the second file's URL then has 20 s left.
    fake.hooks.bucket = () => {
      vi.setSystemTime(Date.now() + 100_000)
      return undefined
    }
    await client.uploadMany(
      [
        { file: file(10), key: 'a' },
        { file: file(20), key: 'b' },
      ],
      { origin: 'o', concurrency: 1 },
    )
    const issued = fake.calls('/v1/uploads').map((r) => r.body)
    expect(issued).toHaveLength(2)
    expect(issued[1]).toMatchObject({ mode: 'put', key: 'b', contentLength: 20 })
    expect(await digestOf(bytesOf(fake, 'b'))).toBe(await digestOf(patternBytes(20)))
    // Issued before the PUT, not after the store refused the old URL.
    expect(bucketStatuses(fake)).toEqual([200, 200])
  })

  it("takes a retry's 412 for its own object when the completion check agrees", async () => {
    const { fake, client } = setup()
    let puts = 0
    fake.hooks.bucket = () => {
      if (++puts > 1) return undefined
      // The first PUT is stored, but its answer is lost: the retry then meets its own object.
      fake.objects.set('k', {
        bytes: patternBytes(10),
        contentType: 'application/octet-stream',
        etag: '"put-10"',
        checksum,
      })
      throw new TypeError('Failed to fetch')
    }
    const checksum = await sumOf(patternBytes(10))
    const stored = await client.upload(file(10), { origin: 'o', key: 'k' })
    expect(bucketStatuses(fake)).toEqual([undefined, 412])
    expect(stored).toMatchObject({ key: 'k', size: 10, etag: '"put-10"', mode: 'put' })
    expect(fake.calls('/v1/uploads/complete')).toHaveLength(1)
  })

  it("keeps a 412 for another object, and a first attempt's 412 without a check", async () => {
    const { fake, client } = setup()
    const other = { bytes: patternBytes(5), contentType: 'text/plain', etag: '"other"' }
    let puts = 0
    fake.hooks.bucket = () => {
      if (++puts > 1) return undefined
      fake.objects.set('k', other)
      throw new TypeError('Failed to fetch')
    }
    const refusal = 'The bucket refused the PUT with 412: PreconditionFailed'
    await expect(client.upload(file(10), { origin: 'o', key: 'k' })).rejects.toThrow(refusal)
    expect(fake.calls('/v1/uploads/complete')).toHaveLength(1)

    fake.hooks.bucket = undefined
    await expect(
      client.upload(file(5, 'k', 'text/plain'), { origin: 'o', key: 'k' }),
    ).rejects.toThrow(refusal)
    expect(fake.calls('/v1/uploads/complete')).toHaveLength(1)
    expect(fake.objects.get('k')).toBe(other)
  })

  it('retries a new URL only as an attempt of the transfer, not within it too', async () => {
    const { fake, client } = setup()
    fake.hooks.bucket = () => {
      throw new TypeError('Failed to fetch')
    }
    fake.hooks.api = () =>
      fake.calls('/v1/uploads').length > 1 ? problem(503, 'upstream_error', 'down') : undefined
    await expect(client.upload(file(10), { origin: 'o', key: 'k', retries: 3 })).rejects.toThrow(
      'down',
    )
    expect(fake.calls('/v1/uploads')).toHaveLength(4)
  })
})

describe('a POST form', () => {
  it('sends the fields in order, then the file last', async () => {
    const { fake, client } = setup()
    const stored = await client.upload(file(300, 'f.bin'), {
      origin: 'o',
      key: 'f.bin',
      mode: 'post',
      overwrite: true,
    })
    expect(fake.calls('/v1/uploads')[0]!.body).toMatchObject({ mode: 'post', overwrite: true })
    expect(stored).toMatchObject({ key: 'f.bin', size: 300, mode: 'post' })
    expect(await digestOf(bytesOf(fake, 'f.bin'))).toBe(await digestOf(patternBytes(300)))
    expect(fake.forms).toEqual([
      ['key', 'Content-Type', 'x-amz-checksum-sha256', 'policy', 'x-amz-signature', 'file'],
    ])
  })

  it('falls back to PUT when the origin does not accept POST uploads', async () => {
    const { fake, client } = setup({ noPost: true })
    const stored = await client.upload(file(30), {
      origin: 'o',
      key: 'k',
      mode: 'post',
      overwrite: true,
    })
    expect(fake.calls('/v1/uploads').map((r) => r.body?.mode)).toEqual(['post', 'put'])
    expect(stored.mode).toBe('put')
  })

  it('is a PUT, which never replaces, unless the upload says overwrite', async () => {
    const { fake, client } = setup()
    const stored = await client.upload(file(30), { origin: 'o', key: 'k', mode: 'post' })
    expect(fake.calls('/v1/uploads').map((r) => r.body?.mode)).toEqual(['put'])
    expect(fake.calls('/v1/uploads')[0]!.body?.overwrite).toBeUndefined()
    expect(stored.mode).toBe('put')
  })
})

describe('multipart', () => {
  const big = () => file(SIZE, 'big.bin')
  const options = { origin: 'o', key: 'big.bin', multipartThreshold: 64, partSize: PART }

  it('sends the parts in parallel, at most partConcurrency at once, then completes', async () => {
    const { fake, storage, client } = setup()
    const reports: Array<{ loaded: number; partsDone?: number }> = []
    const stored = await client.upload(big(), {
      ...options,
      partConcurrency: 3,
      onProgress: (p) => reports.push(p),
    })
    expect(fake.calls('/v1/uploads')[0]!.body).toMatchObject({
      mode: 'multipart',
      key: 'big.bin',
      contentLength: SIZE,
      partSize: PART,
    })
    expect(fake.partPuts().sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(fake.maxInFlight()).toBe(3)
    const parts = fake.calls('/v1/uploads/multipart/complete')[0]!.body!.parts as unknown[]
    expect(parts).toEqual(
      Array.from({ length: 7 }, (_, i) => ({
        partNumber: i + 1,
        etag: `"part-${i + 1}-${i < 6 ? PART : SIZE - 6 * PART}"`,
      })),
    )
    expect(stored).toMatchObject({
      key: 'big.bin',
      size: SIZE,
      mode: 'multipart',
      partCount: 7,
      partsSent: 7,
      resumed: false,
    })
    expect(await digestOf(bytesOf(fake, 'big.bin'))).toBe(await digestOf(patternBytes(SIZE)))
    expect(reports.at(-1)).toMatchObject({ loaded: SIZE, total: SIZE, partsDone: 7, partCount: 7 })
    // Completed: nothing left to resume.
    expect(storage.map.size).toBe(0)
  })

  it("signs each part's SHA-256 into its URL, which comes with the upload", async () => {
    const { fake, client } = setup()
    await client.upload(big(), { ...options, partConcurrency: 2 })
    const sums = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        sumOf(patternBytes(SIZE).slice(i * PART, (i + 1) * PART)),
      ),
    )
    // A file this small is hashed before it starts: every part URL comes with the upload.
    expect(fake.calls('/v1/uploads')[0]!.body).toMatchObject({
      partSize: PART,
      partChecksums: sums,
    })
    expect(fake.calls('/v1/uploads/multipart/parts')).toHaveLength(0)
    const headers = fake.log
      .filter((r) => r.url.origin === BUCKET)
      .map((r) => [
        Number(r.url.searchParams.get('partNumber')),
        r.headers.get('x-amz-checksum-sha256'),
      ])
      .sort(([a], [b]) => Number(a) - Number(b))
    expect(headers).toEqual(sums.map((sum, i) => [i + 1, sum]))
    expect(await digestOf(bytesOf(fake, 'big.bin'))).toBe(await digestOf(patternBytes(SIZE)))
  })

  it('asks for the part URLs beyond the first ones in batches', async () => {
    const { fake, client } = setup({ firstParts: 1 })
    await client.upload(big(), { ...options, partConcurrency: 4, checksum: false })
    // Parts 2, 3 and 4 need a URL at once: the first to ask signs the whole queue, the others wait.
    const asked = fake.calls('/v1/uploads/multipart/parts').map((r) => r.body!.partNumbers)
    expect(asked).toEqual([[2, 3, 4, 5, 6, 7]])
    expect(await digestOf(bytesOf(fake, 'big.bin'))).toBe(await digestOf(patternBytes(SIZE)))
  })

  it('retries signing part URLs only as attempts of the part, not within them too', async () => {
    const { fake, client } = setup({ firstParts: 1 })
    fake.hooks.api = (request) =>
      request.url.pathname === '/v1/uploads/multipart/parts'
        ? problem(503, 'upstream_error', 'down')
        : undefined
    await expect(
      client.upload(big(), { ...options, partConcurrency: 1, retries: 3 }),
    ).rejects.toThrow('down')
    expect(fake.calls('/v1/uploads/multipart/parts')).toHaveLength(4)
  })

  it('completes without parts when the bucket hides the ETags', async () => {
    const { fake, client } = setup({ hideEtag: true })
    await client.upload(big(), options)
    expect(fake.calls('/v1/uploads/multipart/complete')[0]!.body).not.toHaveProperty('parts')
    expect(await digestOf(bytesOf(fake, 'big.bin'))).toBe(await digestOf(patternBytes(SIZE)))
  })

  it('retries a failing part with a fresh URL', async () => {
    const { fake, client } = setup()
    let part3 = 0
    fake.hooks.bucket = (request) => {
      if (request.url.searchParams.get('partNumber') !== '3') return undefined
      part3++
      if (part3 === 1) throw new TypeError('Failed to fetch')
      if (part3 === 2) return new Response('', { status: 500 })
      return undefined
    }
    await client.upload(big(), { ...options, checksum: false })
    expect(part3).toBe(3)
    expect(fake.calls('/v1/uploads/multipart/parts').map((r) => r.body!.partNumbers)).toEqual([
      [3],
      [3],
    ])
    expect(await digestOf(bytesOf(fake, 'big.bin'))).toBe(await digestOf(patternBytes(SIZE)))
  })

  it('signs part URLs again when they have less than a minute left', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { fake, client } = setup({ urlLifeMs: 120_000 })
    let first = true
    fake.hooks.bucket = () => {
      // The first part takes 90 s: the URLs of the others then have 30 s left.
      if (first) vi.setSystemTime(Date.now() + 90_000)
      first = false
      return undefined
    }
    await client.upload(big(), { ...options, partConcurrency: 1, checksum: false })
    const asked = fake.calls('/v1/uploads/multipart/parts').map((r) => r.body!.partNumbers)
    expect(asked).toEqual([[2, 3, 4, 5, 6, 7]])
    expect(await digestOf(bytesOf(fake, 'big.bin'))).toBe(await digestOf(patternBytes(SIZE)))
  })

  it('aborts the upload and forgets it when the signal aborts', async () => {
    const { fake, storage, client } = setup()
    const controller = new AbortController()
    fake.hooks.bucket = (request) => {
      if (request.url.searchParams.get('partNumber') === '4')
        controller.abort(new Error('cancelled'))
      return undefined
    }
    await expect(
      client.upload(big(), { ...options, partConcurrency: 1, signal: controller.signal }),
    ).rejects.toThrow('cancelled')
    expect(fake.calls('/v1/uploads/multipart/abort')).toHaveLength(1)
    expect(fake.uploads.size).toBe(0)
    expect(storage.map.size).toBe(0)
    expect(fake.calls('/v1/uploads/multipart/complete')).toHaveLength(0)
  })

  it('aborts a failed upload that is not to be resumed', async () => {
    const { fake, client } = setup()
    fake.hooks.bucket = (request) => {
      if (request.url.searchParams.get('partNumber') === '2') throw new TypeError('Failed to fetch')
      return undefined
    }
    await expect(client.upload(big(), { ...options, resume: false, retries: 1 })).rejects.toThrow(
      'The bucket could not be reached for part 2',
    )
    expect(fake.calls('/v1/uploads/multipart/abort')).toHaveLength(1)
    expect(fake.uploads.size).toBe(0)
  })
})

describe('uploadMany', () => {
  it('stops at the first failure; a multipart upload it stopped stays resumable', async () => {
    const { fake, storage, client } = setup()
    let partArrived: () => void = () => {}
    const aPart = new Promise<void>((resolve) => (partArrived = resolve))
    fake.hooks.bucket = async (request) => {
      if (request.url.pathname.startsWith('/part/')) {
        partArrived()
        // Slow parts: the failure below arrives while they are in flight.
        await new Promise((resolve) => setTimeout(resolve, 50))
        return undefined
      }
      await aPart
      return new Response('<Error><Code>AccessDenied</Code><Message>no</Message></Error>', {
        status: 403,
      })
    }
    await expect(
      client.uploadMany(
        [
          { file: file(5), key: 'small' },
          { file: file(SIZE + PART, 'big.bin'), key: 'big.bin' },
        ],
        { origin: 'o', multipartThreshold: 64, partSize: PART },
      ),
    ).rejects.toThrow('The bucket refused the PUT with 403: AccessDenied (no).')
    expect(fake.calls('/v1/uploads/multipart/abort')).toHaveLength(0)
    expect(fake.uploads.size).toBe(1)
    expect(storage.map.size).toBe(1)
  })

  it('asks for every PUT in one call, sends large files as multipart, and answers in order', async () => {
    const { fake, client } = setup()
    const reports: Array<{ loaded: number; filesDone: number }> = []
    const results = await client.uploadMany(
      [
        { file: file(5, 'a.txt', 'text/plain') },
        { file: file(SIZE + PART, 'big.bin') },
        { file: file(7, 'b.png', 'image/png'), key: 'fixed/b.png' },
      ],
      { origin: 'o', multipartThreshold: 64, partSize: PART, onProgress: (p) => reports.push(p) },
    )
    const issued = fake.calls('/v1/uploads').map((r) => r.body)
    expect(issued).toEqual([
      {
        origin: 'o',
        mode: 'put',
        items: [
          {
            filename: 'a.txt',
            contentType: 'text/plain',
            contentLength: 5,
            checksumSha256: await sumOf(patternBytes(5)),
          },
          {
            key: 'fixed/b.png',
            contentType: 'image/png',
            contentLength: 7,
            checksumSha256: await sumOf(patternBytes(7)),
          },
        ],
      },
      expect.objectContaining({
        mode: 'multipart',
        filename: 'big.bin',
        contentLength: SIZE + PART,
      }),
    ])
    expect(results.map((r) => [r.mode, r.size])).toEqual([
      ['put', 5],
      ['multipart', SIZE + PART],
      ['put', 7],
    ])
    expect(results[2]!.key).toBe('fixed/b.png')
    expect(reports.at(-1)).toMatchObject({
      loaded: SIZE + PART + 12,
      total: SIZE + PART + 12,
      filesDone: 3,
      files: 3,
    })
  })
})
