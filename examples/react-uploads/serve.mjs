// Serves dist/ on its own origin, with the Content-Security-Policy an app on another origin than
// waybill and the bucket needs (see waybill's docs/your-app.md).
//
//   node serve.mjs [--port 5180] [--waybill http://127.0.0.1:8787] [--bucket http://127.0.0.1:7070]

import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { extname, join, normalize } from 'node:path'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '5180' },
    host: { type: 'string', default: '127.0.0.1' },
    waybill: { type: 'string', default: 'http://127.0.0.1:8787' },
    bucket: { type: 'string', default: 'http://127.0.0.1:7070' },
  },
})
const { waybill, bucket } = values
// waybill and the bucket for calls and uploads; data: for Uppy's multipart answers; the bucket for
// the gallery's images, and waybill for links that redirect to it.
const CSP = [
  "default-src 'self'",
  `connect-src 'self' ${waybill} ${bucket} data:`,
  `img-src 'self' ${waybill} ${bucket} data: blob:`,
  "style-src 'self' 'unsafe-inline'",
].join('; ')
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }

createServer(async (request, response) => {
  const path = new URL(request.url ?? '/', 'http://app').pathname
  const file = normalize(join('dist', path === '/' ? 'index.html' : path))
  if (!file.startsWith('dist')) return response.writeHead(404).end()
  try {
    const body = await readFile(file)
    response.writeHead(200, {
      'content-type': `${TYPES[extname(file)] ?? 'application/octet-stream'}; charset=utf-8`,
      'content-security-policy': CSP,
      'cache-control': 'no-store',
    })
    response.end(body)
  } catch {
    response.writeHead(404).end()
  }
}).listen(Number(values.port), values.host, () => {
  console.log(`http://${values.host}:${values.port}/ (waybill ${waybill}, bucket ${bucket})`)
})
