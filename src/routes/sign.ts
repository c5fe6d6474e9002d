import { Hono } from 'hono'
import { actionFor, authorizeBatch } from '../auth/policy'
import { STREAM_CHUNK_ITEMS } from '../constants'
import { prepareS3Presign, type PresignItem, type S3Presigner } from '../core/s3/presign'
import { readJsonBody } from '../http/json-body'
import type { AppEnv } from '../http/types'
import type { Clock } from '../clock'
import { parseSignRequest } from './sign-request'

const NDJSON = 'application/x-ndjson'

/** `POST /v1/sign`: a batch of presigned URLs for one origin, method and expiry. */
export function signRoutes(clock: Clock) {
  return new Hono<AppEnv>().post('/', async (c) => {
    const config = c.get('config')
    const request = parseSignRequest(await readJsonBody(c), { maxBatch: config.maxBatch })
    const action = actionFor(request.method)
    const log = c.get('log')
    Object.assign(log, { origin: request.origin, action, items: request.items.length })
    const suffix = request.field === 'keys' ? '' : '.key'
    const { origin, expiresIn } = authorizeBatch(config, c.get('principal'), {
      origin: request.origin,
      action,
      keys: request.items.map((item, i) => ({
        key: item.key,
        path: `${request.field}.${i}${suffix}`,
      })),
      expiresIn: request.expiresIn,
    })
    const presigner = prepareS3Presign({
      endpoint: origin.endpoint,
      region: origin.region,
      credentials: origin.credentials,
      method: request.method,
      expiresIn,
      now: clock(),
    })
    const expiresAt = presigner.expiresAt.toISOString()
    const headers = { 'cache-control': 'no-store', 'waybill-expires-at': expiresAt }

    if (wantsNdjson(c.req.header('accept'))) {
      return new Response(ndjsonStream(presigner, request.items), {
        headers: { ...headers, 'content-type': `${NDJSON}; charset=utf-8` },
      })
    }
    const signed = await presigner.presignAll(request.items)
    const urls = request.items.map((item, i) => ({ key: item.key, url: signed[i]! }))
    return c.json({ origin: origin.name, method: request.method, expiresAt, urls }, 200, headers)
  })
}

/** NDJSON only when asked for ahead of JSON; `Accept: *\/*` and absent Accept get JSON. */
function wantsNdjson(accept: string | undefined): boolean {
  return accept !== undefined && accept.toLowerCase().includes(NDJSON)
}

/**
 * Signs lazily, one chunk per pull, so a 100,000-URL response never sits in memory at once and the
 * first lines leave while later ones are still being signed.
 */
function ndjsonStream(
  presigner: S3Presigner,
  items: readonly PresignItem[],
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let next = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = items.slice(next, next + STREAM_CHUNK_ITEMS)
      next += chunk.length
      const urls = await presigner.presignAll(chunk)
      let text = ''
      for (let i = 0; i < chunk.length; i++) {
        text += JSON.stringify({ key: chunk[i]!.key, url: urls[i] }) + '\n'
      }
      controller.enqueue(encoder.encode(text))
      if (next >= items.length) controller.close()
    },
  })
}
