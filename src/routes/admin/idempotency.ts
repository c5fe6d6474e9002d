// Idempotency-Key on the admin API's POSTs, with Stripe's semantics: the first request with a key
// is run and its answer kept (IDEMPOTENCY_TTL_S); a retry with the same key and the same request
// gets that answer again, with `Idempotent-Replayed: true`, and runs nothing; the same key with
// another request is a 409, as is a retry while the first is still being answered. Keys are each
// admin's own. An answer is kept when the request ran: not a 400, 413 or 415 (refused before it
// ran) nor a 5xx (failed): those keep nothing, and a retry with the same key runs again.
//
// The database holds the key only as a hash, and the answer sealed (AES-GCM) under a key derived
// from the Idempotency-Key: an answer showing a secret once (a new API key, a rotation) cannot be
// read from the database alone, only by the one who holds the Idempotency-Key too.

import { createMiddleware } from 'hono/factory'
import { claimIdempotency, keepIdempotent, releaseIdempotency } from '../../control/admin-store'
import { base64UrlDecode, base64UrlEncode, hexEncode } from '../../core/bytes'
import { conflict, invalid, WaybillError } from '../../errors'
import { readCapped } from '../../http/read-capped'
import type { Clock } from '../../clock'
import type { AdminAppEnv } from '../../middleware/types'
import {
  IDEMPOTENCY_TTL_S,
  MAX_BODY_BYTES,
  MAX_IDEMPOTENCY_KEY_CHARS,
  MIN_IDEMPOTENCY_KEY_CHARS,
} from '../../limits'
import { stored } from '../../services/admin/shared'

const KEY = new RegExp(`^[\\x21-\\x7e]{${MIN_IDEMPOTENCY_KEY_CHARS},${MAX_IDEMPOTENCY_KEY_CHARS}}$`)
const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The header, as the document names it on every admin POST. */
export const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  in: 'header' as const,
  required: false,
  description: `A key of your own for this request (a UUID will do), ${MIN_IDEMPOTENCY_KEY_CHARS} to ${MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters: a retry with the same key and request gets the first answer again (\`Idempotent-Replayed: true\`), for ${IDEMPOTENCY_TTL_S / 3600} hours; the same key with another request is a 409.`,
  schema: {
    type: 'string' as const,
    minLength: MIN_IDEMPOTENCY_KEY_CHARS,
    maxLength: MAX_IDEMPOTENCY_KEY_CHARS,
    pattern: '^[\\x21-\\x7e]+$',
  },
}

const sha256 = async (text: string) =>
  new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)))

/** JSON with each object's members in order: the same request, however it spells its body. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    )
    return `{${members.map(([name, member]) => `${JSON.stringify(name)}:${canonical(member)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** What "the same request" means: its method, path and query, and its body's JSON. */
async function fingerprint(request: Request): Promise<string | undefined> {
  const bytes = await readCapped(request.clone().body, MAX_BODY_BYTES)
  // Too large for any admin route: it refuses the request itself, which keeps nothing.
  if (bytes === undefined) return undefined
  const text = decoder.decode(bytes)
  let body = text
  try {
    body = canonical(JSON.parse(text))
  } catch {
    // Not JSON: the route refuses it (a 400 keeps nothing); its bytes name it meanwhile.
  }
  const url = new URL(request.url)
  return hexEncode(await sha256(`${request.method}\n${url.pathname}${url.search}\n${body}`))
}

/** The AES-GCM key an answer is sealed under: only the Idempotency-Key's holder can derive it. */
async function sealingKey(actor: string, key: string): Promise<CryptoKey> {
  const raw = await sha256(`waybill.idempotency.seal\n${actor}\n${key}`)
  return crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt'])
}

async function seal(secret: CryptoKey, answer: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12))
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv },
    secret,
    encoder.encode(answer),
  )
  return `${base64UrlEncode(iv)}.${base64UrlEncode(new Uint8Array(sealed))}`
}

async function open(secret: CryptoKey, sealed: string): Promise<string> {
  const [iv, data] = sealed.split('.').map((part) => base64UrlDecode(part))
  if (iv === undefined || data === undefined) throw new Error('an idempotent answer is malformed')
  return decoder.decode(await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, secret, data))
}

/** Statuses of a request that never ran: refused for its shape, size or type. */
const NEVER_RAN = new Set([400, 413, 415])

/** Idempotency-Key for an admin POST. Needs `adminAuthenticated` before it: keys are per admin. */
export function idempotency(clock: Clock) {
  return createMiddleware<AdminAppEnv>(async function idempotency(c, next) {
    const key = c.req.header('idempotency-key')
    if (key === undefined) return next()
    if (!KEY.test(key)) {
      throw invalid([
        {
          path: 'Idempotency-Key',
          message: `must be ${MIN_IDEMPOTENCY_KEY_CHARS} to ${MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters, hard to guess (a UUID will do)`,
        },
      ])
    }
    const request = await fingerprint(c.req.raw)
    if (request === undefined) return next()
    const { db } = c.get('config').control
    const actor = c.get('admin')
    const keySha256 = hexEncode(await sha256(`waybill.idempotency.id\n${key}`))
    const nowMs = clock().getTime()
    const { claimed, row } = await stored(() =>
      claimIdempotency(db, actor, keySha256, request, nowMs, nowMs + IDEMPOTENCY_TTL_S * 1000),
    )
    const secret = await sealingKey(actor, key)
    if (!claimed) {
      if (row.request_sha256 !== request) {
        throw conflict([
          {
            path: 'Idempotency-Key',
            message: 'was first sent with another request: send a new key with this one',
          },
        ])
      }
      if (row.status === null || row.answer === null) {
        throw new WaybillError(
          'conflict',
          'A request with this Idempotency-Key is still being answered; retry when it is.',
          {
            errors: [{ path: 'Idempotency-Key', message: 'is in use by a request under way' }],
            headers: { 'retry-after': '1' },
          },
        )
      }
      const { type, body } = JSON.parse(await open(secret, row.answer)) as {
        type: string | null
        body: string
      }
      return c.body(body, row.status as 201, {
        ...(type === null ? {} : { 'content-type': type }),
        'idempotent-replayed': 'true',
      })
    }
    await next()
    const status = c.res.status
    if (status >= 500 || NEVER_RAN.has(status)) {
      await stored(() => releaseIdempotency(db, actor, keySha256))
      return
    }
    const answer = JSON.stringify({
      type: c.res.headers.get('content-type'),
      body: await c.res.clone().text(),
    })
    await stored(async () =>
      keepIdempotent(db, actor, keySha256, status, await seal(secret, answer)),
    )
  })
}
