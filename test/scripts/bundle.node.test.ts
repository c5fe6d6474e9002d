// The data plane's deploy bundle, as `wrangler deploy --dry-run` makes it: build/no-hono-extras.ts
// stands in for the hono modules only app.mount(), c.req.parseBody() and c.html() use (none of
// which the data plane calls), and only hono's own imports of them reach it, so the alias on their
// relative names (wrangler.jsonc) takes nothing else. And both Workers leave the API's
// descriptions out (DOCS, src/docs.d.ts) in every environment, which wrangler does not inherit.

import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

interface Metafile {
  inputs: Record<string, { imports: { path: string; original?: string }[] }>
  outputs: Record<string, { entryPoint?: string; inputs: Record<string, unknown> }>
}

const STAND_IN = 'build/no-hono-extras.ts'

/** `wrangler deploy --dry-run` of `config` (and `env`): the bundle's text. */
function dryRun(config: string, env?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'waybill-bundle-'))
  try {
    execFileSync(
      process.execPath,
      [
        'node_modules/wrangler/bin/wrangler.js',
        'deploy',
        '--dry-run',
        '-c',
        config,
        ...(env === undefined ? [] : ['--env', env]),
        '--outdir',
        dir,
      ],
      { env: { ...process.env, WRANGLER_SEND_METRICS: 'false' }, stdio: 'ignore' },
    )
    return readFileSync(join(dir, 'index.js'), 'utf8')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// Words only the document holds: an operation's summary on each plane, a problem's schema.
const DESCRIBED = [
  'Read an object through its signed URL',
  'Readiness: the control plane answers, migrated',
  'The audit trail: every admin write',
  '"application/problem+json":{schema',
]

describe("the data plane's bundle", () => {
  it('takes the stand-in for the hono modules it never calls, from hono alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'waybill-bundle-'))
    try {
      const metafile = join(dir, 'meta.json')
      execFileSync(
        process.execPath,
        [
          'node_modules/wrangler/bin/wrangler.js',
          'deploy',
          '--dry-run',
          '--outdir',
          join(dir, 'dist'),
          '--metafile',
          metafile,
        ],
        { env: { ...process.env, WRANGLER_SEND_METRICS: 'false' }, stdio: 'ignore' },
      )
      const { inputs, outputs } = JSON.parse(readFileSync(metafile, 'utf8')) as Metafile
      const importers = Object.entries(inputs).flatMap(([path, { imports }]) =>
        imports
          .filter((imported) => imported.path === STAND_IN)
          .map((imported) => `${path.replace(/^.*node_modules\//, '')} ${imported.original}`),
      )
      expect(importers.sort()).toEqual([
        'hono/dist/context.js ./utils/html.js',
        'hono/dist/hono-base.js ./utils/mount.js',
        'hono/dist/request.js ./utils/body.js',
      ])
      const bundled = Object.keys(
        Object.values(outputs).find((output) => output.entryPoint !== undefined)!.inputs,
      )
      expect(bundled).toContain(STAND_IN)
      expect(
        bundled.filter((path) => /hono\/dist\/utils\/(mount|body|html)\.js$/.test(path)),
      ).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it.each(['wrangler.jsonc', 'wrangler.admin.jsonc'])(
    '%s: defines DOCS false at the top and in every environment, and ships no description',
    (config) => {
      const { config: parsed } = ts.parseConfigFileTextToJson(
        config,
        readFileSync(config, 'utf8'),
      ) as {
        config: {
          define?: Record<string, string>
          env?: Record<string, { define?: Record<string, string> }>
        }
      }
      const envs = Object.entries(parsed.env ?? {})
      expect(envs.length).toBeGreaterThan(0)
      expect(parsed.define?.DOCS).toBe('false')
      for (const [name, env] of envs) expect(env.define?.DOCS, name).toBe('false')
      for (const env of [undefined, 'production']) {
        const bundle = dryRun(config, env)
        for (const text of DESCRIBED) {
          expect(bundle.includes(text), `${env ?? 'top'}: ${text}`).toBe(false)
        }
      }
    },
    240_000,
  )
})
