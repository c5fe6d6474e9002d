// esbuild plugins for running the Worker's code outside wrangler: in Miniflare (the benchmark) or
// in Node (the benchmark's Node column, and scripts/openapi.mjs).

import { copyFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'

const BUILTINS = /^(?:node:)?(crypto|fs|url|buffer|stream|util|path|os|events)$/

// Peers written for Node `require()` built-ins; workerd's nodejs_compat serves them as ES modules
// named node:*. Each require becomes a tiny module that re-exports the ES module.
export const nodeBuiltins = {
  name: 'node-builtins',
  setup(build) {
    build.onResolve({ filter: BUILTINS }, (args) => {
      const name = BUILTINS.exec(args.path)[1]
      return args.kind === 'require-call'
        ? { path: name, namespace: 'node-builtin' }
        : { path: `node:${name}`, external: true }
    })
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      contents: `import * as m from 'node:${args.path}'; export * from 'node:${args.path}'; export default m`,
      loader: 'js',
    }))
  },
}

// `.wasm` imports (src/core/sigv4/sha256.wasm). Workers cannot compile WebAssembly at run time, so
// for workerd each file is copied beside the bundle and stays an import, which Miniflare loads as
// a CompiledWasm module (as wrangler uploads it); for Node the bundle compiles the bytes on load.
export function wasmModules(platform, outdir, copied) {
  return {
    name: 'wasm-modules',
    setup(build) {
      build.onResolve({ filter: /\.wasm$/ }, (args) => {
        const path = resolve(args.resolveDir, args.path)
        if (platform === 'node') return { path, namespace: 'wasm-node' }
        copyFileSync(path, join(outdir, basename(path)))
        copied.push(join(outdir, basename(path)))
        return { path: `./${basename(path)}`, external: true }
      })
      build.onLoad({ filter: /.*/, namespace: 'wasm-node' }, (args) => ({
        contents: `import { readFileSync } from 'node:fs'; export default new WebAssembly.Module(readFileSync(${JSON.stringify(args.path)}))`,
        loader: 'js',
      }))
    },
  }
}
