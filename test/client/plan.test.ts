// The part plan, one definition: upload() and the Uppy adapter cut files the same way, with the
// limits the OpenAPI document states, and the same way waybill does when a request leaves it to
// waybill (the client always sends its own, which waybill checks).

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_MULTIPART_THRESHOLD_BYTES } from '../../client/src/constants.ts'
import { partRange, partSizeFor, planFor } from '../../client/src/plan.ts'
import { MAX_UPLOAD_BYTES } from '../../src/limits.ts'
import { choosePartSize, partCountOf, partSizeOf } from '../../src/core/s3/parts.ts'
import { createClient } from '../../client/src/index.ts'
import { waybillUppy } from '../../client/src/uppy.ts'
import { fakeWaybill, WAYBILL } from '../helpers/fake-waybill.ts'

const MIB = 1024 * 1024

describe('the part plan', () => {
  it('is 5 MiB, grown in whole MiB until 10,000 parts fit', () => {
    expect(partSizeFor(0)).toBe(5 * MIB)
    expect(partSizeFor(50_000 * MIB)).toBe(5 * MIB)
    expect(partSizeFor(50_000 * MIB + 1)).toBe(6 * MIB)
    expect(partSizeFor(100_000 * MIB)).toBe(10 * MIB)
  })

  it("cuts every size as waybill's own plan does", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_UPLOAD_BYTES }),
        fc.option(fc.integer({ min: 5 * MIB, max: 5 * 1024 * MIB }), { nil: undefined }),
        (size, asked) => {
          const plan = planFor(size, Math.max(asked ?? 0, partSizeFor(size)))
          expect(plan.partSize).toBe(choosePartSize(size, asked))
          expect(plan.partCount).toBe(partCountOf(size, plan.partSize))
          const [start, end] = partRange(plan, plan.partCount)
          expect(end - start).toBe(partSizeOf(size, plan.partSize, plan.partCount))
        },
      ),
    )
  })

  it('is what the Uppy adapter chunks by, from the default threshold', () => {
    const client = createClient({ baseUrl: WAYBILL, fetch: fakeWaybill().fetch })
    const uppy = {
      addPostProcessor: () => {},
      getFile: () => undefined,
      getFiles: () => [],
      emit: () => {},
      on: () => {},
      setFileState: () => {},
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
