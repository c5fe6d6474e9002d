// The pool's outbound fetch handler (runs in Node). Requests to <bucket>.localhost:<port> are sent
// to 127.0.0.1:<port> with their Host header kept, because *.localhost does not resolve on every
// machine; everything else goes out unchanged.

import { request as httpRequest } from 'node:http'
import { Headers, Response, fetch, type Request } from 'miniflare'

export async function outbound(request: Request): Promise<Response> {
  const url = new URL(request.url)
  if (url.protocol !== 'http:' || !url.hostname.endsWith('.localhost')) return fetch(request)
  const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer())
  const headers: Record<string, string> = Object.fromEntries(request.headers)
  headers.host = url.host
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port: url.port,
        method: request.method,
        path: url.pathname + url.search,
        headers,
      },
      (incoming) => {
        const chunks: Buffer[] = []
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
        incoming.on('end', () => {
          const responseHeaders = new Headers()
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (value !== undefined) responseHeaders.set(name, String(value))
          }
          const status = incoming.statusCode ?? 502
          const noBody = request.method === 'HEAD' || status === 204 || status === 304
          resolve(
            new Response(noBody ? null : Buffer.concat(chunks), {
              status,
              headers: responseHeaders,
            }),
          )
        })
        incoming.on('error', reject)
      },
    )
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}
