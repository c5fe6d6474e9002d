// Why waybill keeps its own JWKS cache (src/auth/jwks.ts) instead of jose's createRemoteJWKSet:
// when a refetch fails, jose's set throws and tries again on the next call, so an issuer outage
// refuses every token and sends a fetch (up to its timeout) per request. waybill's keeps serving
// the keys it has and tries again at most once per cooldown. Both are given the same fake issuer.

import { createRemoteJWKSet, customFetch, jwtVerify } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { RemoteJwksCache } from '../../src/auth/jwks'
import { JWKS_COOLDOWN_MS, JWKS_MAX_AGE_MS } from '../../src/limits'
import {
  AUDIENCE,
  FakeJwksServer,
  ISSUER,
  JWKS_URL,
  makeKey,
  sign,
  type TestKey,
} from '../fixtures/auth'

const NOW = new Date('2026-11-23T10:00:00Z')
let key: TestKey
let token: string

beforeAll(async () => {
  key = await makeKey('ES256')
  token = await sign(key, {})
})

function issuer() {
  const server = new FakeJwksServer()
  server.sets.set(JWKS_URL, { keys: [key.publicJwk] })
  return server
}

/** Whether `token` verifies against `keys`, at the test's fixed time. */
async function verifies(keys: Parameters<typeof jwtVerify>[1]): Promise<boolean> {
  const options = { issuer: ISSUER, audience: AUDIENCE, currentDate: NOW }
  return jwtVerify(token, keys as never, options).then(
    () => true,
    () => false,
  )
}

describe("jose's createRemoteJWKSet", () => {
  it('refuses every token, and fetches on every call, once a refetch fails', async () => {
    const server = issuer()
    // A cache age of 0 makes every call a refetch: the state after JWKS_MAX_AGE_MS, without a clock.
    const keys = createRemoteJWKSet(new URL(JWKS_URL), {
      cacheMaxAge: 0,
      [customFetch]: server.fetch,
    })
    expect(await verifies(keys)).toBe(true)
    server.down = true
    for (let i = 0; i < 3; i++) expect(await verifies(keys)).toBe(false)
    expect(server.requests).toBe(4)
  })
})

describe("waybill's RemoteJwksCache", () => {
  it('keeps the keys it has while the issuer is down, and tries again once per cooldown', async () => {
    const server = issuer()
    let now = NOW.getTime()
    const keys = new RemoteJwksCache(server.fetch, () => now).resolver(JWKS_URL)
    expect(await verifies(keys)).toBe(true)
    server.down = true
    now += JWKS_MAX_AGE_MS
    for (let i = 0; i < 3; i++) expect(await verifies(keys)).toBe(true)
    expect(server.requests).toBe(2)
    now += JWKS_COOLDOWN_MS
    expect(await verifies(keys)).toBe(true)
    expect(server.requests).toBe(3)
  })
})
