// The Worker's vendored static assets, made into public/vendor/ (git ignores it) by `npm start`,
// the browser tests and `npm run deploy`, all through `buildVendorAssets()`:
// - the API reference page (GET /docs) runs Scalar's browser bundle, served by the Worker rather
//   than from a CDN: copied here from node_modules;
// - the demo page imports the browser client (client/, the waybill-client workspace), bundled
//   here by esbuild into one minified ES module, with its types in one declaration file beside it
//   for pages without a bundler (dts-bundle-generator).
//
//   node scripts/docs-assets.mjs   # builds both and prints the client's size, minified and gzipped

import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { generateDtsBundle } from 'dts-bundle-generator'
import { build } from 'esbuild'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
/** Where /docs loads the bundle from: `/vendor/scalar-api-reference.js`. */
export const DOCS_BUNDLE = 'vendor/scalar-api-reference.js'
/** Where the demo page imports the client from: `/vendor/waybill-client.js`. */
export const CLIENT_BUNDLE = 'vendor/waybill-client.js'

/** Copies Scalar's standalone bundle into public/ (idempotent, fast). */
export function copyDocsAssets() {
  // The package exports no path to its browser build; it sits beside its main module.
  const main = createRequire(import.meta.url).resolve('@scalar/api-reference')
  const source = join(dirname(main), 'browser', 'standalone.js')
  const target = join(ROOT, 'public', DOCS_BUNDLE)
  mkdirSync(dirname(target), { recursive: true })
  copyFileSync(source, target)
  return target
}

/**
 * Bundles the client (client/src/index.ts) into public/ as one minified ES module with a source
 * map, for browsers from 2022 on, and its declarations into one `.d.ts` beside it (exporting
 * what the module exports, and nothing else). Answers the module's path and size in bytes,
 * minified and gzipped.
 */
export async function buildClientBundle() {
  const target = join(ROOT, 'public', CLIENT_BUNDLE)
  const entry = join(ROOT, 'client', 'src', 'index.ts')
  await build({
    entryPoints: [entry],
    outfile: target,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  })
  const [types] = generateDtsBundle(
    [{ filePath: entry, output: { noBanner: true, exportReferencedTypes: false } }],
    { preferredConfigPath: join(ROOT, 'client', 'tsconfig.json') },
  )
  writeFileSync(target.replace(/\.js$/, '.d.ts'), types)
  const bytes = readFileSync(target)
  return { path: target, bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length }
}

/** Everything public/vendor/ holds: Scalar's bundle and the client's. */
export async function buildVendorAssets() {
  const docs = copyDocsAssets()
  const client = await buildClientBundle()
  return { docs, client }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { docs, client } = await buildVendorAssets()
  console.log(docs)
  console.log(
    `${client.path}: ${client.bytes} bytes minified, ${client.gzipBytes} bytes gzipped (level 9)`,
  )
}
