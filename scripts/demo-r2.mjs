// `npm start`'s R2 origin "demo-r2": Miniflare's local R2 behind the DEMO_R2 binding, seeded with
// the demo objects through waybill itself (POST /v1/uploads, then the PUT it signs), as a browser
// would upload them: the bytes reach the bucket only through the Worker's own upload route.

/** The R2 origin of wrangler.jsonc that `npm start` serves beside the versitygw origin "demo". */
export const DEMO_R2_ORIGIN = 'demo-r2'

/**
 * Uploads `objects` (`{ key: { body, contentType } }`) to the origin "demo-r2" with the API key
 * `apiKey`, replacing what is there.
 *
 * @example
 * await seedR2('http://127.0.0.1:8787', key, { 'hello.txt': { body: 'hi', contentType: 'text/plain' } })
 */
export async function seedR2(base, apiKey, objects) {
  for (const [key, { body, contentType }] of Object.entries(objects)) {
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body
    const issued = await fetch(`${base}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        origin: DEMO_R2_ORIGIN,
        key,
        contentType,
        contentLength: bytes.byteLength,
        overwrite: true,
      }),
    })
    if (!issued.ok) {
      throw new Error(`seeding ${DEMO_R2_ORIGIN} ${key}: ${issued.status} ${await issued.text()}`)
    }
    const { url, headers } = await issued.json()
    const stored = await fetch(url, { method: 'PUT', headers, body: bytes })
    if (!stored.ok) {
      throw new Error(`seeding ${DEMO_R2_ORIGIN} ${key}: ${stored.status} ${await stored.text()}`)
    }
  }
}
