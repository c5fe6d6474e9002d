// The API reference page (GET /docs) runs Scalar's browser bundle, served by the Worker as a static
// asset rather than from a CDN: copied here from node_modules into public/vendor/ (git ignores it)
// by `npm start`, the browser tests and `npm run deploy`.

import { copyFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
/** Where /docs loads the bundle from: `/vendor/scalar-api-reference.js`. */
export const DOCS_BUNDLE = 'vendor/scalar-api-reference.js'

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

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(copyDocsAssets())
