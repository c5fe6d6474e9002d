// `import module from './x.wasm'`: wrangler, @cloudflare/vitest-plugin and the benchmark's
// bundler load `.wasm` imports as precompiled WebAssembly modules (Workers cannot compile
// WebAssembly from bytes at run time).
declare module '*.wasm' {
  const module: WebAssembly.Module
  export default module
}
