// Why waybill reads JSON bodies itself (src/middleware/json-body.ts) instead of with Hono's `bodyLimit`:
// both stop a chunked body at the limit, but `bodyLimit` believes a declared Content-Length, and
// workerd hands a Worker the whole body behind a false one. Every stream here is finite (17 MiB):
// a reader that does not stop must still end.

import { exports } from 'cloudflare:workers'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { describe, expect, inject, it } from 'vitest'
import { MAX_BODY_BYTES } from '../../src/limits'

const MIB = 1024 * 1024
const BODY_BYTES = MAX_BODY_BYTES + MIB

/** 17 MiB of spaces in 1 MiB chunks; `pulls` counts the chunks read. */
function seventeenMiB() {
  const read = { pulls: 0 }
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (read.pulls * MIB >= BODY_BYTES) return controller.close()
      read.pulls++
      controller.enqueue(new Uint8Array(MIB).fill(0x20))
    },
  })
  return { read, stream }
}

/** Hono's `bodyLimit` at waybill's limit, before a handler that says how many bytes reached it. */
const limited = new Hono().post(
  '/',
  bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.text('too large', 413) }),
  async (c) => c.text(String((await c.req.arrayBuffer()).byteLength)),
)

describe("Hono's bodyLimit", () => {
  it('stops a chunked body (no Content-Length) just past the limit', async () => {
    const { read, stream } = seventeenMiB()
    const response = await limited.request('/', { method: 'POST', body: stream })
    expect(response.status).toBe(413)
    // 16 chunks fill the limit; the 17th passes it, and nothing after it is read.
    expect(read.pulls).toBe(MAX_BODY_BYTES / MIB + 1)
  })

  it('lets a body past the limit through under a smaller Content-Length', async () => {
    const { stream } = seventeenMiB()
    const response = await limited.request('/', {
      method: 'POST',
      body: stream,
      headers: { 'content-length': '100' },
    })
    expect(response.status).toBe(200)
    expect(Number(await response.text())).toBe(BODY_BYTES)
  })
})

describe("waybill's body reader, through the Worker's own fetch", () => {
  const authorization = `Bearer ${inject('apiKey').key}`

  it('stops a chunked body just past the limit', async () => {
    const { read, stream } = seventeenMiB()
    const response = await exports.default.fetch(
      new Request('http://waybill.test/v1/sign', {
        method: 'POST',
        body: stream,
        headers: { authorization, 'content-type': 'application/json' },
      }),
    )
    expect(response.status).toBe(413)
    expect(read.pulls).toBeLessThanOrEqual(MAX_BODY_BYTES / MIB + 2)
  })

  it('stops a body behind a false Content-Length too: workerd delivers all of it', async () => {
    const { stream } = seventeenMiB()
    const response = await exports.default.fetch(
      new Request('http://waybill.test/v1/sign', {
        method: 'POST',
        body: stream,
        headers: { authorization, 'content-type': 'application/json', 'content-length': '100' },
      }),
    )
    // Had workerd cut the body at the declared 100 bytes (of spaces), this would be 400, "is empty".
    expect(response.status).toBe(413)
    expect(await response.json()).toMatchObject({ errors: [{ path: 'body' }] })
  })
})
