import { describe, expect, it } from 'vitest'
import { unsafeKeyReason } from '../../src/auth/key-safety'
import { actionFor, prefixCovers, resolvePrefix } from '../../src/auth/policy'
import { subjectMatches } from '../../src/principal/subjects'
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
