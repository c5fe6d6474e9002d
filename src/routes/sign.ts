import { Hono } from 'hono'
import { actionFor, authorize } from '../auth/policy'
import { cacheControlUntil, etagOf } from '../http/cache'
import {
  JSON_VALUES_PER_ITEM,
  MAX_BODY_BYTES,
  MAX_SIGN_JSON_VALUES,
  STREAM_CHUNK_ITEMS,
} from '../config/limits'
import type { Origin } from '../config'
import { commonKeyPrefix } from '../core/cloudfront/sign'
import type { PresignItem } from '../core/s3/presign'
import type { FieldError } from '../errors'
import { batchSigner, type BatchSigner } from '../services/signers'
import { readJsonBody } from '../http/json-body'
import type { AppEnv } from '../http/types'
import type { Clock } from '../http/clock'
import { parseSignRequest, type SignRequest } from './sign-request'

const NDJSON = 'application/x-ndjson'
/** Signed answers differ per caller. */
const VARY = 'Authorization, Cookie'

/** `POST /v1/sign`: a batch of presigned URLs for one origin, method and expiry. */
export function signRoutes(clock: Clock) {
  return new Hono<AppEnv>().post('/', async (c) => {
    const config = c.get('config')
    const principal = c.get('principal')
    const raw = await readJsonBody(c, {
      bytes: MAX_BODY_BYTES,
      values: Math.max(MAX_SIGN_JSON_VALUES, config.maxBatch * JSON_VALUES_PER_ITEM),
    })
    const request = parseSignRequest(raw, { maxBatch: config.maxBatch })
    const action = actionFor(request.method)
    const log = c.get('log')
    Object.assign(log, { origin: request.origin, action, items: request.items.length })
    const keyPath =
      request.field === 'keys' ? (i: number) => `keys.${i}` : (i: number) => `items.${i}.key`
    const itemBase = (i: number) => `${request.field}.${i}`
    // A wildcard policy reaches every key under the batch's common prefix, not only these.
    const wildcard =
      request.policy === 'wildcard'
        ? [{ prefix: commonKeyPrefix(request.items.map((item) => item.key)), path: 'policy' }]
        : undefined
    const permit = authorize(config, principal, {
      origin: request.origin,
      action,
      items: request.items,
      itemPath: keyPath,
      itemBase,
      under: wildcard,
      expiresIn: request.expiresIn,
      signingWindow: request.signingWindow,
      fits: (origin) => originFits(origin, request),
    })
    if (request.debug) {
      // Deny by default here too: seeing what is signed is its own grant.
      authorize(config, principal, {
        origin: request.origin,
        action: 'debug',
        items: request.items,
        itemPath: keyPath,
      })
    }
    const now = clock()
    const signer = batchSigner(permit, { method: request.method, now })
    const expiresAt = signer.expiresAt.toISOString()

    if (wantsNdjson(c.req.header('accept'))) {
      return new Response(ndjsonStream(signer, request.items, request.debug), {
        headers: {
          'cache-control': 'no-store',
          'waybill-expires-at': expiresAt,
          'content-type': `${NDJSON}; charset=utf-8`,
          vary: VARY,
        },
      })
    }
    const signed = await signer.sign()
    // Written by hand: JSON.stringify of 10,000 small objects costs more than the signing does.
    // A signed URL needs no JSON escaping: it is printable ASCII with every quote and backslash
    // percent-encoded (S3 query and path encoding; CloudFront URLs go through the same encoder).
    const parts: string[] = new Array(signed.length)
    for (let i = 0; i < signed.length; i++) {
      const item = request.items[i]!
      parts[i] = request.debug
        ? `{"key":${JSON.stringify(item.key)},"url":"${signed[i]}","debug":${JSON.stringify(signer.explain(item))}}`
        : `{"key":${JSON.stringify(item.key)},"url":"${signed[i]}"}`
    }
    let body = `{"origin":${JSON.stringify(permit.origin.name)},"method":"${request.method}","expiresAt":"${expiresAt}","urls":[`
    body += parts.join(',')
    body += ']}'
    return c.body(body, 200, {
      'content-type': 'application/json',
      'cache-control': cacheControlUntil(signer.expiresAt, now),
      etag: await etagOf(body),
      'waybill-expires-at': expiresAt,
      vary: VARY,
    })
  })
}

/** What the request asks that the origin's type cannot do. */
function originFits(origin: Origin, request: SignRequest): FieldError[] {
  const errors: FieldError[] = []
  if (origin.type === 's3') {
    if (request.policy !== undefined) {
      errors.push({ path: 'policy', message: 'applies to CloudFront origins only' })
    }
  } else {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      errors.push({ path: 'method', message: 'must be GET or HEAD for a CloudFront origin' })
    }
    request.items.forEach((item, i) => {
      if (item.response !== undefined || item.versionId !== undefined) {
        errors.push({
          path: `items.${i}`,
          message: 'response overrides and versionId are not supported by CloudFront origins',
        })
      }
    })
  }
  return errors
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
  signer: BatchSigner,
  items: readonly PresignItem[],
  debug: boolean,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let next = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = items.slice(next, next + STREAM_CHUNK_ITEMS)
      next += chunk.length
      const urls = await signer.sign(next - chunk.length, next)
      let text = ''
      for (let i = 0; i < chunk.length; i++) {
        const line = { key: chunk[i]!.key, url: urls[i] }
        text += JSON.stringify(debug ? { ...line, debug: signer.explain(chunk[i]!) } : line) + '\n'
      }
      controller.enqueue(encoder.encode(text))
      if (next >= items.length) controller.close()
    },
  })
}
