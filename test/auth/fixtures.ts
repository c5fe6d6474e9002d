// Test-time key pairs and tokens (generated per run, never committed) and a fake JWKS server.

import { SignJWT, exportJWK, generateKeyPair, type JWK, type JWTPayload } from 'jose'

export const ISSUER = 'https://issuer.test/'
export const AUDIENCE = 'waybill-tests'
export const JWKS_URL = 'https://issuer.test/.well-known/jwks.json'
export const ACCESS_TEAM = 'https://team.cloudflareaccess.com'
export const ACCESS_AUD = 'ab'.repeat(32)
export const ACCESS_CERTS = `${ACCESS_TEAM}/cdn-cgi/access/certs`
export const HS256_SECRET = 'hs256-test-secret-0123456789abcdef-0123456789'

export type Alg = 'RS256' | 'PS256' | 'ES256' | 'EdDSA'
export const ALGS: readonly Alg[] = ['RS256', 'PS256', 'ES256', 'EdDSA']

export interface TestKey {
  alg: Alg
  kid: string
  privateKey: CryptoKey
  publicJwk: JWK
}

export async function makeKey(alg: Alg, kid = `${alg}-key`): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' }
  return { alg, kid, privateKey, publicJwk }
}

export async function sign(
  key: TestKey | { alg: 'HS256'; secret: Uint8Array },
  claims: JWTPayload,
  options: { iat?: number; exp?: number; header?: Record<string, unknown> } = {},
): Promise<string> {
  const now = Math.floor(Date.parse('2026-11-23T10:00:00Z') / 1000)
  const jwt = new SignJWT({ sub: 'alice', iss: ISSUER, aud: AUDIENCE, ...claims })
    .setProtectedHeader({
      alg: key.alg,
      ...('kid' in key ? { kid: key.kid } : {}),
      ...options.header,
    })
    .setIssuedAt(options.iat ?? now)
    .setExpirationTime(options.exp ?? now + 600)
  return jwt.sign('secret' in key ? key.secret : key.privateKey)
}

/** A fetch that serves JWK sets by URL and counts requests; `down` makes it fail. */
export class FakeJwksServer {
  readonly sets = new Map<string, { keys: JWK[] }>()
  requests = 0
  down = false
  body: string | undefined

  fetch = (input: Request | string): Promise<Response> => {
    this.requests++
    if (this.down) return Promise.reject(new TypeError('fetch failed: connection refused'))
    return Promise.resolve(this.answer(typeof input === 'string' ? input : input.url))
  }

  private answer(url: string): Response {
    if (this.body !== undefined) return new Response(this.body, { status: 200 })
    const set = this.sets.get(url)
    if (set === undefined) return new Response('not found', { status: 404 })
    return Response.json(set)
  }
}
