// The JWT verifier by example: a token of each algorithm verifies, and each way a token is refused
// says why. Keys are imported once. test/auth/jwt.property.test.ts checks the same verifier
// against jose on generated tokens.

import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { JwtError, type JwtErrorCode } from '../../../src/core/jwt/errors'
import { hmacKey } from '../../../src/core/jwt/hmac'
import { parseProtectedHeader, payloadIsEncoded } from '../../../src/core/jwt/jws'
import { createLocalJwkSet } from '../../../src/core/jwt/jwk-set'
import type { Jwk, KeyResolver } from '../../../src/core/jwt/types'
import { jwtVerify, type JwtVerifyOptions } from '../../../src/core/jwt/verify'
import {
  ALGS,
  AUDIENCE,
  HS256_SECRET,
  ISSUER,
  makeKey,
  segment,
  sign,
  signSegments,
  type Alg,
  type TestKey,
} from '../../fixtures/auth'

const NOW = new Date('2026-11-23T10:00:00Z')
const NOW_S = NOW.getTime() / 1000
const SECRET = new TextEncoder().encode(HS256_SECRET)
const HS256 = { alg: 'HS256' as const, secret: SECRET }
const keys = {} as Record<Alg, TestKey>

const OPTIONS: JwtVerifyOptions = {
  algorithms: [...ALGS, 'HS256'],
  issuer: ISSUER,
  audience: [AUDIENCE, 'other-audience'],
  clockToleranceS: 60,
  now: NOW,
  requiredClaims: ['exp', 'sub'],
}

beforeAll(async () => {
  for (const alg of ALGS) keys[alg] = await makeKey(alg)
})

afterEach(() => {
  vi.restoreAllMocks()
})

function keySet(...jwks: Jwk[]): KeyResolver {
  return createLocalJwkSet({ keys: jwks.length > 0 ? jwks : ALGS.map((a) => keys[a].publicJwk) })
}

/** A resolver as src/auth/tokens.ts builds one: HS256 from the secret, the rest from `set`. */
function resolver(set = keySet()): KeyResolver {
  return (header) => (header.alg === 'HS256' ? hmacKey(SECRET) : set(header))
}

async function refusal(
  token: string,
  resolveKey = resolver(),
  options: Partial<JwtVerifyOptions> = {},
): Promise<{ code: JwtErrorCode; claim?: string }> {
  const error = await jwtVerify(token, resolveKey, { ...OPTIONS, ...options }).then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof JwtError)) throw new Error(`not refused with a JwtError: ${String(error)}`)
  return error.claim === undefined ? { code: error.code } : { code: error.code, claim: error.claim }
}

/** A token of `alg` over exactly this header and these claims (or payload text). */
async function raw(alg: Alg | 'HS256', header: object, claims: unknown): Promise<string> {
  const key =
    alg === 'HS256'
      ? await crypto.subtle.importKey('raw', SECRET, { name: 'HMAC', hash: 'SHA-256' }, false, [
          'sign',
        ])
      : keys[alg].privateKey
  return signSegments(alg, key, segment({ alg, ...header }), segment(claims))
}

const CLAIMS = { sub: 'alice', iss: ISSUER, aud: AUDIENCE, exp: NOW_S + 600 }

describe('jwtVerify accepts', () => {
  for (const alg of ALGS) {
    it(`an ${alg} token from its key in a JWK set`, async () => {
      const token = await sign(keys[alg], { roles: ['admin'] })
      const { header, payload } = await jwtVerify(token, resolver(), OPTIONS)
      expect(header).toMatchObject({ alg, kid: keys[alg].kid })
      expect(payload).toMatchObject({ sub: 'alice', roles: ['admin'], iss: ISSUER })
    })
  }

  it('an HS256 token with the shared secret', async () => {
    const { payload } = await jwtVerify(await sign(HS256, {}), resolver(), OPTIONS)
    expect(payload.sub).toBe('alice')
  })

  it('a token without kid when one key of its type fits', async () => {
    const token = await raw('ES256', {}, CLAIMS)
    await expect(jwtVerify(token, resolver(), OPTIONS)).resolves.toBeDefined()
  })

  it('an aud list naming one accepted audience, and an aud string naming another', async () => {
    for (const aud of [['x', 'other-audience'], 'other-audience']) {
      const token = await sign(keys.ES256, { aud })
      await expect(jwtVerify(token, resolver(), OPTIONS)).resolves.toBeDefined()
    }
  })

  it('exp and nbf up to the clock tolerance away', async () => {
    const token = await sign(keys.ES256, { nbf: NOW_S + 60 }, { exp: NOW_S - 59 })
    await expect(jwtVerify(token, resolver(), OPTIONS)).resolves.toBeDefined()
  })

  it('crit naming b64, with b64 true: the one extension understood', async () => {
    const token = await raw('ES256', { crit: ['b64'], b64: true }, CLAIMS)
    await expect(jwtVerify(token, resolver(), OPTIONS)).resolves.toBeDefined()
  })
})

describe('jwtVerify refuses, saying why', () => {
  const cases: Array<[string, () => string | Promise<string>, JwtErrorCode, string?]> = [
    ['alg none', () => `${segment({ alg: 'none' })}.${segment(CLAIMS)}.`, 'alg_not_allowed'],
    ['an alg not listed', () => raw('ES256', { alg: 'ES384' }, CLAIMS), 'alg_not_allowed'],
    ['no alg', () => `${segment({ typ: 'JWT' })}.${segment(CLAIMS)}.`, 'malformed'],
    ['two segments', () => `${segment({ alg: 'ES256' })}.${segment(CLAIMS)}`, 'malformed'],
    ['four segments', async () => `${await raw('ES256', {}, CLAIMS)}.`, 'malformed'],
    ['a header that is a list', () => `${segment([1])}.${segment(CLAIMS)}.`, 'malformed'],
    ['a padded header', () => `${segment({ alg: 'ES256' })}=.${segment(CLAIMS)}.`, 'malformed'],
    [
      'a padded signature',
      async () => `${await raw('ES256', {}, CLAIMS)}${'='.repeat(2)}`,
      'malformed',
    ],
    ['a payload that is a list', () => raw('ES256', {}, [CLAIMS]), 'malformed'],
    ['a payload that is not JSON', () => raw('ES256', {}, 'not json'), 'malformed'],
    [
      'crit naming an unknown extension',
      () => raw('ES256', { crit: ['exp'] }, CLAIMS),
      'unsupported',
    ],
    [
      'crit that is not a list',
      () => raw('ES256', { crit: 'b64', b64: true }, CLAIMS),
      'malformed',
    ],
    [
      'b64 false (an unencoded payload)',
      () => raw('ES256', { crit: ['b64'], b64: false }, CLAIMS),
      'malformed',
    ],
    ['a kid the set lacks', () => raw('ES256', { kid: 'rotated-out' }, CLAIMS), 'no_matching_key'],
    ['a kid that is not a string', () => raw('ES256', { kid: 1 }, CLAIMS), 'no_matching_key'],
    [
      'a tampered payload',
      async () => {
        const [header, , signature] = (await sign(keys.EdDSA, {})).split('.')
        return `${header}.${segment({ ...CLAIMS, sub: 'root' })}.${signature}`
      },
      'signature_invalid',
    ],
    [
      'an empty signature',
      () => `${segment({ alg: 'ES256' })}.${segment(CLAIMS)}.`,
      'signature_invalid',
    ],
    [
      'a missing sub',
      () => raw('ES256', {}, { ...CLAIMS, sub: undefined }),
      'claim_invalid',
      'sub',
    ],
    [
      'a missing exp',
      () => raw('ES256', {}, { ...CLAIMS, exp: undefined }),
      'claim_invalid',
      'exp',
    ],
    [
      'an exp that is a string',
      () => raw('ES256', {}, { ...CLAIMS, exp: String(NOW_S + 600) }),
      'claim_invalid',
      'exp',
    ],
    [
      'an iat that is null',
      () => raw('ES256', {}, { ...CLAIMS, iat: null }),
      'claim_invalid',
      'iat',
    ],
    [
      'a wrong issuer',
      () => sign(keys.ES256, { iss: 'https://evil.test/' }),
      'claim_invalid',
      'iss',
    ],
    ['no issuer', () => raw('ES256', {}, { ...CLAIMS, iss: undefined }), 'claim_invalid', 'iss'],
    ['a wrong audience', () => sign(keys.ES256, { aud: ['x', 'y'] }), 'claim_invalid', 'aud'],
    [
      'an audience that is a number',
      () => raw('ES256', {}, { ...CLAIMS, aud: 1 }),
      'claim_invalid',
      'aud',
    ],
    ['nbf past the tolerance', () => sign(keys.ES256, { nbf: NOW_S + 61 }), 'claim_invalid', 'nbf'],
    ['exp at the tolerance', () => sign(keys.ES256, {}, { exp: NOW_S - 60 }), 'expired', 'exp'],
  ]
  for (const [name, token, code, claim] of cases) {
    it(name, async () => {
      expect(await refusal(await token())).toEqual(claim === undefined ? { code } : { code, claim })
    })
  }

  it('HS256 keyed with an RSA public key: the key does not fit the algorithm', async () => {
    const token = await sign(HS256, {})
    const rsa = await createLocalJwkSet({ keys: [keys.RS256.publicJwk] })({ alg: 'RS256' })
    expect(await refusal(token, () => Promise.resolve(rsa))).toEqual({ code: 'invalid_key' })
  })

  it('an RS256 key for a PS256 token', async () => {
    const token = await sign(keys.PS256, {})
    const anyRsa = { ...keys.PS256.publicJwk, alg: undefined }
    const asPs256 = await createLocalJwkSet({ keys: [anyRsa] })({ alg: 'PS256' })
    const asRs256 = await createLocalJwkSet({ keys: [anyRsa] })({ alg: 'RS256' })
    expect(await refusal(token, () => Promise.resolve(asRs256))).toEqual({ code: 'invalid_key' })
    await expect(jwtVerify(token, () => Promise.resolve(asPs256), OPTIONS)).resolves.toBeDefined()
  })

  it('an RSA key under 2048 bits', async () => {
    const short = (await crypto.subtle.generateKey(
      {
        name: 'RSASSA-PKCS1-v1_5',
        modulusLength: 1024,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: 'SHA-256',
      },
      true,
      ['sign', 'verify'],
    )) as CryptoKeyPair
    const jwk = (await crypto.subtle.exportKey('jwk', short.publicKey)) as Jwk
    const token = await signSegments(
      'RS256',
      short.privateKey,
      segment({ alg: 'RS256' }),
      segment(CLAIMS),
    )
    expect(await refusal(token, keySet(jwk))).toEqual({ code: 'invalid_key' })
  })

  it('two keys that fit: refused, not tried in turn', async () => {
    const unnamed = { ...keys.ES256.publicJwk, kid: undefined }
    const token = await raw('ES256', {}, CLAIMS)
    expect(await refusal(token, keySet(keys.ES256.publicJwk, unnamed))).toEqual({
      code: 'multiple_matching_keys',
    })
  })

  it.each<[string, Record<string, unknown>]>([
    ['use "enc"', { use: 'enc' }],
    ['another alg', { alg: 'ES384' }],
    ['key_ops without verify', { key_ops: ['sign'] }],
    ['repeated key_ops', { key_ops: ['verify', 'verify'] }],
    ['an ext that is not a boolean', { ext: 'yes' }],
    ['another curve', { crv: 'P-384' }],
  ])('a key whose %s does not fit', async (_, change) => {
    const token = await sign(keys.ES256, {})
    expect(await refusal(token, keySet({ ...keys.ES256.publicJwk, ...change }))).toEqual({
      code: 'no_matching_key',
    })
  })

  it('a key whose key_ops allow more than a public key can do does not import', async () => {
    const token = await sign(keys.ES256, {})
    const jwk = { ...keys.ES256.publicJwk, key_ops: ['verify', 'sign'] }
    expect(await refusal(token, keySet(jwk))).toEqual({ code: 'invalid_key' })
  })

  it('an invalid date or tolerance, rather than letting every time check pass', async () => {
    const token = await sign(keys.ES256, {})
    for (const options of [{ now: new Date(NaN) }, { clockToleranceS: NaN }]) {
      await expect(jwtVerify(token, resolver(), { ...OPTIONS, ...options })).rejects.toThrow(
        TypeError,
      )
    }
  })
})

describe('createLocalJwkSet', () => {
  it('imports each key once per algorithm, however many tokens it verifies', async () => {
    const importKey = vi.spyOn(crypto.subtle, 'importKey')
    const set = keySet()
    for (let i = 0; i < 3; i++) {
      for (const alg of ALGS) await jwtVerify(await sign(keys[alg], {}), set, OPTIONS)
    }
    expect(importKey).toHaveBeenCalledTimes(ALGS.length)
  })

  it('copies the set: a later change to it changes nothing', async () => {
    const jwks = { keys: [{ ...keys.ES256.publicJwk }] }
    const set = createLocalJwkSet(jwks)
    jwks.keys[0]!.kid = 'changed'
    await expect(jwtVerify(await sign(keys.ES256, {}), set, OPTIONS)).resolves.toBeDefined()
  })

  it('refuses what is not a JWK set', () => {
    for (const jwks of [{ keys: [1] }, { keys: {} }, [], { keys: [{}], f: () => 1 }]) {
      expect(() => createLocalJwkSet(jwks as never)).toThrow(
        expect.objectContaining({ code: 'invalid_key_set' }),
      )
    }
  })
})

describe('hmacKey', () => {
  it('imports a secret once', async () => {
    const secret = new TextEncoder().encode('another-secret-0123456789abcdef-0123')
    // jose imports the secret for each token it signs: signed before counting.
    const token = await sign(HS256, {})
    const importKey = vi.spyOn(crypto.subtle, 'importKey')
    const keyFor = () => hmacKey(secret)
    for (let i = 0; i < 3; i++) {
      await expect(refusal(token, keyFor)).resolves.toEqual({
        code: 'signature_invalid',
      })
    }
    expect(await hmacKey(secret)).toBe(await keyFor())
    expect(importKey).toHaveBeenCalledTimes(1)
  })
})

describe('the steps', () => {
  it('parseProtectedHeader takes a JSON object, in canonical base64url only', () => {
    expect(parseProtectedHeader(segment({ alg: 'ES256' }))).toEqual({ alg: 'ES256' })
    for (const bad of [segment([]), segment('"x"'), 'e30=', 'e30 ', 'e31', '', '!']) {
      expect(() => parseProtectedHeader(bad), bad).toThrow(
        expect.objectContaining({ code: 'malformed' }),
      )
    }
  })

  it('payloadIsEncoded: b64 counts only under crit', () => {
    expect(payloadIsEncoded({ alg: 'ES256' })).toBe(true)
    expect(payloadIsEncoded({ alg: 'ES256', b64: false })).toBe(true)
    expect(payloadIsEncoded({ alg: 'ES256', crit: ['b64'], b64: false })).toBe(false)
    expect(() => payloadIsEncoded({ crit: ['b64'] })).toThrow(
      expect.objectContaining({ code: 'malformed' }),
    )
    expect(() => payloadIsEncoded({ crit: ['b64', 'x'], b64: true })).toThrow(
      expect.objectContaining({ code: 'unsupported' }),
    )
  })
})
