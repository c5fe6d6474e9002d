// `npm run admin` (scripts/admin.mjs) without a server: each command's request, the offline
// token, and a run against a fake fetch (the token from the environment, a refusal's fields).

import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import document from '../../docs/admin-openapi.json'
import { adminRequest, adminToken, runAdmin, table, when } from '../../scripts/admin.mjs'

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
      json: false,
      operation: 'adminCreateKey',
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
    expect(() => adminRequest(['keys', 'fly'])).toThrow(/unknown command: keys fly/)
    expect(() => adminRequest(['keys', 'list', '--colour', 'x'])).toThrow(/colour/)
    expect(() => adminRequest(['keys', 'show'])).toThrow(/needs a key id/)
    expect(() => adminRequest(['usage', '--key', 'web', '--principal', 'jwt:a'])).toThrow(
      /one of them/,
    )
    expect(() => adminRequest(['grants', 'create', '{'])).toThrow(/not JSON/)
    expect(() => adminRequest(['keys', 'rotate', 'web', '--overlap', 'soon'])).toThrow(
      /duration such as/,
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
    const deps = {
      fetch,
      env,
      print: (l: string) => out.push(l),
      fail: (l: string) => out.push(l),
      tty: false,
    }
    expect(await runAdmin(['keys', 'create', '--id', 'k_1'], deps)).toBe(0)
    expect(await runAdmin(['keys', 'create', '--id', 'k_1'], deps)).toBe(1)
    expect(seen[0]!.url).toBe('http://127.0.0.1:9999/admin/v1/keys')
    expect(seen[0]!.init.headers).toEqual({
      authorization: 'Bearer wba_test',
      'content-type': 'application/json',
    })
    expect(out.join('\n')).toContain('"key": "wb_x"')
    // The problem once: its fields are in the detail already.
    expect(out.join('\n')).toContain('400: id: is taken')
    expect(out.join('\n')).not.toContain('  id: is taken')
    expect(await runAdmin(['keys', 'list'], { ...deps, env: {} })).toBe(2)
  })
})

const NOW = new Date('2026-11-01T00:00:00Z')
const request = (argv: string[]) => adminRequest(argv, NOW)

/** One command of each operation the CLI makes. */
const COMMANDS = [
  ['keys', 'create', '--id', 'web'],
  ['keys', 'list'],
  ['keys', 'show', 'web'],
  ['keys', 'update', 'web', '--label', 'x'],
  ['keys', 'rotate', 'web'],
  ['keys', 'revoke', 'web'],
  ['grants', 'create', '{"to":"*","origin":"p","actions":["read"]}'],
  ['grants', 'list'],
  ['grants', 'effective', '--caller', 'apiKey:web'],
  ['grants', 'delete', 'g_1'],
  ['revocations', 'create', '--key', 'web'],
  ['revocations', 'list'],
  ['revocations', 'delete', 'r_1'],
  [
    'quotas',
    'create',
    '--to',
    'apiKey:web',
    '--origin',
    'p',
    '--max-objects',
    '1',
    '--window',
    '1h',
  ],
  ['quotas', 'list'],
  ['quotas', 'show', 'q_1'],
  ['quotas', 'update', 'q_1', '--max-objects', '4'],
  ['quotas', 'delete', 'q_1'],
  ['usage'],
  ['usage', 'top'],
  ['audit'],
  ['explain', '--key', 'web', '--action', 'read', '--origin', 'p', '--object', 'a.jpg'],
  ['export'],
]

describe('npm run admin: the admin document', () => {
  it('has each operation the CLI calls, with its method and path', () => {
    const operations = new Map<string, { method: string; path: RegExp }>()
    for (const [path, methods] of Object.entries(document.paths)) {
      if (!path.startsWith('/admin/v1/')) continue
      for (const [method, operation] of Object.entries(
        methods as Record<string, { operationId: string }>,
      )) {
        const pattern = path.replace('/admin/v1', '').replace(/\{[^}]+\}/g, '[^/?]+')
        operations.set(operation.operationId, {
          method: method.toUpperCase(),
          path: new RegExp(`^${pattern}(?:\\?|$)`),
        })
      }
    }
    const called = new Set<string>()
    for (const argv of COMMANDS) {
      const made = request(argv)
      if ('token' in made) throw new Error('not an API call')
      const operation = operations.get(made.operation)
      expect(operation, made.operation).toBeDefined()
      expect(made.method, argv.join(' ')).toBe(operation!.method)
      expect(made.path, argv.join(' ')).toMatch(operation!.path)
      called.add(made.operation)
    }
    // Every operation but import (a file: below) has a command.
    expect([...operations.keys()].filter((id) => !called.has(id))).toEqual(['adminImport'])
  })
})

describe('npm run admin: durations, new commands', () => {
  it('takes a time or a duration from now', () => {
    expect(when('30d', '--expires', NOW)).toBe('2026-12-01T00:00:00.000Z')
    expect(when('2027-01-01T00:00:00Z', '--expires', NOW)).toBe('2027-01-01T00:00:00Z')
    expect(request(['keys', 'create', '--expires', '30d'])).toMatchObject({
      body: { expiresAt: '2026-12-01T00:00:00.000Z' },
    })
    expect(request(['keys', 'update', 'web', '--expires', 'never', '--no-label'])).toMatchObject({
      method: 'PATCH',
      body: { label: null, expiresAt: null },
    })
    expect(request(['keys', 'rotate', 'web', '--overlap', '1h'])).toMatchObject({
      body: { overlapS: 3600 },
    })
    expect(
      request([
        'quotas',
        'create',
        '--to',
        '*',
        '--origin',
        'p',
        '--max-bytes',
        '9',
        '--window',
        '1d',
      ]),
    ).toMatchObject({
      body: { windowS: 86_400 },
    })
    expect(() => request(['keys', 'create', '--expires', 'soon'])).toThrow(/time .* or a duration/)
    expect(() => request(['keys', 'rotate', 'web', '--overlap', '1y'])).toThrow(/duration such as/)
  })

  it('changes a quota in place, asks across callers, explains, exports and imports', () => {
    expect(
      request(['quotas', 'update', 'q_1', '--max-bytes', 'none', '--max-objects', '4']),
    ).toMatchObject({
      method: 'PATCH',
      body: { maxObjects: 4, maxBytes: null },
    })
    expect(request(['usage'])).toMatchObject({ path: '/usage' })
    expect(request(['usage', 'top', '--by', 'bytes', '--limit', '3'])).toMatchObject({
      path: '/usage/top?by=bytes&limit=3',
    })
    expect(request(['audit', '--key', 'web', '--from', '1d'])).toMatchObject({
      path: '/audit?key=web&from=2026-11-02T00%3A00%3A00.000Z',
    })
    expect(
      request([
        'explain',
        '--claims',
        '{"sub":"alice"}',
        '--action',
        'write',
        '--origin',
        'p',
        '--object',
        'a.txt',
        '--content-length',
        '5',
      ]),
    ).toMatchObject({
      body: { caller: { claims: { sub: 'alice' } }, action: 'write', contentLength: 5 },
    })
    expect(() => request(['explain', '--action', 'read'])).toThrow(/--key or --claims/)
    expect(request(['export', '--secrets'])).toMatchObject({ path: '/export?secrets=include' })
    const file = join(mkdtempSync(join(tmpdir(), 'waybill-admin-')), 'backup.json')
    writeFileSync(file, JSON.stringify({ version: 1, keys: [] }))
    expect(request(['import', file])).toMatchObject({
      operation: 'adminImport',
      body: { version: 1, keys: [] },
    })
    expect(() => request(['import', join(file, 'missing')])).toThrow(/cannot read/)
  })
})

describe('npm run admin: what it prints', () => {
  const answer = {
    keys: [{ id: 'web', label: 'the gallery', secrets: [{ prefix: 'wb_ab' }] }],
    cursor: null,
  }
  const run = async (argv: string[], tty: boolean) => {
    const out: string[] = []
    const fetch = () => Promise.resolve(Response.json(answer))
    const code = await runAdmin(argv, {
      fetch,
      env: { WAYBILL_ADMIN_TOKEN: 'wba_test' },
      print: (line) => out.push(line),
      fail: (line) => out.push(line),
      tty,
    })
    return { code, out: out.join('\n') }
  }

  it('a table on a terminal, JSON otherwise or with --json', async () => {
    const onTerminal = await run(['keys', 'list'], true)
    expect(onTerminal.code).toBe(0)
    expect(onTerminal.out.split('\n')).toEqual(table(answer))
    expect(onTerminal.out).toMatch(
      /^id +label +secrets\nweb +the gallery +\[\{"prefix":"wb_ab"\}\]/,
    )
    expect(JSON.parse((await run(['keys', 'list', '--json'], true)).out)).toEqual(answer)
    expect(JSON.parse((await run(['keys', 'list'], false)).out)).toEqual(answer)
  })

  it('a refusal once: the detail, then only the fields it does not name', async () => {
    const out: string[] = []
    const problem = {
      status: 400,
      detail: 'Invalid request (2 problems)',
      errors: [
        { path: 'id', message: 'is taken' },
        { path: 'label', message: 'is too long' },
      ],
    }
    const code = await runAdmin(['keys', 'create'], {
      fetch: () => Promise.resolve(Response.json(problem, { status: 400 })),
      env: { WAYBILL_ADMIN_TOKEN: 'wba_test' },
      print: (line) => out.push(line),
      fail: (line) => out.push(line),
    })
    expect(code).toBe(1)
    expect(out).toEqual([
      '400: Invalid request (2 problems)',
      '  id: is taken',
      '  label: is too long',
    ])
    const usage: string[] = []
    expect(await runAdmin(['keys', 'fly'], { fail: (line) => usage.push(line) })).toBe(2)
    expect(usage[0]).toBe('unknown command: keys fly')
    expect(usage.filter((line) => line.includes('unknown command'))).toHaveLength(1)
  })
})
