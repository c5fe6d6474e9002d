// Uploads as tasks (startUpload, startUploads): pause keeps a multipart upload and its stored
// parts, resume sends only what is missing, cancel aborts it; a batch's files each have their own
// progress, state and outcome, and with continueOnError a refusal of some files stops only them.
// Against the fake waybill and bucket (held to the server's schemas).

import { describe, expect, it } from 'vitest'
import { createClient, type UploadState, type UploadTask } from '../../client/src/index.ts'
import {
  BUCKET,
  digestOf,
  fakeWaybill,
  memoryStorage,
  PART,
  patternBytes,
  WAYBILL,
} from '../helpers/fake-waybill.ts'

/** 7 parts, the last one half a part. */
const SIZE = 6.5 * PART

const file = (size: number, name = 'file.bin', type = 'application/octet-stream') =>
  new File([patternBytes(size)], name, { type, lastModified: 1_700_000_000_000 })

const setup = (options: Parameters<typeof fakeWaybill>[0] = {}) => {
  const fake = fakeWaybill(options)
  const storage = memoryStorage()
  const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch, storage, retryBaseDelayMs: 1 })
  return { fake, storage, client }
}

/** Every state a task passes through, in order, repeats folded. */
function states(task: UploadTask): UploadState[] {
  const seen: UploadState[] = [task.status.state]
  task.subscribe(({ state }) => {
    if (seen.at(-1) !== state) seen.push(state)
  })
  return seen
}

const multipart = { origin: 'o', key: 'big.bin', multipartThreshold: 64, partConcurrency: 1 }

describe('a task', () => {
  it('pauses a multipart upload without aborting it, then resumes with only the missing parts', async () => {
    const { fake, storage, client } = setup()
    const task = client.startUpload(file(SIZE, 'big.bin'), multipart)
    let puts = 0
    fake.hooks.bucket = () => {
      // Paused while part 3 is in flight: its bytes may reach the store, but no answer is taken.
      if (++puts === 3) task.pause()
      return undefined
    }
    const seen = states(task)
    await expect.poll(() => fake.partPuts().length).toBe(3)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(task.status.state).toBe('paused')
    expect(task.status.progress).toMatchObject({ partsDone: 2, partCount: 7 })
    expect(fake.calls('/v1/uploads/multipart/abort')).toHaveLength(0)
    expect(fake.uploads.size).toBe(1)
    expect(storage.map.size).toBe(1)

    task.resume()
    const stored = await task.done
    expect(fake.partPuts().slice(3)).toEqual([3, 4, 5, 6, 7])
    expect(fake.calls('/v1/uploads')).toHaveLength(1)
    expect(stored).toMatchObject({ size: SIZE, partCount: 7, partsSent: 7, resumed: false })
    expect(await digestOf(fake.objects.get('big.bin')?.bytes)).toBe(
      await digestOf(patternBytes(SIZE)),
    )
    expect(seen).toEqual(['uploading', 'paused', 'queued', 'uploading', 'done'])
    expect(task.status.result).toBe(stored)
    expect(storage.map.size).toBe(0)
  })

  it('cancels a paused multipart upload: aborted in the bucket, forgotten here', async () => {
    const { fake, storage, client } = setup()
    const task = client.startUpload(file(SIZE, 'big.bin'), multipart)
    fake.hooks.bucket = () => {
      if (fake.partPuts().length === 2) task.pause()
      return undefined
    }
    await expect.poll(() => task.status.state).toBe('paused')
    await new Promise((resolve) => setTimeout(resolve, 20))
    await task.cancel()
    expect(task.status.state).toBe('cancelled')
    await expect(task.done).rejects.toMatchObject({ name: 'AbortError' })
    expect(fake.calls('/v1/uploads/multipart/abort')).toHaveLength(1)
    expect(fake.uploads.size).toBe(0)
    expect(storage.map.size).toBe(0)
  })

  it('resumes a paused PUT: a store that kept its bytes is recognised by the completion check', async () => {
    const { fake, client } = setup()
    const task = client.startUpload(file(1000, 'a.bin'), { origin: 'o', key: 'a.bin' })
    fake.hooks.bucket = () => {
      // The PUT reaches the store, but the page pauses before its answer.
      if (fake.log.filter((r) => r.url.origin === BUCKET).length === 1) task.pause()
      return undefined
    }
    await expect.poll(() => task.status.state).toBe('paused')
    await new Promise((resolve) => setTimeout(resolve, 20))
    task.resume()
    expect(await task.done).toMatchObject({ key: 'a.bin', size: 1000 })
    // The second PUT is refused (no overwrite), and the check finds this upload's own bytes.
    expect(fake.log.filter((r) => r.url.origin === BUCKET).map((r) => r.status)).toEqual([200, 412])
    expect(fake.calls('/v1/uploads')).toHaveLength(1)
  })

  it('reports its state and progress to subscribers, and stops telling them when asked', async () => {
    const { client } = setup()
    const task = client.startUpload(file(100, 'a.bin'), { origin: 'o', key: 'a.bin' })
    const loaded: number[] = []
    const stop = task.subscribe(({ progress }) => loaded.push(progress.loaded))
    await task.done
    stop()
    expect(loaded.at(-1)).toBe(100)
    expect(task.status).toMatchObject({ state: 'done', progress: { loaded: 100, total: 100 } })
  })

  it('fails with the error, and ignores pause and resume once settled', async () => {
    const { client } = setup({ contentTypes: ['image/png'] })
    const task = client.startUpload(file(10, 'r.pdf', 'application/pdf'), { origin: 'o', key: 'r' })
    await expect(task.done).rejects.toMatchObject({ code: 'invalid_request' })
    task.pause()
    task.resume()
    await task.cancel()
    expect(task.status.state).toBe('failed')
  })

  it("adds a URL to show the object when asked (display), from waybill's signing", async () => {
    const { fake, client } = setup()
    const stored = await client.upload(file(100, 'a.png', 'image/png'), {
      origin: 'o',
      key: 'gallery/a.png',
      display: true,
    })
    expect(fake.calls('/v1/sign')[0]!.body).toEqual({ origin: 'o', keys: ['gallery/a.png'] })
    expect(stored.url).toBe(`${BUCKET}/object/gallery%2Fa.png`)
    expect(stored.urlExpiresAt).toEqual(expect.any(String))
  })

  it('keeps the stored object when the URL to show it is refused', async () => {
    const { fake, client } = setup()
    fake.hooks.api = (request) =>
      request.url.pathname === '/v1/sign'
        ? new Response(
            JSON.stringify({
              type: 'urn:waybill:problem:forbidden',
              title: 'Forbidden',
              status: 403,
              detail: 'No.',
            }),
            { status: 403, headers: { 'content-type': 'application/problem+json' } },
          )
        : undefined
    const stored = await client.upload(file(100, 'a.png', 'image/png'), {
      origin: 'o',
      key: 'a.png',
      display: true,
    })
    expect(stored).toMatchObject({ key: 'a.png', size: 100 })
    expect(stored.url).toBeUndefined()
  })
})

describe('a batch', () => {
  it('with continueOnError, asks for each file on its own: a refused one fails alone', async () => {
    const { fake, client } = setup({ contentTypes: ['text/plain', 'application/octet-stream'] })
    const perFile = new Map<number, number>()
    const outcomes = await client.uploadMany(
      [
        { file: file(5, 'a.txt', 'text/plain') },
        { file: file(7, 'b.png', 'image/png') },
        { file: file(9, 'c.txt', 'text/plain') },
      ],
      {
        origin: 'o',
        continueOnError: true,
        onFileProgress: (i, { loaded }) => perFile.set(i, loaded),
      },
    )
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    const refused = outcomes[1] as PromiseRejectedResult
    expect(refused.reason).toMatchObject({
      code: 'invalid_request',
      message: 'contentType: "image/png" is not a type the grant admits',
      errors: [{ path: 'contentType', message: '"image/png" is not a type the grant admits' }],
    })
    // One call per file (not one for all, which is authorized all or nothing).
    const asked = fake.calls('/v1/uploads').map((r) => [r.body!.filename, r.status])
    expect(asked.sort()).toEqual([
      ['a.txt', 200],
      ['b.png', 400],
      ['c.txt', 200],
    ])
    expect([...perFile].sort()).toEqual([
      [0, 5],
      [2, 9],
    ])
    expect([...fake.objects.keys()].map((key) => key.split('-').pop()).sort()).toEqual([
      'a.txt',
      'c.txt',
    ])
  })

  it('gives each file a task with its own state, pause, resume and cancel', async () => {
    const { fake, client } = setup()
    let batchTasks: readonly UploadTask[] = []
    let first = true
    fake.hooks.bucket = () => {
      if (first) batchTasks.forEach((task) => task.pause())
      first = false
      return undefined
    }
    const batch = client.startUploads(
      [{ file: file(5, 'a.txt', 'text/plain') }, { file: file(SIZE, 'big.bin') }],
      { origin: 'o', multipartThreshold: 64, concurrency: 1 },
    )
    batchTasks = batch.tasks
    await expect
      .poll(() => batch.tasks.map((task) => task.status.state))
      .toEqual(['paused', 'paused'])
    batch.tasks.forEach((task) => task.resume())
    await batch.tasks[0]!.done
    await batch.tasks[1]!.cancel()
    const outcomes = await batch.done
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected'])
    expect(batch.tasks.map((task) => task.status.state)).toEqual(['done', 'cancelled'])
  })

  it('without continueOnError, fails every file when the one call for their URLs is refused', async () => {
    const { client } = setup({ contentTypes: ['text/plain'] })
    const batch = client.startUploads(
      [{ file: file(5, 'a.txt', 'text/plain') }, { file: file(7, 'b.png', 'image/png') }],
      { origin: 'o' },
    )
    const outcomes = await batch.done
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected'])
    expect(batch.tasks.map((task) => task.status.state)).toEqual(['failed', 'failed'])
  })
})
