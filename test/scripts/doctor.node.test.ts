// `npm run doctor` (scripts/doctor.mjs): it passes on the documented production example
// (examples/production/) and names each missing piece of a broken one, each broken copy made in
// .tmp/ at the example's depth, so that its relative paths still reach the repository.

import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'
import { doctor, reportLines, secretCommand } from '../../scripts/doctor.mjs'

const EXAMPLE = 'examples/production'
const SECRETS = join(EXAMPLE, 'secrets.json')
const ADMIN_SECRETS = join(EXAMPLE, 'admin-secrets.json')
const CASES = '.tmp'
const made: string[] = []

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

/** What the cases change of the example's configs. */
interface Production {
  d1_databases: { database_id: string }[]
  durable_objects: { bindings: { script_name?: string }[] }
  services: { entrypoint: string }[]
  secrets: { required: string[] }
  vars: { WAYBILL_ORIGINS: Record<string, { endpoint?: string }>; WAYBILL_GRANTS?: unknown[] }
}
interface Config {
  compatibility_date?: unknown
  main?: string
  env: { production: Production }
}

const read = (file: string) =>
  (ts.parseConfigFileTextToJson(file, readFileSync(file, 'utf8')) as { config: Config }).config

/** A copy of the example, each file changed by `change`, and the secrets set listed. */
function broken(
  name: string,
  change: { data?: (config: Config) => void; admin?: (config: Config) => void },
  secrets: string[] = (JSON.parse(readFileSync(SECRETS, 'utf8')) as { name: string }[]).map(
    (s) => s.name,
  ),
) {
  const dir = join(CASES, `doctor-${name}`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  made.push(dir)
  for (const [file, edit] of [
    ['wrangler.jsonc', change.data],
    ['wrangler.admin.jsonc', change.admin],
  ] as const) {
    const config = read(join(EXAMPLE, file))
    edit?.(config)
    writeFileSync(join(dir, file), JSON.stringify(config, null, 2))
  }
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify(secrets))
  cpSync(ADMIN_SECRETS, join(dir, 'admin-secrets.json'))
  return doctor({
    dir,
    secrets: join(dir, 'secrets.json'),
    adminSecrets: join(dir, 'admin-secrets.json'),
    build: false,
  })
}

const problems = (report: Awaited<ReturnType<typeof doctor>>) =>
  Object.entries(report.checks).flatMap(([check, list]) =>
    list.map((problem) => `${check}: ${problem}`),
  )

describe('npm run doctor', () => {
  it('passes on the documented production example, both Workers built', async () => {
    const report = await doctor({ dir: EXAMPLE, secrets: SECRETS, adminSecrets: ADMIN_SECRETS })
    expect(problems(report)).toEqual([])
    expect(report.ok).toBe(true)
    expect(report.workers.data.gzipKiB).toBeGreaterThan(10)
    expect(report.workers.admin.gzipKiB).toBeGreaterThan(10)
    expect(report.workers.data.secrets.map((s) => [s.name, s.set])).toEqual([
      ['CDN_PRIVATE_KEY', true],
      ['PHOTOS_ACCESS_KEY_ID', true],
      ['PHOTOS_SECRET_ACCESS_KEY', true],
      ['WAYBILL_JWT_HS256_SECRET', true],
      ['WAYBILL_TOKEN_SECRETS', true],
    ])
    expect(report.workers.admin.queues).toEqual(['waybill-audit'])
    expect(reportLines(report, true).at(-1)).toMatch(/Ready to deploy/)
  }, 60_000)

  it('names a placeholder database, and an admin plane bound to another Worker', async () => {
    const report = await broken('bindings', {
      data: (c) => {
        c.env.production.d1_databases[0]!.database_id = 'REPLACE-WITH-THE-ID-OF-wrangler-d1-create'
      },
      admin: (c) => {
        c.env.production.durable_objects.bindings[0]!.script_name = 'waybill-staging'
        c.env.production.services[0]!.entrypoint = 'default'
      },
    })
    expect(report.ok).toBe(false)
    expect(problems(report)).toEqual([
      expect.stringMatching(
        /^bindings: .*wrangler.jsonc env.production: WAYBILL_DB's database_id is a placeholder: npx wrangler d1 create waybill/,
      ),
      expect.stringMatching(/^bindings: .*WAYBILL_DB is another database than the data plane's/),
      expect.stringMatching(
        /^bindings: .*WAYBILL_QUOTAS must be class QuotaCounter with "script_name": "waybill"/,
      ),
      expect.stringMatching(
        /^bindings: .*WAYBILL_DATA_PLANE must be a service binding to "waybill"/,
      ),
    ])
  })

  it('names a secret that is not set, with the command that makes it, and one the config does not list', async () => {
    const report = await broken(
      'secrets',
      {
        data: (c) => {
          c.env.production.secrets.required = c.env.production.secrets.required.filter(
            (name: string) => name !== 'WAYBILL_JWT_HS256_SECRET',
          )
        },
      },
      ['PHOTOS_ACCESS_KEY_ID', 'PHOTOS_SECRET_ACCESS_KEY', 'WAYBILL_TOKEN_SECRETS'],
    )
    expect(problems(report)).toEqual([
      expect.stringMatching(
        /^vars: .*reads the secret WAYBILL_JWT_HS256_SECRET, which "secrets.required" does not list/,
      ),
      `secrets: waybill: the secret CDN_PRIVATE_KEY is not set: ${secretCommand('CDN_PRIVATE_KEY')}`,
      `secrets: waybill: the secret WAYBILL_JWT_HS256_SECRET is not set: ${secretCommand('WAYBILL_JWT_HS256_SECRET')}`,
    ])
    expect(secretCommand('WAYBILL_WEBHOOK_SECRET')).toContain('whsec_')
    expect(secretCommand('PHOTOS_SESSION_TOKEN')).toContain(
      'npx wrangler secret put PHOTOS_SESSION_TOKEN',
    )
  })

  it("names the demo's grant and origin, read by the Worker's own configuration code", async () => {
    const report = await broken('vars', {
      data: (c) => {
        c.env.production.vars.WAYBILL_ORIGINS.photos!.endpoint = 'http://127.0.0.1:7070'
        c.env.production.vars.WAYBILL_GRANTS = [
          { to: 'apiKey:demo', origin: 'demo', actions: ['read'] },
        ]
      },
    })
    expect(problems(report)).toEqual([
      expect.stringMatching(/^vars: .*WAYBILL_GRANTS\.0\.origin: /),
      expect.stringMatching(
        /^vars: .*an origin's endpoint is on this machine \(http:\/\/127\.0\.0\.1:7070\)/,
      ),
    ])
  })

  it('names a config wrangler would refuse, one without a production environment, and a build that fails', async () => {
    const schema = await broken('schema', {
      data: (c) => {
        c.compatibility_date = 20260801
      },
      admin: (c) => {
        delete (c as Partial<Config>).env
      },
    })
    expect(problems(schema)).toEqual([
      expect.stringMatching(/^config: .*wrangler.jsonc: compatibility_date: /),
      expect.stringMatching(/^config: .*wrangler.admin.jsonc: has no "env.production"/),
    ])
    const dir = join(CASES, 'doctor-build')
    await broken('build', {
      data: (c) => {
        c.main = '../../src/no-such-file.ts'
      },
    })
    const built = await doctor({
      dir,
      secrets: join(dir, 'secrets.json'),
      adminSecrets: join(dir, 'admin-secrets.json'),
    })
    expect(problems(built)).toEqual([
      expect.stringMatching(
        /^build: .*wrangler.jsonc env.production: wrangler deploy --dry-run failed/,
      ),
    ])
  }, 60_000)
})
