// The client's limits, one definition each: upload() and the Uppy adapter choose multipart and
// part sizes from the same ones.

import { describe, expect, it } from 'vitest'
import { DEFAULT_MULTIPART_THRESHOLD_BYTES, partSizeFor } from '../../client/src/constants.ts'
import { createClient } from '../../client/src/index.ts'
import { waybillUppy } from '../../client/src/uppy.ts'
import { fakeWaybill, WAYBILL } from './fake-waybill.ts'

const MIB = 1024 * 1024

describe('partSizeFor', () => {
  it('is 5 MiB, grown in whole MiB until 10,000 parts fit', () => {
    expect(partSizeFor(0)).toBe(5 * MIB)
    expect(partSizeFor(50_000 * MIB)).toBe(5 * MIB)
    expect(partSizeFor(50_000 * MIB + 1)).toBe(6 * MIB)
    expect(partSizeFor(100_000 * MIB)).toBe(10 * MIB)
  })

  it('is what the Uppy adapter chunks by, from the default threshold', () => {
    const client = createClient({ baseUrl: WAYBILL, fetch: fakeWaybill().fetch })
    const uppy = {
      addPostProcessor: () => {},
      getFile: () => undefined,
      getFiles: () => [],
      emit: () => {},
    }
    const options = waybillUppy(uppy, client, { origin: 'o' })
    for (const size of [0, 50_000 * MIB + 1, 100_000 * MIB]) {
      expect(options.getChunkSize({ size })).toBe(partSizeFor(size))
    }
    const file = (size: number) => ({ id: 'f', size })
    expect(options.shouldUseMultipart(file(DEFAULT_MULTIPART_THRESHOLD_BYTES - 1))).toBe(false)
    expect(options.shouldUseMultipart(file(DEFAULT_MULTIPART_THRESHOLD_BYTES))).toBe(true)
  })
})
