import { describe, expect, it } from 'vitest'
import { loadConfig, parseConfig } from '../../src/config/load'
import type { Config } from '../../src/config'
import type { S3Origin } from '../../src/origins/s3'
import type { Env } from '../../src/env'
import { TEST_TOKEN_SECRETS } from '../fixtures/token-secrets'

const ACCESS_KEY_ID = 'AKIDCONFIGTESTVALUE'
const SECRET = 'configTestSecret/shouldNeverAppear+0123'
const TOKEN = 'configTestSessionToken/shouldNeverAppear=='
const HASH = 'a'.repeat(64)

function env(overrides: Partial<Env> = {}): Env {
  return {
    WAYBILL_TOKEN_SECRETS: TEST_TOKEN_SECRETS,
    WAYBILL_ORIGINS: {
      photos: { type: 's3', bucket: 'photos', region: 'eu-west-1', credentials: 'PHOTOS' },
    },
    PHOTOS_ACCESS_KEY_ID: ACCESS_KEY_ID,
    PHOTOS_SECRET_ACCESS_KEY: SECRET,
    ...overrides,
  }
}

function s3(config: Config, name: string): S3Origin {
  const origin = config.origins.get(name)
  if (origin?.type !== 's3') throw new Error(`no S3 origin ${name}`)
  return origin as S3Origin
}

function ok(input: Env): Config {
  const result = parseConfig(input)
  if (!result.ok) throw new Error(`expected a valid config: ${JSON.stringify(result.errors)}`)
  return result.config
}

/** The error paths of an invalid config, after checking no secret leaked into any message. */
function errorPaths(input: Env): string[] {
  const result = parseConfig(input)
  if (result.ok) throw new Error('expected an invalid config')
  const text = JSON.stringify(result)
  for (const secret of [SECRET, TOKEN, ACCESS_KEY_ID]) expect(text).not.toContain(secret)
  return result.errors.map((e) => e.path)
}

function origins(value: unknown): Partial<Env> {
  return { WAYBILL_ORIGINS: value }
}

describe('valid configurations', () => {
  it('resolves an AWS origin to its virtual-hosted regional endpoint, with defaults', () => {
    const config = ok(env())
    const photos = s3(config, 'photos')
    expect(photos.endpoint).toEqual({
      protocol: 'https:',
      host: 'photos.s3.eu-west-1.amazonaws.com',
      basePath: '',
    })
    expect(photos.style).toBe('virtual')
    expect(photos.credentials).toEqual({
      accessKeyId: ACCESS_KEY_ID,
      secretAccessKey: SECRET,
      sessionToken: undefined,
    })
    expect(config.maxBatch).toBe(10_000)
    expect(config.defaultExpiresIn).toBe(900)
    expect(config.apiKeys).toEqual([])
    expect(Object.isFrozen(config)).toBe(true)
    expect(Object.isFrozen(photos)).toBe(true)
  })

  it('accepts WAYBILL_ORIGINS as a JSON string (a secret or .dev.vars entry) too', () => {
    const asObject = ok(env())
    const asString = ok(env({ WAYBILL_ORIGINS: JSON.stringify(env().WAYBILL_ORIGINS) }))
    // The same settings (the capabilities the driver gives each are functions of their own).
    const settings = ({ type, bucket, region, style, endpoint, credentials, keys }: S3Origin) => ({
      ...{ type, bucket, region, style, endpoint, credentials, keys },
    })
    expect(settings(s3(asString, 'photos'))).toEqual(settings(s3(asObject, 'photos')))
  })

  it('defaults a custom endpoint to path style, and honours virtual style with a port', () => {
    const config = ok(
      env(
        origins({
          r2: {
            type: 's3',
            bucket: 'assets',
            region: 'auto',
            endpoint: 'https://abc123.r2.cloudflarestorage.com',
            credentials: 'PHOTOS',
          },
          local: {
            type: 's3',
            bucket: 'demo',
            region: 'us-east-1',
            endpoint: 'http://localhost:7070/',
            style: 'virtual',
            credentials: 'PHOTOS',
          },
        }),
      ),
    )
    expect(s3(config, 'r2').endpoint).toEqual({
      protocol: 'https:',
      host: 'abc123.r2.cloudflarestorage.com',
      basePath: '/assets',
    })
    expect(s3(config, 'local').endpoint).toEqual({
      protocol: 'http:',
      host: 'demo.localhost:7070',
      basePath: '',
    })
  })

  it('lets origins share credentials or use their own, with an optional session token', () => {
    const config = ok(
      env({
        ...origins({
          a: { type: 's3', bucket: 'bucket-a', region: 'us-east-1', credentials: 'PHOTOS' },
          b: { type: 's3', bucket: 'bucket-b', region: 'us-east-1', credentials: 'PHOTOS' },
          c: { type: 's3', bucket: 'bucket-c', region: 'us-east-1', credentials: 'TEMP_2' },
        }),
        TEMP_2_ACCESS_KEY_ID: 'ASIATEMP',
        TEMP_2_SECRET_ACCESS_KEY: 'temp-secret',
        TEMP_2_SESSION_TOKEN: TOKEN,
      }),
    )
    expect(s3(config, 'a').credentials).toEqual(s3(config, 'b').credentials)
    expect(s3(config, 'c').credentials).toEqual({
      accessKeyId: 'ASIATEMP',
      secretAccessKey: 'temp-secret',
      sessionToken: TOKEN,
    })
  })

  it('parses API keys into ids, labels and hashes', () => {
    const config = ok(
      env({
        WAYBILL_API_KEYS: JSON.stringify([
          { id: 'web', sha256: HASH, label: 'the web frontend' },
          { id: 'admin', sha256: 'b'.repeat(64) },
        ]),
      }),
    )
    const [web, admin] = config.apiKeys
    expect(web).toEqual({
      id: 'web',
      label: 'the web frontend',
      sha256: new Uint8Array(32).fill(0xaa),
    })
    expect(admin!.id).toBe('admin')
    expect(admin!.label).toBeUndefined()
  })

  it('reads limits given as strings (as wrangler vars often are)', () => {
    const config = ok(env({ WAYBILL_MAX_BATCH: '500', WAYBILL_DEFAULT_EXPIRES_S: 3600 }))
    expect(config.maxBatch).toBe(500)
    expect(config.defaultExpiresIn).toBe(3600)
  })
})

describe('invalid configurations name the variable and field', () => {
  const s3 = { type: 's3', bucket: 'photos', region: 'eu-west-1', credentials: 'PHOTOS' }
  const cases: Array<[string, Partial<Env>, string]> = [
    ['WAYBILL_ORIGINS missing', { WAYBILL_ORIGINS: undefined }, 'WAYBILL_ORIGINS'],
    ['WAYBILL_ORIGINS not JSON', { WAYBILL_ORIGINS: '{photos:' }, 'WAYBILL_ORIGINS'],
    ['WAYBILL_ORIGINS an array', origins([s3]), 'WAYBILL_ORIGINS'],
    ['WAYBILL_ORIGINS empty', origins({}), 'WAYBILL_ORIGINS'],
    ['a bad origin name', origins({ 'Bad Name': s3 }), 'WAYBILL_ORIGINS.Bad Name'],
    ['an origin that is not an object', origins({ photos: 'x' }), 'WAYBILL_ORIGINS.photos'],
    ['an unknown type', origins({ photos: { ...s3, type: 'gcs' } }), 'WAYBILL_ORIGINS.photos.type'],
    [
      'an unknown field',
      origins({ photos: { ...s3, buckett: 'x' } }),
      'WAYBILL_ORIGINS.photos.buckett',
    ],
    [
      'an upper-case bucket',
      origins({ photos: { ...s3, bucket: 'Photos' } }),
      'WAYBILL_ORIGINS.photos.bucket',
    ],
    [
      'a too-short bucket',
      origins({ photos: { ...s3, bucket: 'ab' } }),
      'WAYBILL_ORIGINS.photos.bucket',
    ],
    [
      'an IP-like bucket',
      origins({ photos: { ...s3, bucket: '192.168.1.1' } }),
      'WAYBILL_ORIGINS.photos.bucket',
    ],
    [
      'a bucket with ..',
      origins({ photos: { ...s3, bucket: 'a..b' } }),
      'WAYBILL_ORIGINS.photos.bucket',
    ],
    [
      'a bad region',
      origins({ photos: { ...s3, region: 'EU West' } }),
      'WAYBILL_ORIGINS.photos.region',
    ],
    [
      'an endpoint with a path',
      origins({ photos: { ...s3, endpoint: 'https://s3.example.com/base' } }),
      'WAYBILL_ORIGINS.photos.endpoint',
    ],
    [
      'an endpoint with a query',
      origins({ photos: { ...s3, endpoint: 'https://s3.example.com/?a=1' } }),
      'WAYBILL_ORIGINS.photos.endpoint',
    ],
    [
      'an endpoint with credentials',
      origins({ photos: { ...s3, endpoint: 'https://user:pw@s3.example.com' } }),
      'WAYBILL_ORIGINS.photos.endpoint',
    ],
    [
      'an ftp endpoint',
      origins({ photos: { ...s3, endpoint: 'ftp://s3.example.com' } }),
      'WAYBILL_ORIGINS.photos.endpoint',
    ],
    [
      'a bad style',
      origins({ photos: { ...s3, style: 'subdomain' } }),
      'WAYBILL_ORIGINS.photos.style',
    ],
    [
      'a dotted bucket virtual-hosted over HTTPS',
      origins({ photos: { ...s3, bucket: 'my.photos', style: 'virtual' } }),
      'WAYBILL_ORIGINS.photos.style',
    ],
    [
      'a lower-case credentials reference',
      origins({ photos: { ...s3, credentials: 'photos' } }),
      'WAYBILL_ORIGINS.photos.credentials',
    ],
    ['a missing secret', { PHOTOS_SECRET_ACCESS_KEY: undefined }, 'PHOTOS_SECRET_ACCESS_KEY'],
    ['a missing access key id', { PHOTOS_ACCESS_KEY_ID: '' }, 'PHOTOS_ACCESS_KEY_ID'],
    ['a malformed session token', { PHOTOS_SESSION_TOKEN: `${TOKEN} x` }, 'PHOTOS_SESSION_TOKEN'],
    ['WAYBILL_API_KEYS not JSON', { WAYBILL_API_KEYS: '[{' }, 'WAYBILL_API_KEYS'],
    ['WAYBILL_API_KEYS not an array', { WAYBILL_API_KEYS: '{}' }, 'WAYBILL_API_KEYS'],
    [
      'an API key with a bad hash',
      { WAYBILL_API_KEYS: JSON.stringify([{ id: 'k', sha256: 'ABC' }]) },
      'WAYBILL_API_KEYS.0.sha256',
    ],
    [
      'duplicate API key ids',
      {
        WAYBILL_API_KEYS: JSON.stringify([
          { id: 'k', sha256: HASH },
          { id: 'k', sha256: HASH },
        ]),
      },
      'WAYBILL_API_KEYS.1.id',
    ],
    [
      'an API key with an unknown field',
      { WAYBILL_API_KEYS: JSON.stringify([{ id: 'k', sha256: HASH, origins: ['*'] }]) },
      'WAYBILL_API_KEYS.0.origins',
    ],
    [
      'an API key with a label that is not a string',
      { WAYBILL_API_KEYS: JSON.stringify([{ id: 'k', sha256: HASH, label: 7 }]) },
      'WAYBILL_API_KEYS.0.label',
    ],
    [
      'a bad key policy',
      origins({ photos: { ...s3, keys: 'strict' } }),
      'WAYBILL_ORIGINS.photos.keys',
    ],
    ['WAYBILL_MAX_BATCH 0', { WAYBILL_MAX_BATCH: '0' }, 'WAYBILL_MAX_BATCH'],
    ['WAYBILL_MAX_BATCH over the ceiling', { WAYBILL_MAX_BATCH: 100_001 }, 'WAYBILL_MAX_BATCH'],
    ['WAYBILL_MAX_BATCH not a number', { WAYBILL_MAX_BATCH: 'lots' }, 'WAYBILL_MAX_BATCH'],
    [
      'WAYBILL_DEFAULT_EXPIRES_S over 7 days',
      { WAYBILL_DEFAULT_EXPIRES_S: '604801' },
      'WAYBILL_DEFAULT_EXPIRES_S',
    ],
  ]

  for (const [name, overrides, path] of cases) {
    it(name, () => {
      expect(errorPaths(env(overrides))).toContain(path)
    })
  }

  it('reports every problem at once', () => {
    const paths = errorPaths(
      env({
        ...origins({ photos: { type: 's3', bucket: 'X', region: '?', credentials: 'PHOTOS' } }),
        PHOTOS_SECRET_ACCESS_KEY: undefined,
        WAYBILL_MAX_BATCH: '-1',
      }),
    )
    expect(paths).toEqual(
      expect.arrayContaining([
        'WAYBILL_ORIGINS.photos.bucket',
        'WAYBILL_ORIGINS.photos.region',
        'PHOTOS_SECRET_ACCESS_KEY',
        'WAYBILL_MAX_BATCH',
      ]),
    )
  })

  it('no API keys at all is valid', () => {
    expect(ok(env({ WAYBILL_API_KEYS: '' })).apiKeys).toEqual([])
    expect(ok(env({ WAYBILL_API_KEYS: undefined })).apiKeys).toEqual([])
  })
})

describe('WAYBILL_LINK_USES', () => {
  const namespace = { idFromName: () => ({}), get: () => ({}) }

  it('is optional, and needs no control plane: the counters are all it needs', () => {
    expect(ok(env()).linkUses).toBeUndefined()
    expect(ok(env({ WAYBILL_LINK_USES: '' })).linkUses).toBeUndefined()
    const config = ok(env({ WAYBILL_LINK_USES: namespace }))
    expect(config.linkUses).toBe(namespace)
    expect(config.control).toBeUndefined()
  })

  it('must be a Durable Object namespace binding, and says how to declare one', () => {
    for (const wrong of ['LinkUses', 1, { idFromName: () => ({}) }]) {
      const errors = errorList(env({ WAYBILL_LINK_USES: wrong }))
      expect(errors.map((e) => e.path)).toEqual(['WAYBILL_LINK_USES'])
      expect(errors[0]!.message).toMatch(/class LinkUses/)
    }
  })
})

describe('loadConfig', () => {
  it('parses once per env object', () => {
    const first = env()
    expect(loadConfig(first)).toBe(loadConfig(first))
    expect(loadConfig(env())).not.toBe(loadConfig(first))
  })
})

const PHOTOS = { type: 's3', bucket: 'photos', region: 'eu-west-1', credentials: 'PHOTOS' }

function errorList(input: Env): readonly { path: string; message: string }[] {
  const result = parseConfig(input)
  if (result.ok) throw new Error('expected an invalid config')
  return result.errors
}

describe('edge cases a mutation run found untested', () => {
  it('refuses an endpoint with only a user name', () => {
    const paths = errorList(
      env({ WAYBILL_ORIGINS: { photos: { ...PHOTOS, endpoint: 'https://user@s3.example.com' } } }),
    ).map((e) => e.path)
    expect(paths).toEqual(['WAYBILL_ORIGINS.photos.endpoint'])
  })

  it('refuses an empty WAYBILL_ORIGINS string like a missing one', () => {
    for (const value of ['', '  ']) {
      expect(errorList(env({ WAYBILL_ORIGINS: value })).map((e) => e.path)).toEqual([
        'WAYBILL_ORIGINS',
      ])
    }
  })

  it('reports a missing shared secret once', () => {
    const found = errorList(
      env({
        WAYBILL_ORIGINS: { a: PHOTOS, b: { ...PHOTOS, bucket: 'other' } },
        PHOTOS_SECRET_ACCESS_KEY: undefined,
      }),
    )
    expect(found.map((e) => e.path)).toEqual(['PHOTOS_SECRET_ACCESS_KEY'])
  })

  it('does not blame the style of an http endpoint that is invalid for another reason', () => {
    const found = errorList(
      env({
        WAYBILL_ORIGINS: {
          photos: { ...PHOTOS, bucket: 'my.photos', endpoint: 'http://x/y', style: 'virtual' },
        },
      }),
    )
    expect(found.map((e) => e.path)).toEqual(['WAYBILL_ORIGINS.photos.endpoint'])
  })
})

describe('signing windows, POST support and listFrom', () => {
  it('defaults to no window and POST support', () => {
    const origin = s3(ok(env()), 'photos')
    expect(origin.signingWindow).toBe(0)
    expect(origin.postPolicy).toBe(true)
  })

  it('reads a window and a store without POST', () => {
    const config = ok(
      env({
        WAYBILL_ORIGINS: {
          photos: {
            type: 's3',
            bucket: 'photos',
            region: 'auto',
            credentials: 'PHOTOS',
            signingWindow: 3600,
            postPolicy: false,
          },
        },
      }),
    )
    expect(s3(config, 'photos').signingWindow).toBe(3600)
    expect(s3(config, 'photos').postPolicy).toBe(false)
  })

  it('names bad windows, POST flags and listFrom references', () => {
    const bad = (fields: Record<string, unknown>) =>
      errorPaths(
        env({
          WAYBILL_ORIGINS: {
            photos: {
              type: 's3',
              bucket: 'photos',
              region: 'auto',
              credentials: 'PHOTOS',
              ...fields,
            },
          },
        }),
      )
    for (const signingWindow of [-1, 0.5, 86_401, '3600']) {
      expect(bad({ signingWindow })).toEqual(['WAYBILL_ORIGINS.photos.signingWindow'])
    }
    expect(bad({ postPolicy: 'no' })).toEqual(['WAYBILL_ORIGINS.photos.postPolicy'])
  })
})
