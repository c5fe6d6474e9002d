import { describe, expect, inject, it } from 'vitest'
import { parseConfig } from '../../src/config/load'
import type { Config } from '../../src/config'
import type { Env } from '../../src/env'
import type { CloudFrontOrigin } from '../../src/origins/cloudfront'
import { TEST_TOKEN_SECRETS } from '../fixtures/token-secrets'

const keys = inject('testKeys')
const cdn = {
  type: 'cloudfront',
  baseUrl: 'https://d111111abcdef8.cloudfront.net',
  keyPairId: 'K2JCJMDEHXQW5F',
  privateKey: 'CDN_KEY',
}

function env(origin: Record<string, unknown>, extra: Partial<Env> = {}): Env {
  return {
    WAYBILL_ORIGINS: { cdn: origin },
    CDN_KEY: keys.rsaPkcs8,
    WAYBILL_TOKEN_SECRETS: TEST_TOKEN_SECRETS,
    ...extra,
  }
}

/** The origin `cdn`, as the CloudFront driver made it (its settings on it). */
function cloudFrontOf(config: Config): CloudFrontOrigin {
  const origin = config.origins.get('cdn')
  if (origin?.type !== 'cloudfront') throw new Error('not cloudfront')
  return origin as CloudFrontOrigin
}

describe('CloudFront origins', () => {
  it('parses with defaults: SHA1, base URL ending in "/", secure cookies', () => {
    const result = parseConfig(env(cdn))
    if (!result.ok) throw new Error(JSON.stringify(result.errors))
    const origin = cloudFrontOf(result.config)
    expect(origin.baseUrl).toBe('https://d111111abcdef8.cloudfront.net/')
    expect(origin.hash).toBe('SHA1')
    expect(origin.signingKeys.map((k) => k.keyPairId)).toEqual(['K2JCJMDEHXQW5F'])
    expect(origin.cookie).toEqual({
      path: '/',
      secure: true,
      httpOnly: true,
      sameSite: 'Lax',
      domain: undefined,
    })
  })

  it('lists previous keys after the active one', () => {
    const result = parseConfig(
      env(
        { ...cdn, previousKeys: [{ keyPairId: 'KOLD0000001', privateKey: 'OLD_KEY' }] },
        { OLD_KEY: keys.ecSec1 },
      ),
    )
    if (!result.ok) throw new Error(JSON.stringify(result.errors))
    const origin = cloudFrontOf(result.config)
    expect(origin.signingKeys.map((k) => [k.keyPairId, k.parsed.kind])).toEqual([
      ['K2JCJMDEHXQW5F', 'rsa'],
      ['KOLD0000001', 'ec'],
    ])
  })

  const cases: Array<[string, Record<string, unknown>, Partial<Env>, string]> = [
    [
      'a base URL with a query',
      { ...cdn, baseUrl: 'https://d.example/?a=1' },
      {},
      'WAYBILL_ORIGINS.cdn.baseUrl',
    ],
    [
      'a base URL that is not a URL',
      { ...cdn, baseUrl: 'cdn.example.com' },
      {},
      'WAYBILL_ORIGINS.cdn.baseUrl',
    ],
    ['a bad key pair id', { ...cdn, keyPairId: 'k-1' }, {}, 'WAYBILL_ORIGINS.cdn.keyPairId'],
    [
      'a lower-case secret name',
      { ...cdn, privateKey: 'cdn_key' },
      {},
      'WAYBILL_ORIGINS.cdn.privateKey',
    ],
    ['a missing secret', cdn, { CDN_KEY: undefined }, 'CDN_KEY'],
    [
      'a bad hash algorithm',
      { ...cdn, hashAlgorithm: 'MD5' },
      {},
      'WAYBILL_ORIGINS.cdn.hashAlgorithm',
    ],
    [
      'a bad cookie SameSite',
      { ...cdn, cookie: { sameSite: 'lax' } },
      {},
      'WAYBILL_ORIGINS.cdn.cookie.sameSite',
    ],
    [
      'SameSite=None without Secure',
      { ...cdn, cookie: { sameSite: 'None', secure: false } },
      {},
      'WAYBILL_ORIGINS.cdn.cookie.secure',
    ],
    [
      'an unknown field',
      { ...cdn, distributionId: 'E123' },
      {},
      'WAYBILL_ORIGINS.cdn.distributionId',
    ],
    [
      'a bad previous key',
      { ...cdn, previousKeys: [{ keyPairId: 'KOLD0000001', privateKey: 'OLD' }] },
      { OLD: keys.rsa1024 },
      'OLD',
    ],
  ]
  for (const [name, origin, extra, path] of cases) {
    it(name, () => {
      const result = parseConfig(env(origin, extra))
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.errors.map((e) => e.path)).toContain(path)
      expect(JSON.stringify(result)).not.toContain('PRIVATE KEY')
    })
  }
})

describe('CloudFront listFrom and signingWindow', () => {
  const s3 = { type: 's3', bucket: 'assets', region: 'us-east-1', credentials: 'S3' }
  const s3Secrets = {
    S3_ACCESS_KEY_ID: 'AKIDLISTFROM',
    S3_SECRET_ACCESS_KEY: 'listFromSecret0',
    WAYBILL_TOKEN_SECRETS: TEST_TOKEN_SECRETS,
  }

  it('accepts an S3 origin to list from and a window', () => {
    const result = parseConfig({
      WAYBILL_ORIGINS: { cdn: { ...cdn, listFrom: 'bucket', signingWindow: 600 }, bucket: s3 },
      CDN_KEY: keys.rsaPkcs8,
      ...s3Secrets,
    })
    if (!result.ok) throw new Error(JSON.stringify(result.errors))
    const origin = cloudFrontOf(result.config)
    expect(origin.listFrom).toBe('bucket')
    expect(origin.signingWindow).toBe(600)
  })

  it('takes no wildcard grant on an origin that forwards response overrides', () => {
    const grants = (wildcard: boolean) =>
      JSON.stringify([{ to: 'apiKey:web', origin: 'cdn', actions: ['read'], wildcard }])
    const forwarding = env({ ...cdn, responseOverrides: true })
    const plain = parseConfig({ ...forwarding, WAYBILL_GRANTS: grants(false) })
    if (!plain.ok) throw new Error(JSON.stringify(plain.errors))
    expect(cloudFrontOf(plain.config).responseOverrides).toBe(true)
    const refused = parseConfig({ ...forwarding, WAYBILL_GRANTS: grants(true) })
    expect(refused.ok).toBe(false)
    if (!refused.ok) {
      expect(refused.errors.map((e) => e.path)).toEqual(['WAYBILL_GRANTS.0.wildcard'])
      expect(refused.errors[0]!.message).toContain('response-content-type=text/html')
    }
    // Without responseOverrides (the default) a wildcard grant is fine.
    expect(parseConfig({ ...env(cdn), WAYBILL_GRANTS: grants(true) }).ok).toBe(true)
  })

  it('names a listFrom that is missing or not an S3 origin', () => {
    for (const listFrom of ['nowhere', 'cdn', 'Bad Name']) {
      const result = parseConfig({
        WAYBILL_ORIGINS: { cdn: { ...cdn, listFrom }, bucket: s3 },
        CDN_KEY: keys.rsaPkcs8,
        ...s3Secrets,
      })
      expect(result.ok).toBe(false)
      if (!result.ok)
        expect(result.errors.map((e) => e.path)).toEqual(['WAYBILL_ORIGINS.cdn.listFrom'])
    }
  })
})
