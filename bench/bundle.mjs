// The deploy bundle and a cold start: what `wrangler deploy --dry-run` makes of a checkout (size,
// gzip size and the largest modules, from esbuild's metafile), and a fresh isolate's first request.
// run.mjs reports both; alone, for a quick look:
//
//   node bench/bundle.mjs                    # this checkout
//   node bench/bundle.mjs --baseline <ref>   # and <ref>, side by side (bench/baseline.mjs)

import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { Miniflare, convertV4MiniflareOptions } from 'miniflare'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/** `node_modules/hono/dist/context.js` → `hono/dist/context.js`; own files stay as they are. */
const moduleName = (path) => path.replace(/^(?:.*\/)?node_modules\//, '')

/**
 * Size and gzip size of the checkout's deployable Worker, as `wrangler deploy --dry-run` makes and
 * counts it ("Total Upload": its WebAssembly modules, then the script, gzipped together at the
 * default level), and the script's modules by the bytes each adds to it, largest first.
 */
export function bundleSize(root = ROOT) {
  const outdir = join(root, '.tmp', 'bench', 'dist')
  const metafile = join(root, '.tmp', 'bench', 'bundle-meta.json')
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
      '--metafile',
      metafile,
    ],
    { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: 'false' }, stdio: 'ignore' },
  )
  // The script first: workerd's main module.
  const names = ['index.js', ...readdirSync(outdir).filter((name) => name.endsWith('.wasm'))]
  const [script, ...wasm] = names.map((name) => readFileSync(join(outdir, name)))
  const { outputs } = JSON.parse(readFileSync(metafile, 'utf8'))
  const { inputs } = Object.values(outputs).find((output) => output.entryPoint !== undefined)
  const modules = Object.entries(inputs)
    .map(([path, { bytesInOutput }]) => ({ name: moduleName(path), bytes: bytesInOutput }))
    .filter(({ bytes }) => bytes > 0)
    .sort((a, b) => b.bytes - a.bytes)
  return {
    outdir,
    names,
    raw: script.length + wasm.reduce((sum, code) => sum + code.length, 0),
    gzip: gzipSync(Buffer.concat([...wasm, script])).length,
    modules,
  }
}

/** The `count` largest modules of `size`, as Markdown table rows. */
export function topModules(size, count = 10) {
  return [
    '| module | KiB (minified, in the script) |',
    '|---|---:|',
    ...size.modules
      .slice(0, count)
      .map(({ name, bytes }) => `| \`${name}\` | ${(bytes / 1024).toFixed(1)} |`),
  ]
}

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
            // Not a secret: a cold start's config, which needs one to be valid.
            WAYBILL_TOKEN_SECRETS: JSON.stringify([
              { id: 'b', secret: 'bench-cold-start-token-secret-not-a-secret' },
            ]),
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

/**
 * A Worker that answers every request at once, as a bundle for coldStarts: what a first request
 * costs in this harness (Miniflare's dispatch, workerd's first request) before any of waybill's.
 */
export function floorBundle() {
  const outdir = join(ROOT, '.tmp', 'bench', 'floor')
  mkdirSync(outdir, { recursive: true })
  writeFileSync(
    join(outdir, 'index.js'),
    'export default { fetch() { return new Response(\'{"ok":true}\') } }\n',
  )
  return { outdir, names: ['index.js'] }
}

/** The data plane's bundle budget (KiB gzip): issue #31's, with the admin API in its own Worker. */
export const BUNDLE_BUDGET_KIB = 88

/**
 * What `npm run bench` says of one bundle: its size, its largest modules, its cold start, and the
 * harness's floor for a first request (floorBundle) when measured.
 */
export function bundleLines(size, cold, floor) {
  const floorText =
    floor === undefined
      ? ''
      : ` (a Worker that only answers: ${floor.requestMs.toFixed(1)} ms in the same harness)`
  return [
    `Deployable bundle (\`wrangler deploy --dry-run\`): ${(size.raw / 1024).toFixed(1)} KiB, **${(size.gzip / 1024).toFixed(1)} KiB gzip** (target ≤ ${BUNDLE_BUDGET_KIB}). A fresh isolate's first \`GET /healthz\`: **${cold.requestMs.toFixed(1)} ms** for the request itself (target ≤ 10)${floorText}, ${cold.totalMs.toFixed(0)} ms from a new Miniflare to the answer (median of 9).`,
    '',
    'Its ten largest modules (esbuild metafile; the WebAssembly SHA-256 is a module of its own):',
    '',
    ...topModules(size),
  ]
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { baseline: { type: 'string' } } })
  const roots = [ROOT]
  if (values.baseline !== undefined) {
    const { checkoutBaseline } = await import('./baseline.mjs')
    roots.unshift(checkoutBaseline(values.baseline).dir)
  }
  const sizes = roots.map((root) => bundleSize(root))
  const [floor, ...cold] = await coldStarts([floorBundle(), ...sizes])
  for (const [i, root] of roots.entries()) {
    console.log(`## ${root === ROOT ? 'This checkout' : `Baseline ${values.baseline}`}\n`)
    console.log(bundleLines(sizes[i], cold[i], floor).join('\n'), '\n')
  }
}
