// `npm start` (scripts/dev.mjs) without starting anything: its options, what the Worker gets from
// it and from .dev.vars, and the env file it hands wrangler, read back by wrangler's own code.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { bucketOrigins, envFileText, parseDevArgs, workerVars } from '../../scripts/dev.mjs'

const WRANGLER_VARS = {
  WAYBILL_ORIGINS: {
    demo: {
      type: 's3',
      bucket: 'demo',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:7070',
      style: 'path',
      credentials: 'DEMO',
    },
  },
  WAYBILL_GRANTS: [{ to: 'apiKey:demo', origin: 'demo', actions: ['read'] }],
}
const SHA256 = 'a'.repeat(64)
const TOKEN_SECRETS = [{ id: 'dev-2026-11-25', secret: 'b'.repeat(43) }]
const APP = 'http://localhost:5180'

const vars = (devVars: Record<string, string>, appOrigins: string[] = []) =>
  workerVars({
    wranglerVars: WRANGLER_VARS,
    devVars,
    s3Endpoint: 'http://127.0.0.1:7099',
    adminTokenSha256: SHA256,
    tokenSecrets: TOKEN_SECRETS,
    appOrigins,
  })

describe("the bucket's CORS origins", () => {
  it('are the demo page under both its names, and each app', () => {
    expect(bucketOrigins(8899, [APP])).toEqual([
      'http://127.0.0.1:8899',
      'http://localhost:8899',
      APP,
    ])
  })
})

describe('npm start options', () => {
  it('defaults to 8787, 8788 and 7070, a fresh demo, no app origin, text output', () => {
    expect(parseDevArgs([])).toEqual({
      port: 8787,
      adminPort: 8788,
      s3Port: 7070,
      appOrigins: [],
      keep: false,
      json: false,
      help: false,
    })
  })

  it('takes ports, repeated app origins (as origins, once each) and --keep', () => {
    expect(
      parseDevArgs([
        '--port',
        '8899',
        '--s3-port=7099',
        '--app-origin',
        'http://localhost:5180/',
        '--app-origin',
        'https://App.Example.com',
        '--app-origin',
        APP,
        '--keep',
        '--admin-port',
        '8900',
        '--json',
      ]),
    ).toEqual({
      port: 8899,
      adminPort: 8900,
      s3Port: 7099,
      appOrigins: [APP, 'https://app.example.com'],
      keep: true,
      json: true,
      help: false,
    })
  })

  it.each([
    [['--port', '0'], /--port: "0" is not a port/],
    [['--port', '87.5'], /--port: "87.5" is not a port/],
    [['--s3-port', '65536'], /--s3-port: "65536" is not a port/],
    [['--port', '9000', '--s3-port', '9000'], /--port and --s3-port must differ/],
    [['--admin-port', '8787'], /--port and --admin-port must differ/],
    [['--admin-port', '7070'], /--admin-port and --s3-port must differ/],
    [['--app-origin', 'http://localhost:5180/app'], /--app-origin: .* is not a web origin/],
    [['--app-origin', 'localhost:5180'], /--app-origin: .* is not a web origin/],
    [['--app-origin', 'ftp://example.com'], /--app-origin: .* is not a web origin/],
    [['--origin', APP], /Unknown option '--origin'[\s\S]*usage: npm start/],
    [['8899'], /positional[\s\S]*usage: npm start/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseDevArgs(argv)).toThrow(message)
  })
})

describe('what the Worker gets', () => {
  it('the demo origin on this run’s S3 port, signed links, CORS for the app; the admin plane the run’s admin token', () => {
    const worker = vars({}, [APP])
    expect(JSON.parse(worker.vars.WAYBILL_ORIGINS!)).toEqual({
      demo: { ...WRANGLER_VARS.WAYBILL_ORIGINS.demo, endpoint: 'http://127.0.0.1:7099' },
    })
    // The admin tokens are the admin plane's, never the data plane's.
    expect(worker.vars.WAYBILL_ADMIN_TOKENS).toBeUndefined()
    expect(worker.adminVars).toEqual({
      WAYBILL_ADMIN_TOKENS: JSON.stringify([{ id: 'npm-start', sha256: SHA256 }]),
    })
    // The API key "demo" is made through the admin API once the Worker runs, never configured.
    expect(worker.vars.WAYBILL_API_KEYS).toBeUndefined()
    expect(JSON.parse(worker.vars.WAYBILL_TOKEN_SECRETS!)).toEqual(TOKEN_SECRETS)
    expect(JSON.parse(worker.vars.WAYBILL_CORS!)).toEqual({ origins: [APP] })
    // wrangler.jsonc's grants stay wrangler.jsonc's.
    expect(worker.vars.WAYBILL_GRANTS).toBeUndefined()
    expect(worker).toMatchObject({ apiKey: true, admin: true, fromDevVars: [], warnings: [] })
    // The input is not changed.
    expect(WRANGLER_VARS.WAYBILL_ORIGINS.demo.endpoint).toBe('http://127.0.0.1:7070')
  })

  it("adds app origins to the R2 origin's own CORS, keeping what wrangler.jsonc gives it", () => {
    const withR2 = (r2: object, appOrigins: string[]): unknown => {
      const { vars } = workerVars({
        wranglerVars: { WAYBILL_ORIGINS: { 'demo-r2': r2 } },
        devVars: {},
        s3Endpoint: 'http://127.0.0.1:7099',
        adminTokenSha256: SHA256,
        tokenSecrets: TOKEN_SECRETS,
        appOrigins,
      })
      return (JSON.parse(vars.WAYBILL_ORIGINS!) as Record<string, unknown>)['demo-r2']
    }
    const r2 = { type: 'r2', binding: 'DEMO_R2' }
    expect(withR2(r2, [APP])).toEqual({ ...r2, cors: { origins: [APP] } })
    expect(withR2(r2, [])).toEqual(r2)
    const listed = { ...r2, cors: { origins: ['https://app.example.com'], maxAgeS: 60 } }
    expect(withR2(listed, [APP])).toEqual({
      ...r2,
      cors: { origins: ['https://app.example.com', APP], maxAgeS: 60 },
    })
    const everyone = { ...r2, cors: { origins: '*' } }
    expect(withR2(everyone, [APP])).toEqual(everyone)
  })

  it('no WAYBILL_CORS without an app origin', () => {
    expect(vars({}).vars.WAYBILL_CORS).toBeUndefined()
    expect(vars({}).corsOrigins).toEqual([])
  })

  it('.dev.vars wins, and names only its variables', () => {
    const devVars = {
      WAYBILL_AUTH: '{"jwt":{"issuer":"my-app","audience":"waybill","hs256":true}}',
      WAYBILL_JWT_HS256_SECRET: 'c'.repeat(40),
      WAYBILL_GRANTS: '[{"to":"*","origin":"demo","prefix":"users/{sub}/","actions":["read"]}]',
      WAYBILL_TOKEN_SECRETS: '[{"id":"mine","secret":"dddddddddddddddddddddddddddddddd"}]',
    }
    const worker = vars(devVars)
    expect(worker.vars).toMatchObject(devVars)
    expect(worker.fromDevVars).toEqual(Object.keys(devVars))
  })

  it('adds the run’s admin token to the tokens of .dev.vars, unless it has its own', () => {
    const mine = { id: 'mine', sha256: 'e'.repeat(64) }
    const added = vars({ WAYBILL_ADMIN_TOKENS: JSON.stringify([mine]) })
    expect(added.vars.WAYBILL_ADMIN_TOKENS).toBeUndefined()
    expect(JSON.parse(added.adminVars.WAYBILL_ADMIN_TOKENS!)).toEqual([
      mine,
      { id: 'npm-start', sha256: SHA256 },
    ])
    expect(added).toMatchObject({ apiKey: true, admin: true })

    const own = JSON.stringify([{ id: 'npm-start', sha256: 'f'.repeat(64) }])
    const kept = vars({ WAYBILL_ADMIN_TOKENS: own })
    expect(kept.adminVars.WAYBILL_ADMIN_TOKENS).toBe(own)
    // Without the run's admin token, the run cannot make its key either.
    expect(kept).toMatchObject({ apiKey: false, admin: false })
    expect(kept.warnings).toEqual([
      'WAYBILL_ADMIN_TOKENS in .dev.vars has its own token "npm-start"; the run\'s is not added',
    ])
  })

  it('makes no key "demo" when .dev.vars configures one itself', () => {
    const own = JSON.stringify([{ id: 'demo', sha256: 'f'.repeat(64) }])
    const kept = vars({ WAYBILL_API_KEYS: own })
    expect(kept.vars.WAYBILL_API_KEYS).toBe(own)
    expect(kept).toMatchObject({ apiKey: false, admin: true })
    expect(kept.warnings).toEqual([
      'WAYBILL_API_KEYS in .dev.vars has its own key "demo"; the run\'s is not made',
    ])
  })

  it('adds app origins to the WAYBILL_CORS of .dev.vars, keeping its other fields', () => {
    const devVars = {
      WAYBILL_CORS: '{"origins":["https://app.example.com"],"credentials":true}',
    }
    const worker = vars(devVars, [APP, 'https://app.example.com'])
    expect(JSON.parse(worker.vars.WAYBILL_CORS!)).toEqual({
      origins: ['https://app.example.com', APP],
      credentials: true,
    })
    expect(vars({ WAYBILL_CORS: '{"origins":"*"}' }, [APP]).vars.WAYBILL_CORS).toBe(
      '{"origins":"*"}',
    )
    expect(vars({ WAYBILL_CORS: 'nope' }, [APP]).warnings).toHaveLength(1)
  })
})

describe('the env file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waybill-dev-vars-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('is read back by wrangler exactly, `$` and quotes and line breaks included', async () => {
    const values = {
      WAYBILL_ORIGINS: JSON.stringify(WRANGLER_VARS.WAYBILL_ORIGINS),
      WAYBILL_JWT_HS256_SECRET: 'pa$$word-$HOME-${PATH}-\\$x-#not-a-comment',
      PEM: '-----BEGIN PRIVATE KEY-----\nMIIB\\nVgIB\n-----END PRIVATE KEY-----',
      QUOTES: `it's a "value"`,
      ALL_BUT_BACKTICKS: `'single' and "double" \\n`,
      EMPTY: '',
      SPACES: '  kept  ',
    }
    const file = join(dir, 'worker.vars')
    writeFileSync(file, envFileText(values))
    // What `wrangler dev --env-file <file>` gives the Worker, by wrangler's own code.
    const { unstable_getVarsForDev } = await import('wrangler')
    const read = unstable_getVarsForDev(join(dir, 'wrangler.jsonc'), [file], {}, undefined, true)
    expect(
      Object.fromEntries(
        Object.entries(read).map(([name, binding]) => [name, (binding as { value: string }).value]),
      ),
    ).toEqual(values)
    // Each of them a secret: wrangler's banner prints none of their values.
    expect(
      Object.values(read).every((binding) => (binding as { type: string }).type === 'secret_text'),
    ).toBe(true)
  })

  it('refuses what no quoting can carry', () => {
    expect(() => envFileText({ X: `' \` "` })).toThrow(/X: its value holds every kind of quote/)
    expect(() => envFileText({ 'NOT-A-NAME': 'x' })).toThrow(/not a variable name/)
  })
})
