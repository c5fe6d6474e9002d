// `npm run admin` (scripts/admin.mjs) without a server: each command's request, the offline
// token, and a run against a fake fetch (the token from the environment, a refusal's fields).

import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { adminRequest, adminToken, runAdmin } from '../../scripts/admin.mjs'

describe('npm run admin: the request of each command', () => {
  it('keys', () => {
    expect(
      adminRequest([
        'keys',
        'create',
        '--label',
        'the gallery',
        '--grant',
        '{"origin":"photos","actions":["read"]}',
        '--expires',
        '2027-01-01T00:00:00Z',
      ]),
    ).toEqual({
      url: undefined,
      method: 'POST',
      path: '/keys',
      body: {
        label: 'the gallery',
        expiresAt: '2027-01-01T00:00:00Z',
        grants: [{ origin: 'photos', actions: ['read'] }],
      },
    })
    expect(adminRequest(['keys', 'list', '--limit', '5'])).toMatchObject({
      method: 'GET',
      path: '/keys?limit=5',
    })
    expect(adminRequest(['keys', 'rotate', 'a/b', '--overlap', '60'])).toMatchObject({
      path: '/keys/a%2Fb/rotate',
      body: { overlapS: 60 },
    })
    expect(adminRequest(['keys', 'revoke', 'web'])).toMatchObject({
      path: '/revocations',
      body: { kind: 'key', key: 'web' },
    })
  })

  it('grants, revocations, quotas, usage', () => {
    expect(
      adminRequest(['grants', 'create', '{"to":"*","origin":"p","actions":["read"]}']),
    ).toMatchObject({
      method: 'POST',
      body: { to: '*' },
    })
    expect(adminRequest(['grants', 'list', '--to', 'apiKey:web'])).toMatchObject({
      path: '/grants?to=apiKey%3Aweb',
    })
    expect(adminRequest(['revocations', 'create', '--link', 'AAAAAAAAAAAAAAAA'])).toMatchObject({
      body: { kind: 'link', link: 'AAAAAAAAAAAAAAAA' },
    })
    expect(
      adminRequest([
        'revocations',
        'create',
        '--issued-before',
        '2026-11-23T12:00:00Z',
        '--origin',
        'photos',
      ]),
    ).toMatchObject({
      body: { kind: 'links', issuedBefore: '2026-11-23T12:00:00Z', origin: 'photos' },
    })
    expect(
      adminRequest([
        'quotas',
        'create',
        '--to',
        'apiKey:web',
        '--origin',
        'photos',
        '--max-bytes',
        '100',
        '--window',
        '86400',
      ]),
    ).toMatchObject({
      body: { to: 'apiKey:web', origin: 'photos', maxBytes: 100, windowS: 86_400 },
    })
    expect(adminRequest(['usage', '--key', 'web', '--from', '2026-11-01'])).toMatchObject({
      method: 'GET',
      path: '/usage?principal=apiKey%3Aweb&from=2026-11-01',
    })
    expect(adminRequest(['usage', '--principal', 'jwt:alice'])).toMatchObject({
      path: '/usage?principal=jwt%3Aalice',
    })
  })

  it('says what is wrong: unknown commands and options, missing arguments, bad JSON', () => {
    expect(() => adminRequest(['keys', 'fly'])).toThrow(/usage/)
    expect(() => adminRequest(['keys', 'list', '--colour', 'x'])).toThrow(/colour/)
    expect(() => adminRequest(['keys', 'show'])).toThrow(/needs a key id/)
    expect(() => adminRequest(['usage'])).toThrow(/--key or --principal/)
    expect(() => adminRequest(['usage', '--key', 'web', '--principal', 'jwt:a'])).toThrow(
      /one of them/,
    )
    expect(() => adminRequest(['grants', 'create', '{'])).toThrow(/not JSON/)
    expect(() => adminRequest(['keys', 'rotate', 'web', '--overlap', 'soon'])).toThrow(
      /whole number/,
    )
  })
})

describe('npm run admin: running', () => {
  it('makes an admin token offline, with its hash as the entry', async () => {
    const { token, entry } = adminToken('ops')
    expect(token).toMatch(/^wba_[A-Za-z0-9_-]{43}$/)
    expect(entry).toEqual({ id: 'ops', sha256: createHash('sha256').update(token).digest('hex') })
    const printed: string[] = []
    expect(await runAdmin(['token', 'ops'], { print: (line) => printed.push(line) })).toBe(0)
    expect(printed.join('\n')).toMatch(
      /WAYBILL_ADMIN_TOKENS entry: \{"id":"ops","sha256":"[0-9a-f]{64}"\}/,
    )
  })

  it('sends the token from the environment and prints the answer, or the problem and its fields', async () => {
    const seen: { url: string; init: RequestInit }[] = []
    const answers = [
      Response.json({ id: 'k_1', key: 'wb_x' }, { status: 201 }),
      Response.json(
        { status: 400, detail: 'id: is taken', errors: [{ path: 'id', message: 'is taken' }] },
        { status: 400 },
      ),
    ]
    const fetch = (url: string, init: RequestInit) => {
      seen.push({ url, init })
      return Promise.resolve(answers.shift()!)
    }
    const out: string[] = []
    const env = { WAYBILL_ADMIN_TOKEN: 'wba_test', WAYBILL_ADMIN_URL: 'http://127.0.0.1:9999/' }
    const deps = { fetch, env, print: (l: string) => out.push(l), fail: (l: string) => out.push(l) }
    expect(await runAdmin(['keys', 'create', '--id', 'k_1'], deps)).toBe(0)
    expect(await runAdmin(['keys', 'create', '--id', 'k_1'], deps)).toBe(1)
    expect(seen[0]!.url).toBe('http://127.0.0.1:9999/admin/v1/keys')
    expect(seen[0]!.init.headers).toEqual({
      authorization: 'Bearer wba_test',
      'content-type': 'application/json',
    })
    expect(out.join('\n')).toContain('"key": "wb_x"')
    expect(out.join('\n')).toContain('400: id: is taken\n  id: is taken')
    expect(await runAdmin(['keys', 'list'], { ...deps, env: {} })).toBe(2)
  })
})
