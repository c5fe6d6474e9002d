// Browser-style multipart/form-data bodies for S3 POST policy uploads in tests.

/**
 * A multipart/form-data body framed as browsers frame it. (workerd's own FormData serialization
 * makes versitygw miscount the file's length: "write exceeds content length".)
 */
export async function form(
  fields: Record<string, string>,
  file: Blob,
  overrides: Record<string, string> = {},
): Promise<{ body: Uint8Array; headers: Record<string, string> }> {
  const boundary = `----waybill${crypto.randomUUID().replace(/-/g, '')}`
  let head = ''
  for (const [name, value] of Object.entries({ ...fields, ...overrides })) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
  }
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.bin"\r\nContent-Type: ${file.type}\r\n\r\n`
  const parts = [
    new TextEncoder().encode(head),
    new Uint8Array(await file.arrayBuffer()),
    new TextEncoder().encode(`\r\n--${boundary}--\r\n`),
  ]
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let offset = 0
  for (const part of parts) {
    body.set(part, offset)
    offset += part.length
  }
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

/** POSTs a form body to a bucket URL (through `send`: fetch, unless the Worker serves it). */
export async function postForm(
  url: string,
  data: Promise<{ body: Uint8Array; headers: Record<string, string> }>,
  send: (url: string, init: RequestInit) => Promise<Response> = fetch,
) {
  const { body, headers } = await data
  return send(url, { method: 'POST', headers, body })
}
