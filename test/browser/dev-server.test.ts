// The local Worker outlives a client that gives up mid-upload, as a browser does when a user pauses
// a multipart upload or leaves the page. wrangler dev 4.125 exited on the first such request
// ("Error inside ProxyWorker: Network connection lost", cloudflare/workers-sdk#15203): `npm start`
// stopped, and in CI every browser test after the example app's pause failed with
// ERR_CONNECTION_REFUSED. wrangler 4.129 and later log the failed request and go on.

import { connect } from 'node:net'
import { describe, expect, inject, it } from 'vitest'

const demo = inject('browserDemo')

/**
 * Announces a body of `announced` bytes to `path`, sends `sent` of them, then drops the
 * connection, as a paused XHR does.
 */
function abandonUpload(path: string, announced: number, sent: number): Promise<void> {
  const url = new URL(demo.baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        `PUT ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/octet-stream\r\n` +
          `Content-Length: ${announced}\r\n\r\n`,
      )
      socket.write(Buffer.alloc(sent, 7), () => {
        // Long enough for the request to reach the Worker, which is then reading its body.
        setTimeout(() => {
          socket.destroy()
          resolve()
        }, 200)
      })
    })
    socket.on('error', reject)
  })
}

describe('the local Worker', () => {
  it('keeps serving after clients give up mid-upload', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      await abandonUpload('/o/demo-r2/abandoned.bin?x=unsigned', 20 * 1024 * 1024, 1024 * 1024)
      await abandonUpload('/v1/sign', 20 * 1024 * 1024, 1024 * 1024)
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
    const health = await fetch(`${demo.baseUrl}/healthz`)
    expect(health.status).toBe(200)
    const signed = await fetch(`${demo.baseUrl}/v1/sign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ origin: 'demo', keys: ['hello.txt'] }),
    })
    expect(signed.status).toBe(200)
    expect(((await signed.json()) as { urls: unknown[] }).urls).toHaveLength(1)
  })
})
