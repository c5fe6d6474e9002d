// API-key authentication: `Authorization: Bearer <key>`. Keys are configured as SHA-256 hashes; the
// presented key is hashed and compared with every configured hash in constant time, so neither the
// match position nor the number of matching bytes shows in the timing.

import { createMiddleware } from 'hono/factory'
import type { ApiKey } from '../config'
import { WaybillError } from '../errors'
import type { AppEnv } from '../http/types'
import type { Principal } from './principal'

const BEARER = /^Bearer[ \t]+([\x21-\x7e]{1,1024})[ \t]*$/i
const encoder = new TextEncoder()

function unauthorized(detail: string): WaybillError {
  return new WaybillError('unauthorized', detail, {
    headers: { 'www-authenticate': 'Bearer realm="waybill"' },
  })
}

/** Byte equality whose running time depends only on the length. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

/** The configured key whose hash matches `presented`, checking every key whatever matches. */
export async function findApiKey(
  keys: readonly ApiKey[],
  presented: string,
): Promise<ApiKey | undefined> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(presented)))
  let found: ApiKey | undefined
  for (const key of keys) {
    if (constantTimeEqual(key.sha256, digest) && found === undefined) found = key
  }
  return found
}

/**
 * Requires a valid API key and sets the `principal`. Needs `requireConfig()` before it.
 * With no keys configured every request is refused: deny by default.
 */
export function apiKeyAuth() {
  return createMiddleware<AppEnv>(async function apiKeyAuth(c, next) {
    const header = c.req.header('authorization')
    if (header === undefined) {
      throw unauthorized('Send an API key as "Authorization: Bearer <key>".')
    }
    const match = BEARER.exec(header)
    if (match === null) {
      throw unauthorized('The Authorization header must be "Bearer <key>".')
    }
    const key = await findApiKey(c.get('config').apiKeys, match[1]!)
    if (key === undefined) throw unauthorized('The API key is not valid.')
    const principal: Principal = { kind: 'api-key', id: key.id, origins: key.origins }
    c.set('principal', principal)
    await next()
  })
}
