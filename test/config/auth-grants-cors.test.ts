import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config/load'
import type { Env } from '../../src/env'
import { TEST_TOKEN_SECRETS } from '../fixtures/token-secrets'

const HS_SECRET = 'a-shared-secret-that-is-long-enough-0123456789'

function env(overrides: Partial<Env>): Env {
  return {
    WAYBILL_TOKEN_SECRETS: TEST_TOKEN_SECRETS,
    WAYBILL_ORIGINS: {
      photos: { type: 's3', bucket: 'photos', region: 'eu-west-1', credentials: 'P' },
    },
    P_ACCESS_KEY_ID: 'AKID',
    P_SECRET_ACCESS_KEY: 'secret',
    ...overrides,
  }
}

function errorPaths(input: Env): string[] {
  const result = parseConfig(input)
  if (result.ok) throw new Error('expected an invalid config')
  expect(JSON.stringify(result)).not.toContain(HS_SECRET)
  return result.errors.map((e) => e.path)
}

const jwt = {
  issuer: 'https://issuer.test/',
  audience: 'waybill',
  jwksUrl: 'https://issuer.test/jwks',
}

describe('WAYBILL_AUTH', () => {
  it('parses JWT (remote JWKS) and Access settings with defaults', () => {
    const result = parseConfig(
      env({
        WAYBILL_AUTH: {
          jwt,
          access: { teamDomain: 'https://team.cloudflareaccess.com/', aud: 'f'.repeat(64) },
        },
      }),
    )
    if (!result.ok) throw new Error(JSON.stringify(result.errors))
    expect(result.config.jwt).toMatchObject({
      issuer: jwt.issuer,
      audience: ['waybill'],
      algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      clockToleranceS: 60,
      rolesClaim: 'roles',
    })
    expect(result.config.access).toEqual({
      teamDomain: 'https://team.cloudflareaccess.com',
      aud: 'f'.repeat(64),
      clockToleranceS: 60,
      // No Access identity holds the admin role unless listed.
      admins: new Set(),
    })
  })

  it('enables HS256 only with a long enough secret', () => {
    const ok = parseConfig(
      env({
        WAYBILL_AUTH: { jwt: { ...jwt, jwksUrl: undefined, hs256: true } },
        WAYBILL_JWT_HS256_SECRET: HS_SECRET,
      }),
    )
    expect(ok.ok && ok.config.jwt?.algorithms).toEqual(['HS256'])
    expect(
      errorPaths(
        env({ WAYBILL_AUTH: { jwt: { ...jwt, hs256: true } }, WAYBILL_JWT_HS256_SECRET: 'short' }),
      ),
    ).toContain('WAYBILL_JWT_HS256_SECRET')
  })

  const cases: Array<[string, unknown, string]> = [
    ['not an object', [], 'WAYBILL_AUTH'],
    ['an unknown method', { oauth: {} }, 'WAYBILL_AUTH.oauth'],
    ['jwt without issuer', { jwt: { ...jwt, issuer: undefined } }, 'WAYBILL_AUTH.jwt.issuer'],
    ['jwt without audience', { jwt: { ...jwt, audience: [] } }, 'WAYBILL_AUTH.jwt.audience'],
    ['jwt without keys', { jwt: { ...jwt, jwksUrl: undefined } }, 'WAYBILL_AUTH.jwt'],
    [
      'an http JWKS URL',
      { jwt: { ...jwt, jwksUrl: 'http://issuer.test/jwks' } },
      'WAYBILL_AUTH.jwt.jwksUrl',
    ],
    [
      'a JWKS with a private key',
      { jwt: { ...jwt, jwksUrl: undefined, jwks: { keys: [{ kty: 'EC', d: 'x' }] } } },
      'WAYBILL_AUTH.jwt.jwks',
    ],
    ['both jwks and jwksUrl', { jwt: { ...jwt, jwks: { keys: [] } } }, 'WAYBILL_AUTH.jwt.jwks'],
    [
      'an unknown algorithm',
      { jwt: { ...jwt, algorithms: ['none'] } },
      'WAYBILL_AUTH.jwt.algorithms',
    ],
    [
      'HS256 listed without the secret',
      { jwt: { ...jwt, algorithms: ['HS256'] } },
      'WAYBILL_AUTH.jwt.algorithms',
    ],
    [
      'a negative tolerance',
      { jwt: { ...jwt, clockToleranceS: -1 } },
      'WAYBILL_AUTH.jwt.clockToleranceS',
    ],
    ['a bad cookie name', { jwt: { ...jwt, cookie: 'a b' } }, 'WAYBILL_AUTH.jwt.cookie'],
    ['an unknown jwt field', { jwt: { ...jwt, secret: 'x' } }, 'WAYBILL_AUTH.jwt.secret'],
    [
      'an Access team domain with a path',
      { access: { teamDomain: 'https://t.cloudflareaccess.com/x', aud: 'f'.repeat(64) } },
      'WAYBILL_AUTH.access.teamDomain',
    ],
    [
      'an Access AUD that is not a tag',
      { access: { teamDomain: 'https://t.cloudflareaccess.com', aud: 'x' } },
      'WAYBILL_AUTH.access.aud',
    ],
  ]
  for (const [name, auth, path] of cases) {
    it(name, () => {
      expect(errorPaths(env({ WAYBILL_AUTH: auth }))).toContain(path)
    })
  }
})

describe('WAYBILL_GRANTS', () => {
  const grant = { to: 'sub:alice', origin: 'photos', actions: ['read'] }

  it('parses grants with defaults', () => {
    const result = parseConfig(
      env({
        WAYBILL_GRANTS: [
          grant,
          {
            ...grant,
            to: '*',
            prefix: 'u/{sub}/',
            maxExpiresIn: 60,
            maxBatch: 10,
            actions: ['write'],
            contentTypes: ['image/*'],
            maxContentLength: 1000,
          },
        ],
      }),
    )
    if (!result.ok) throw new Error(JSON.stringify(result.errors))
    const [first, second] = result.config.grants
    expect(first).toMatchObject({
      subject: { kind: 'sub', value: 'alice' },
      prefix: '',
      maxExpiresIn: 604800,
      maxBatch: 10000,
    })
    expect(first!.actions).toEqual(new Set(['read']))
    expect(second).toMatchObject({
      subject: { kind: 'any' },
      prefix: 'u/{sub}/',
      maxExpiresIn: 60,
      maxBatch: 10,
      contentTypes: ['image/*'],
      maxContentLength: 1000,
    })
  })

  it('takes an uploadKey template under the prefix, and deleteMismatched', () => {
    const result = parseConfig(
      env({
        WAYBILL_GRANTS: [
          {
            to: '*',
            origin: 'photos',
            prefix: 'users/{sub}/',
            actions: ['write'],
            uploadKey: 'users/{sub}/{uuid}-{filename}',
            deleteMismatched: true,
          },
          {
            to: 'apiKey:web',
            origin: 'photos',
            actions: ['write'],
            uploadKey: 'in/{apiKey}/{uuid}',
          },
        ],
      }),
    )
    if (!result.ok) throw new Error(JSON.stringify(result.errors))
    expect(result.config.grants[0]).toMatchObject({
      uploadKey: 'users/{sub}/{uuid}-{filename}',
      deleteMismatched: true,
    })
    expect(result.config.grants[1]).toMatchObject({ deleteMismatched: false })
  })

  const cases: Array<[string, unknown, string]> = [
    ['not an array', {}, 'WAYBILL_GRANTS'],
    ['a bad subject', [{ ...grant, to: 'user:alice' }], 'WAYBILL_GRANTS.0.to'],
    ['an unconfigured origin', [{ ...grant, origin: 'docs' }], 'WAYBILL_GRANTS.0.origin'],
    ['an unknown action', [{ ...grant, actions: ['read', 'admin'] }], 'WAYBILL_GRANTS.0.actions.1'],
    ['no actions', [{ ...grant, actions: [] }], 'WAYBILL_GRANTS.0.actions'],
    ['a prefix with ..', [{ ...grant, prefix: 'a/../b/' }], 'WAYBILL_GRANTS.0.prefix'],
    ['a prefix with //', [{ ...grant, prefix: 'a//b/' }], 'WAYBILL_GRANTS.0.prefix'],
    ['a prefix starting with /', [{ ...grant, prefix: '/a/' }], 'WAYBILL_GRANTS.0.prefix'],
    ['a malformed placeholder', [{ ...grant, prefix: 'u/{sub/' }], 'WAYBILL_GRANTS.0.prefix'],
    [
      'maxExpiresIn over 7 days',
      [{ ...grant, maxExpiresIn: 604801 }],
      'WAYBILL_GRANTS.0.maxExpiresIn',
    ],
    ['maxBatch 0', [{ ...grant, maxBatch: 0 }], 'WAYBILL_GRANTS.0.maxBatch'],
    [
      'a bad content type',
      [{ ...grant, contentTypes: ['Image/PNG'] }],
      'WAYBILL_GRANTS.0.contentTypes',
    ],
    [
      'a bad max content length',
      [{ ...grant, maxContentLength: -1 }],
      'WAYBILL_GRANTS.0.maxContentLength',
    ],
    ['an unknown field', [{ ...grant, bucket: 'x' }], 'WAYBILL_GRANTS.0.bucket'],
    ...(
      [
        ['an uploadKey without write', { actions: ['read'] }],
        ['an uploadKey without {uuid} or {filename}', { uploadKey: 'u/{sub}/file' }],
        ['an uploadKey outside the prefix', { uploadKey: 'v/{sub}/{uuid}' }],
        [
          'an uploadKey extending the prefix segment',
          { prefix: 'u/{sub}', uploadKey: 'u/{sub}x/{uuid}' },
        ],
        ['{filename} in a folder of the uploadKey', { uploadKey: 'u/{sub}/{filename}/x-{uuid}' }],
        ['an uploadKey ending in /', { uploadKey: 'u/{sub}/{uuid}/' }],
        ['an uploadKey with ..', { uploadKey: 'u/{sub}/../{uuid}' }],
        [
          'an uploadKey an API key cannot fill',
          { to: 'apiKey:web', prefix: '', uploadKey: '{sub}/{uuid}' },
        ],
      ] as const
    ).map(([name, change]): [string, unknown, string] => [
      name,
      [
        {
          ...grant,
          to: '*',
          actions: ['write'],
          prefix: 'u/{sub}/',
          uploadKey: 'u/{sub}/{uuid}-{filename}',
          ...change,
        },
      ],
      'WAYBILL_GRANTS.0.uploadKey',
    ]),
    [
      'deleteMismatched not a boolean',
      [{ ...grant, deleteMismatched: 'yes' }],
      'WAYBILL_GRANTS.0.deleteMismatched',
    ],
  ]
  for (const [name, grants, path] of cases) {
    it(name, () => {
      expect(errorPaths(env({ WAYBILL_GRANTS: grants }))).toContain(path)
    })
  }
})

describe('WAYBILL_CORS', () => {
  it('parses a list of origins', () => {
    const result = parseConfig(
      env({ WAYBILL_CORS: { origins: ['https://app.example.com'], credentials: true } }),
    )
    if (!result.ok) throw new Error(JSON.stringify(result.errors))
    expect(result.config.cors).toEqual({
      origins: new Set(['https://app.example.com']),
      credentials: true,
      maxAgeS: 600,
    })
  })

  const cases: Array<[string, unknown, string]> = [
    ['an origin with a path', { origins: ['https://app.example.com/x'] }, 'WAYBILL_CORS.origins'],
    ['credentials with "*"', { origins: '*', credentials: true }, 'WAYBILL_CORS.credentials'],
    ['a bad max age', { origins: '*', maxAgeS: -5 }, 'WAYBILL_CORS.maxAgeS'],
  ]
  for (const [name, cors, path] of cases) {
    it(name, () => {
      expect(errorPaths(env({ WAYBILL_CORS: cors }))).toContain(path)
    })
  }
})
