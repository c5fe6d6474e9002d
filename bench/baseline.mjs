// Before and after in one run: `npm run bench -- --baseline <git ref>` checks the ref out beside
// this one (a git worktree under .tmp/, sharing node_modules), and run.mjs measures both side by
// side: the signing core in workerd, POST /v1/sign through wrangler dev, the deploy bundle, and a
// fresh isolate's first request.

import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { Miniflare, convertV4MiniflareOptions } from 'miniflare'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()

/** A worktree of `ref` at .tmp/bench/baseline, with this checkout's node_modules. */
export function checkoutBaseline(ref) {
  const dir = join(ROOT, '.tmp', 'bench', 'baseline')
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`)
  if (existsSync(dir)) git('worktree', 'remove', '--force', dir)
  git('worktree', 'prune')
  mkdirSync(dirname(dir), { recursive: true })
  git('worktree', 'add', '--detach', dir, commit)
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  return { dir, commit: commit.slice(0, 7) }
}

/** Size and gzip size of the checkout's deployable Worker, as `wrangler deploy --dry-run` makes it. */
export function bundleSize(root = ROOT) {
  const outdir = join(root, '.tmp', 'bench', 'dist')
  // Emptied first: the .wasm modules are named by content hash, so old ones would linger.
  rmSync(outdir, { recursive: true, force: true })
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
      'deploy',
      '--dry-run',
      '--outdir',
      outdir,
    ],
    { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: 'false' }, stdio: 'ignore' },
  )
  // The script and its WebAssembly modules, each uploaded (and compressed) as its own part.
  // The script first: workerd's main module.
  const names = ['index.js', ...readdirSync(outdir).filter((name) => name.endsWith('.wasm'))]
  const modules = names.map((name) => readFileSync(join(outdir, name)))
  return {
    outdir,
    names,
    raw: modules.reduce((sum, code) => sum + code.length, 0),
    gzip: modules.reduce((sum, code) => sum + gzipSync(code, { level: 9 }).length, 0),
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/**
 * A fresh isolate's first `GET /healthz`, from the deploy bundle: ms from asking workerd for the
 * Worker (script load included) to the answer, and the first request alone. Median of `runs`,
 * each a new Miniflare; `bundles` alternate so drift falls on all alike.
 */
export async function coldStarts(bundles, runs = 9) {
  const samples = bundles.map(() => ({ total: [], request: [] }))
  for (let run = 0; run < runs; run++) {
    for (const [i, { outdir, names }] of bundles.entries()) {
      const started = performance.now()
      const mf = new Miniflare(
        convertV4MiniflareOptions({
          modulesRoot: outdir,
          modules: names.map((name) => ({
            type: name.endsWith('.wasm') ? 'CompiledWasm' : 'ESModule',
            path: join(outdir, name),
          })),
          compatibilityDate: '2026-08-01',
          bindings: {
            WAYBILL_ORIGINS: JSON.stringify({
              demo: { type: 's3', bucket: 'demo', region: 'us-east-1', credentials: 'DEMO' },
            }),
            DEMO_ACCESS_KEY_ID: 'WAYBILLDEMO',
            DEMO_SECRET_ACCESS_KEY: 'waybill-demo-secret-local-only',
          },
        }),
      )
      try {
        await mf.ready
        const asked = performance.now()
        const response = await mf.dispatchFetch('http://bench/healthz')
        await response.text()
        if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`)
        const done = performance.now()
        samples[i].total.push(done - started)
        samples[i].request.push(done - asked)
      } finally {
        await mf.dispose()
      }
    }
  }
  return samples.map(({ total, request }) => ({
    totalMs: median(total),
    requestMs: median(request),
  }))
}
