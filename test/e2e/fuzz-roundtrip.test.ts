// End to end with random keys: the Worker (real entry point, the pool's bindings) presigns PUT, GET
// and DELETE for a seeded sample of keys, and versitygw, which verifies every SigV4 signature with
// its own implementation, stores and returns the bytes. Seed and replay: see
// test/helpers/fuzz-arbitraries.ts.
//
// versitygw keeps objects as files, so the generator stays inside what a POSIX file system can
// hold, and what URL parsers leave alone (shaped by `storableKey` and filtered below):
//   - one path segment is one file name: at most 255 bytes (a longer one fails with 409
//     ExistingObjectIsDirectory on PUT and 400 KeyTooLongError on GET), and no NUL (versitygw
//     answers 500 InternalError), so NUL becomes '_' here;
//   - a key ending in '/' is a directory object, which versitygw only accepts with an empty body;
//   - '.' and '..' segments are resolved away by every URL parser (fetch included) before the
//     request leaves, so the path no longer matches the signature (versitygw: 403
//     SignatureDoesNotMatch); such keys cannot round-trip through a URL, so they are skipped.
// Every key lives under its own fresh prefix, so no two runs (shrinking included) can collide, as
// 'a' (a file) and 'a/b' (a file in directory 'a') would.

import { exports } from 'cloudflare:workers'
import fc from 'fast-check'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import {
  FUZZ_SEED,
  FUZZ_TIMEOUT_MS,
  fuzzParameters,
  objectKey,
  percentEncode,
  printableAscii,
  truncateUtf8,
  utf8Bytes,
} from '../helpers/fuzz-arbitraries'
import { postJson } from '../helpers/requests'

const ROUNDTRIP_RUNS = 50
const MAX_SEGMENT_BYTES = 255
// Room for the per-run prefix `fuzz/<seed>/<run>/`.
const PREFIX_BUDGET_BYTES = 40
const MAX_KEY_BYTES_HERE = 1024 - PREFIX_BUDGET_BYTES

const apiKey = inject('apiKey')
const s3 = inject('s3')

interface SignedUrl {
  key: string
  url: string
}

async function sign(body: Record<string, unknown>): Promise<string> {
  const response = await exports.default.fetch(
    new Request('http://waybill.test/v1/sign', postJson(body, apiKey.key)),
  )
  const text = await response.text()
  if (response.status !== 200) throw new Error(`sign ${response.status}: ${text}`)
  const urls = (JSON.parse(text) as { urls: SignedUrl[] }).urls
  expect(urls).toHaveLength(1)
  return urls[0]!.url
}

/** Cuts every segment longer than a file name may be into file-name-sized pieces. */
function storableKey(key: string): string {
  const segments: string[] = []
  for (let segment of key.replace(/\0/g, '_').split('/')) {
    while (utf8Bytes(segment) > MAX_SEGMENT_BYTES) {
      const head = truncateUtf8(segment, MAX_SEGMENT_BYTES)
      segments.push(head)
      segment = segment.slice(head.length)
    }
    segments.push(segment)
  }
  return truncateUtf8(segments.join('/'), MAX_KEY_BYTES_HERE)
}

const hasDotSegment = (key: string) => key.split('/').some((s) => s === '.' || s === '..')

const roundTripKey = objectKey({ maxBytes: MAX_KEY_BYTES_HERE })
  .map(storableKey)
  .filter((key) => key.length > 0 && !hasDotSegment(key))

/** A Unicode file name for the download, sent as RFC 6266 `filename*` (printable ASCII). */
const download = fc.record({
  name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
  fallback: printableAscii(1, 20).map((s) => s.replace(/["\\]/g, '_').trim() || 'file'),
  contentType: fc.constantFrom(
    'application/octet-stream',
    'text/plain; charset=utf-8',
    'image/png',
  ),
})

let run = 0

beforeAll(() => {
  console.info(`round-trip fuzz: seed ${FUZZ_SEED} (override with VITE_FUZZ_SEED)`)
})

describe('random keys round-trip through versitygw', () => {
  it(
    `${ROUNDTRIP_RUNS} keys: PUT, GET byte-exact, DELETE, then 404`,
    async () => {
      const seen = { runs: 0, virtual: 0, nonAscii: 0, directory: 0, over512: 0, withOverrides: 0 }
      await fc.assert(
        fc.asyncProperty(
          roundTripKey,
          fc.uint8Array({ maxLength: 4096 }),
          fc.constantFrom('e2e', 'e2e-virtual'),
          fc.option(download, { nil: undefined }),
          async (suffix, randomBody, origin, overrides) => {
            const key = `fuzz/${FUZZ_SEED}/${run++}/${suffix}`
            expect(utf8Bytes(key)).toBeLessThanOrEqual(1024)
            const body = key.endsWith('/') ? new Uint8Array(0) : randomBody

            const putUrl = await sign({ origin, method: 'PUT', keys: [key] })
            const put = await fetch(putUrl, { method: 'PUT', body })
            expect(put.status, `PUT ${JSON.stringify(key)}: ${await put.text()}`).toBe(200)

            const disposition =
              overrides === undefined
                ? undefined
                : `attachment; filename="${overrides.fallback}"; filename*=UTF-8''${percentEncode(overrides.name)}`
            const getUrl = await sign({
              origin,
              items: [
                overrides === undefined
                  ? { key }
                  : {
                      key,
                      response: {
                        contentDisposition: disposition,
                        contentType: overrides.contentType,
                      },
                    },
              ],
            })
            const get = await fetch(getUrl)
            const got = new Uint8Array(await get.arrayBuffer())
            expect(get.status, `GET ${JSON.stringify(key)}`).toBe(200)
            expect(got).toEqual(body)
            if (overrides !== undefined) {
              expect(get.headers.get('content-disposition')).toBe(disposition)
              expect(get.headers.get('content-type')).toBe(overrides.contentType)
            }

            const deleteUrl = await sign({ origin, method: 'DELETE', keys: [key] })
            const deleted = await fetch(deleteUrl, { method: 'DELETE' })
            await deleted.body?.cancel()
            expect(deleted.status, `DELETE ${JSON.stringify(key)}`).toBe(204)

            const again = await fetch(await sign({ origin, keys: [key] }))
            await again.body?.cancel()
            expect(again.status, `GET after DELETE ${JSON.stringify(key)}`).toBe(404)

            seen.runs++
            if (origin === 'e2e-virtual') seen.virtual++
            if (/[^\x00-\x7f]/.test(suffix)) seen.nonAscii++
            if (key.endsWith('/')) seen.directory++
            if (utf8Bytes(key) > 512) seen.over512++
            if (overrides !== undefined) seen.withOverrides++
          },
        ),
        fuzzParameters(ROUNDTRIP_RUNS),
      )
      console.info(`round trips against versitygw at ${s3.endpoint}:`, JSON.stringify(seen))
      expect(seen.runs).toBe(ROUNDTRIP_RUNS)
      for (const [kind, count] of Object.entries(seen)) expect(count, kind).toBeGreaterThan(0)
    },
    FUZZ_TIMEOUT_MS,
  )
})
