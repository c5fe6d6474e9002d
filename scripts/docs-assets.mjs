// The Workers' generated static assets, made into public/ (the data plane's) and public-admin/ (the
// admin plane's; git ignores both's generated files) by `npm start`, the browser tests and
// `npm run deploy`, all through `buildVendorAssets()`. The runtime serves them before the Worker
// runs, so none of them is in a Worker's bundle:
// - each plane's API document (GET /openapi.json): docs/openapi.json and docs/admin-openapi.json,
//   which `npm run openapi` generates from the routes;
// - each plane's API reference page (GET /docs, docs.html): rendered here by Scalar's Hono
//   integration, running Scalar's browser bundle from the Worker's own assets rather than a CDN
//   (copied here from node_modules);
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
import { Scalar } from '@scalar/hono-api-reference'
import { generateDtsBundle } from 'dts-bundle-generator'
import { build } from 'esbuild'
import { Hono } from 'hono'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
/** Where /docs loads the bundle from: `/vendor/scalar-api-reference.js`. */
export const DOCS_BUNDLE = 'vendor/scalar-api-reference.js'
/** Where the demo page imports the client from: `/vendor/waybill-client.js`. */
export const CLIENT_BUNDLE = 'vendor/waybill-client.js'

/** Where the runtime serves the API document from, and the reference page (`/docs`). */
export const API_DOCUMENT = 'openapi.json'
export const DOCS_PAGE = 'docs.html'

/** Each Worker's assets: its folder, its API document, and its reference page's title. */
export const PLANES = {
  data: { dir: 'public', document: join('docs', 'openapi.json'), title: 'waybill API' },
  admin: {
    dir: 'public-admin',
    document: join('docs', 'admin-openapi.json'),
    title: 'waybill admin API',
  },
}

/**
 * The API reference page as Scalar's Hono integration renders it: reading /openapi.json, with no
 * chrome that points at Scalar's own services ("Ask AI", "Generate MCP", and the developer
 * toolbar's "Deploy", shown by default on a localhost page).
 */
export async function renderDocsPage(title = PLANES.data.title) {
  const app = new Hono().get(
    '/docs',
    Scalar({
      url: `/${API_DOCUMENT}`,
      pageTitle: title,
      cdn: `/${DOCS_BUNDLE}`,
      withDefaultFonts: false,
      hideClientButton: true,
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: 'never',
    }),
  )
  return (await app.request('/docs')).text()
}

/** The page's own script, moved out of it so that its policy can say `script-src 'self'`. */
export const DOCS_SCRIPT = 'vendor/docs-init.js'

/**
 * Copies a plane's API document into its folder and renders the reference page beside it, its
 * inline script moved to DOCS_SCRIPT (its _headers give /docs its own Content-Security-Policy).
 */
export async function writeApiAssets(plane = PLANES.data) {
  const document = join(ROOT, plane.dir, API_DOCUMENT)
  const page = join(ROOT, plane.dir, DOCS_PAGE)
  const script = join(ROOT, plane.dir, DOCS_SCRIPT)
  copyFileSync(join(ROOT, plane.document), document)
  const inline = /<script type="text\/javascript">([\s\S]*?)<\/script>/
  const html = await renderDocsPage(plane.title)
  const init = inline.exec(html)
  if (init === null)
    throw new Error("Scalar's page has no inline script to move: see renderDocsPage")
  mkdirSync(dirname(script), { recursive: true })
  writeFileSync(script, init[1].trim() + '\n')
  writeFileSync(page, html.replace(inline, `<script src="/${DOCS_SCRIPT}"></script>`))
  return { document, page, script }
}

/** Copies Scalar's standalone bundle into a plane's folder (idempotent, fast). */
export function copyDocsAssets(plane = PLANES.data) {
  // The package exports no path to its browser build; it sits beside its main module.
  const main = createRequire(import.meta.url).resolve('@scalar/api-reference')
  const source = join(dirname(main), 'browser', 'standalone.js')
  const target = join(ROOT, plane.dir, DOCS_BUNDLE)
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

/**
 * Bundles the admin UI (src/admin/ui/main.ts) into public-admin/admin.js: one minified ES module
 * with a source map, loaded by public-admin/index.html (no inline script: its policy allows none).
 */
export async function buildAdminUi() {
  const target = join(ROOT, PLANES.admin.dir, 'admin.js')
  await build({
    entryPoints: [join(ROOT, 'src', 'admin', 'ui', 'main.ts')],
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
  return target
}

/**
 * Every generated asset: each plane's API document and reference page and Scalar's bundle, the
 * client's bundle for the demo page, and the admin UI's.
 */
export async function buildVendorAssets() {
  const api = await writeApiAssets()
  const docs = copyDocsAssets()
  const adminApi = await writeApiAssets(PLANES.admin)
  copyDocsAssets(PLANES.admin)
  const client = await buildClientBundle()
  const adminUi = await buildAdminUi()
  return { api, adminApi, docs, client, adminUi }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { docs, client } = await buildVendorAssets()
  console.log(docs)
  console.log(
    `${client.path}: ${client.bytes} bytes minified, ${client.gzipBytes} bytes gzipped (level 9)`,
  )
}
