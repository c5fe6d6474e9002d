// Bundles the app into dist/: app.js (React, Uppy and waybill-client), app.css (Uppy's styles and
// the app's), and index.html.
//
//   node build.mjs

import { copyFileSync, mkdirSync } from 'node:fs'
import { build } from 'esbuild'

mkdirSync('dist', { recursive: true })
await build({
  entryPoints: { app: 'src/main.tsx' },
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  outdir: 'dist',
  logLevel: 'warning',
})
copyFileSync('index.html', 'dist/index.html')
