// Builds the waybill-client package (client/) into client/dist/ and prints each entry's size
// against its budget. `npm run build -w client` and `npm pack -w client` (its prepack) run it.
//
//   node scripts/build-client.mjs   # emit dist/, print the sizes (stderr); exit 1 when over budget
//
// dist/ holds ES2022 modules with declarations. TypeScript rewrites the sources' `./x.ts` imports
// to `./x.js` in the JavaScript it emits but not in the declarations. TypeScript 5 reads a `.ts`
// specifier in a .d.ts; older TypeScript (TS2691) and other readers of declarations do not, and an
// extensionless one fails under NodeNext (TS2834, and every API type becomes `unknown`). So a
// declaration transformer gives them the `.js` the JavaScript has, and refuses one without.

import { copyFileSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import ts from 'typescript'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const CLIENT = join(ROOT, 'client')
const DIST = join(CLIENT, 'dist')

const KIB = 1024

/**
 * Most gzipped bytes (level 9, minified, bundled alone with its peers external) per entry of the
 * package's exports. Each entry is measured with what it takes from the others (React's hooks
 * with the upload store), as an app that loads only it would pay.
 */
export const CLIENT_GZIP_BUDGET_BYTES = Object.freeze({
  '.': 8 * KIB,
  './store': 2 * KIB,
  // The hooks' 2 KiB and 2 KiB for UploadButton and UploadDropzone; the upload store the hooks
  // hold (waybill-client/store's code) is counted here too.
  './react': 2 * KIB + 2 * KIB,
  './uppy': 5 * KIB,
  './stream': 1.5 * KIB,
  './redirect': 1 * KIB,
})

/** `./x.ts` → `./x.js`; a relative specifier without an extension is an error. */
function jsSpecifier(specifier, file) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return specifier
  if (specifier.endsWith('.js')) return specifier
  if (specifier.endsWith('.ts') && !specifier.endsWith('.d.ts')) {
    return `${specifier.slice(0, -'.ts'.length)}.js`
  }
  throw new Error(
    `${relative(ROOT, file)}: import "${specifier}" needs its extension (".ts", or ".js" for a .d.ts)`,
  )
}

/** Rewrites the module specifiers of imports, re-exports and `import('…')` types in declarations. */
function declarationSpecifiers(context) {
  const { factory } = context
  return (root) => {
    const file = root.fileName ?? ''
    const literal = (node) => factory.createStringLiteral(jsSpecifier(node.text, file), true)
    const visit = (node) => {
      if (
        ts.isImportDeclaration(node) &&
        node.moduleSpecifier !== undefined &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        return factory.updateImportDeclaration(
          node,
          node.modifiers,
          node.importClause,
          literal(node.moduleSpecifier),
          node.attributes,
        )
      }
      if (
        ts.isExportDeclaration(node) &&
        node.moduleSpecifier !== undefined &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        return factory.updateExportDeclaration(
          node,
          node.modifiers,
          node.isTypeOnly,
          node.exportClause,
          literal(node.moduleSpecifier),
          node.attributes,
        )
      }
      if (
        ts.isImportTypeNode(node) &&
        ts.isLiteralTypeNode(node.argument) &&
        ts.isStringLiteral(node.argument.literal)
      ) {
        return factory.updateImportTypeNode(
          node,
          factory.updateLiteralTypeNode(node.argument, literal(node.argument.literal)),
          node.attributes,
          node.qualifier,
          node.typeArguments,
          node.isTypeOf,
        )
      }
      return ts.visitEachChild(node, visit, context)
    }
    return ts.visitEachChild(root, visit, context)
  }
}

/** Emits client/src into client/dist with `.js` specifiers everywhere; throws on a type error. */
function emitDist() {
  const configPath = join(CLIENT, 'tsconfig.build.json')
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
      },
    },
  )
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options })
  const result = program.emit(undefined, undefined, undefined, false, {
    afterDeclarations: [declarationSpecifiers],
  })
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics]
  if (diagnostics.length > 0) {
    throw new Error(
      ts.formatDiagnosticsWithColorAndContext(diagnostics, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => '\n',
      }),
    )
  }
  // Generated types, not a module TypeScript emits: copied beside the declarations that import it.
  copyFileSync(join(CLIENT, 'src', 'openapi.d.ts'), join(DIST, 'openapi.d.ts'))
}

/**
 * Each entry of the package's exports, bundled alone and minified as an app's bundler would (its
 * peer dependencies external): `[{ entry: '.', bytes, gzipBytes, budgetBytes }]`.
 */
export async function clientSizes() {
  const pkg = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'))
  const external = Object.keys(pkg.peerDependencies ?? {})
  const sizes = []
  for (const [entry, target] of Object.entries(pkg.exports)) {
    if (typeof target !== 'object') continue // ./package.json
    const output = await build({
      entryPoints: [join(CLIENT, target.default)],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
      external,
      logLevel: 'warning',
    })
    const bytes = output.outputFiles[0].contents
    sizes.push({
      entry,
      bytes: bytes.length,
      gzipBytes: gzipSync(bytes, { level: 9 }).length,
      budgetBytes: CLIENT_GZIP_BUDGET_BYTES[entry],
    })
  }
  return sizes
}

/** The size table the build prints, one line per entry, with what is over budget marked. */
export function formatSizes(sizes) {
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`
  const width = Math.max(...sizes.map(({ entry }) => entry.length))
  return sizes
    .map(({ entry, bytes, gzipBytes, budgetBytes }) => {
      const budget =
        budgetBytes === undefined
          ? 'no budget'
          : `${gzipBytes <= budgetBytes ? 'within' : 'OVER'} the budget of ${kib(budgetBytes)}`
      const name = `waybill-client${entry === '.' ? '' : entry.slice(1)}`
      return `  ${name.padEnd(width + 'waybill-client'.length)}  ${kib(bytes)} minified, ${kib(gzipBytes)} gzip: ${budget}`
    })
    .join('\n')
}

/** Builds client/dist from scratch and answers the entries' sizes; throws when one is over budget. */
export async function buildClient() {
  rmSync(DIST, { recursive: true, force: true })
  emitDist()
  const sizes = await clientSizes()
  const over = sizes.filter(({ gzipBytes, budgetBytes }) => gzipBytes > (budgetBytes ?? Infinity))
  return { sizes, over }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { sizes, over } = await buildClient()
  // On stderr, so that `npm pack --json` (whose prepack this is) still prints only JSON.
  console.error(`${relative(process.cwd(), DIST) || '.'}: built\n${formatSizes(sizes)}`)
  if (over.length > 0) {
    console.error(`Over budget: ${over.map(({ entry }) => entry).join(', ')}`)
    process.exit(1)
  }
}
