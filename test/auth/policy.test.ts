import { describe, expect, it } from 'vitest'
import { unsafeKeyReason } from '../../src/core/key-safety'
import {
  actionFor,
  authorize,
  isRefusal,
  prefixCovers,
  resolvePrefix,
  type Reach,
  type Refusal,
} from '../../src/auth/policy'
import { subjectMatches } from '../../src/principal/subjects'
import type { Action, Config, Grant } from '../../src/config'
import { s3 } from '../../src/origins/s3'
import type { Principal } from '../../src/principal'

describe('prefixCovers', () => {
  it('matches whole path segments only', () => {
    expect(prefixCovers('', 'anything')).toBe(true)
    expect(prefixCovers('users/al/', 'users/al/x')).toBe(true)
    expect(prefixCovers('users/al/', 'users/alice/x')).toBe(false)
    expect(prefixCovers('users/al', 'users/al')).toBe(true)
    expect(prefixCovers('users/al', 'users/al/x')).toBe(true)
    expect(prefixCovers('users/al', 'users/alice')).toBe(false)
    expect(prefixCovers('users/al/', 'users/al')).toBe(false)
  })
})

const token = (claims: Record<string, unknown>): Principal => ({
  kind: 'jwt',
  id: typeof claims.sub === 'string' ? claims.sub : 'someone',
  claims,
  roles: new Set(),
})

describe('resolvePrefix', () => {
  it('fills placeholders from claims', () => {
    expect(resolvePrefix('users/{sub}/', token({ sub: 'alice' }))).toBe('users/alice/')
    expect(resolvePrefix('t/{tenant}/u/{sub}/', token({ sub: 'a', tenant: 42 }))).toBe('t/42/u/a/')
    expect(resolvePrefix('static/', token({}))).toBe('static/')
  })

  it('refuses values that would change the prefix shape, or are missing', () => {
    for (const sub of ['../bob', 'a/b', '..', '.', 'a\\b', 'a\u0000', '', 'x..y', 'a\ud800']) {
      expect(resolvePrefix('users/{sub}/', token({ sub })), JSON.stringify(sub)).toBeUndefined()
    }
    expect(resolvePrefix('users/{sub}/', token({}))).toBeUndefined()
    for (const sub of [['a'], { toString: 'bob' }, true, null, Infinity]) {
      expect(resolvePrefix('users/{sub}/', token({ sub })), JSON.stringify(sub)).toBeUndefined()
    }
  })

  it('an API key fills {apiKey} only, and a token never fills {apiKey}', () => {
    const apiKey: Principal = { kind: 'api-key', id: 'alice', claims: {}, roles: new Set() }
    expect(resolvePrefix('keys/{apiKey}/', apiKey)).toBe('keys/alice/')
    expect(resolvePrefix('users/{sub}/', apiKey)).toBeUndefined()
    // A token carrying a claim named apiKey cannot pose as the key.
    expect(resolvePrefix('keys/{apiKey}/', token({ sub: 'bob', apiKey: 'alice' }))).toBeUndefined()
  })
})

describe('unsafeKeyReason', () => {
  it('accepts ordinary keys, Unicode and a trailing slash', () => {
    for (const key of ['a.jpg', 'users/alice/photo 1.jpg', 'folder/', '.hidden', 'a..b', '猫/😀']) {
      expect(unsafeKeyReason(key), key).toBeUndefined()
    }
  })

  it('refuses keys a client or CDN could rewrite', () => {
    const cases: Array<[string, RegExp]> = [
      ['a/../b', /"\." or "\.\."/],
      ['a/./b', /"\." or "\.\."/],
      ['..', /"\." or "\.\."/],
      ['a/%2e%2E/b', /percent-encoded/],
      ['a/%2e/b', /percent-encoded/],
      ['a//b', /"\/\/"/],
      ['/a', /start with/],
      ['a\\b', /backslash/],
      ['a\nb', /control/],
      ['a\u0085b', /control/],
      ['a\ud800', /lone surrogate/],
    ]
    for (const [key, reason] of cases)
      expect(unsafeKeyReason(key), JSON.stringify(key)).toMatch(reason)
  })
})

describe('subjects and actions', () => {
  const jwt: Principal = {
    kind: 'jwt',
    id: 'alice',
    claims: { sub: 'alice' },
    roles: new Set(['editor']),
    email: 'alice@example.com',
  }
  const apiKey: Principal = {
    kind: 'api-key',
    id: 'alice',
    claims: { sub: 'alice' },
    roles: new Set(),
  }

  it('an API key id and a token sub never stand for each other', () => {
    expect(subjectMatches({ kind: 'sub', value: 'alice' }, jwt)).toBe(true)
    expect(subjectMatches({ kind: 'sub', value: 'alice' }, apiKey)).toBe(false)
    expect(subjectMatches({ kind: 'apiKey', value: 'alice' }, apiKey)).toBe(true)
    expect(subjectMatches({ kind: 'apiKey', value: 'alice' }, jwt)).toBe(false)
  })

  it('roles, emails and any', () => {
    expect(subjectMatches({ kind: 'role', value: 'editor' }, jwt)).toBe(true)
    expect(subjectMatches({ kind: 'role', value: 'admin' }, jwt)).toBe(false)
    expect(subjectMatches({ kind: 'email', value: 'alice@example.com' }, jwt)).toBe(true)
    expect(subjectMatches({ kind: 'email', value: 'alice@example.com' }, apiKey)).toBe(false)
    expect(subjectMatches({ kind: 'any' }, apiKey)).toBe(true)
  })

  it('maps methods to actions', () => {
    expect([actionFor('GET'), actionFor('HEAD'), actionFor('PUT'), actionFor('DELETE')]).toEqual([
      'read',
      'read',
      'write',
      'delete',
    ])
  })
})

describe('a refusal names the keys the caller sent', () => {
  const alice: Principal = { kind: 'api-key', id: 'alice', claims: {}, roles: new Set() }
  const grant = (prefix: string, actions: Action[]): Grant => ({
    subject: { kind: 'apiKey', value: 'alice' },
    origin: 'o',
    prefix,
    actions: new Set(actions),
    maxExpiresIn: 3600,
    maxLinkExpiresIn: 3600,
    maxBatch: 100,
    wildcard: false,
    deleteMismatched: false,
    overwrite: false,
  })
  const config = {
    origins: new Map([
      [
        'o',
        s3.create(
          'o',
          {
            type: 's3',
            bucket: 'b',
            region: 'us-east-1',
            style: 'path',
            endpoint: { protocol: 'https:', host: 's3.example.com', basePath: '/b' },
            credentials: { accessKeyId: 'AKID', secretAccessKey: 'not-a-secret' },
            keys: 'safe',
            signingWindow: 0,
            postPolicy: true,
          },
          () => undefined,
        ),
      ],
    ]),
    grants: [grant('users/alice/', ['read', 'write', 'list'])],
    maxBatch: 10_000,
    defaultExpiresIn: 900,
  } as unknown as Config
  const refusal = (reach: Reach): Refusal => {
    const answer = authorize(config, alice, reach)
    if (!isRefusal(answer)) throw new Error('permitted')
    return answer
  }
  const read = (keys: string[]): Reach => ({
    kind: 'urls',
    action: 'read',
    origin: 'o',
    items: keys.map((key) => ({ key })),
    itemPath: (i) => `keys.${i}`,
  })

  it('in the detail and in each error, quoted', () => {
    const answer = refusal(read(['users/alice/a.jpg', 'users/bob/b.jpg', 'c "d".png']))
    expect(answer.detail).toBe(
      `2 entries are not covered by this caller's grants ("users/bob/b.jpg", "c \\"d\\".png"); nothing was signed.`,
    )
    expect(answer.errors).toEqual([
      { path: 'keys.1', message: '"users/bob/b.jpg" is not covered by a grant to read' },
      { path: 'keys.2', message: '"c \\"d\\".png" is not covered by a grant to read' },
    ])
  })

  it('a few in the detail, every one (to the cap) in the errors', () => {
    const keys = Array.from({ length: 7 }, (_, i) => `other/${i}.jpg`)
    const answer = refusal(read(keys))
    expect(answer.detail).toBe(
      `7 entries are not covered by this caller's grants ("other/0.jpg", "other/1.jpg", "other/2.jpg" and 4 more); nothing was signed.`,
    )
    expect(answer.errors.map((error) => error.message)).toEqual(
      keys.map((key) => `"${key}" is not covered by a grant to read`),
    )
  })

  it('the prefixes of a listing', () => {
    const answer = refusal({
      kind: 'listing',
      origin: 'o',
      prefixes: [{ prefix: 'users/bob/', path: 'prefix.0' }],
    })
    expect(answer.errors).toEqual([
      { path: 'prefix.0', message: '"users/bob/" is not wholly covered by a grant to list' },
    ])
  })

  it("never a key the grant's uploadKey chose, which the caller never saw", () => {
    const upload = (target: { key: string; path: string; chosen?: true }): Reach => ({
      kind: 'upload',
      origin: 'o',
      target,
      content: {
        type: { value: 'image/png', path: 'contentType' },
        length: { exact: 10 },
        lengthPath: 'contentLength',
      },
    })
    const sent = refusal(upload({ key: 'users/bob/a.png', path: 'key' }))
    expect(sent.detail).toContain('"users/bob/a.png"')
    const chosen = refusal(upload({ key: 'users/bob/a.png', path: 'filename', chosen: true }))
    expect(chosen.detail).toBe(
      "1 entry is not covered by this caller's grants; nothing was signed.",
    )
    expect(chosen.errors).toEqual([
      { path: 'filename', message: 'is not covered by a grant to write' },
    ])
  })
})
