// waybill-client as an app gets it: `npm pack -w client` (its prepack builds dist/), the tarball
// unpacked into a consumer's node_modules, and a consumer file compiled against it under each
// moduleResolution an app may use, with skipLibCheck off so every shipped declaration is checked.
// The no-bundler file (public/vendor/waybill-client.js) and the .d.ts beside it get the same calls.
//
// A correct call must compile and a wrong one must not: each wrong one carries @ts-expect-error,
// which is itself an error when nothing is wrong (TS2578), so types that decayed to `any` fail too.

import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildClientBundle } from '../../scripts/docs-assets.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** What an app writes: a correct call of each kind, and wrong ones that must not compile. */
const consumer = (from: string, uppy?: string) => `
import { createClient, WaybillError, type SignAnswer } from '${from}'
${uppy === undefined ? '' : `import { waybillUppy, type UppyLike } from '${uppy}'`}

const waybill = createClient({ baseUrl: 'https://waybill.example.com', auth: () => 'wb_key' })

export async function firstUrl(): Promise<string | undefined> {
  const answer: SignAnswer = await waybill.sign({ origin: 'photos', keys: ['a.jpg', 'b/c d.png'] })
  const expiresAt: string = answer.expiresAt
  return expiresAt === '' ? undefined : answer.urls[0]?.url
}

export async function gallery(): Promise<number> {
  let size = 0
  for await (const object of waybill.list('photos', { prefix: 'gallery/' })) size += object.size
  return size
}

export const refused = (error: unknown): boolean =>
  error instanceof WaybillError && error.code === 'forbidden' && error.errors.length > 0

export async function wrong(): Promise<void> {
  // @ts-expect-error: a sign request has no \`key\` field (it is \`keys\`)
  await waybill.sign({ origin: 'photos', key: 'a.jpg' })
  // @ts-expect-error: keys are strings
  await waybill.sign({ origin: 'photos', keys: [1] })
  // @ts-expect-error: \`origin\` is required
  await waybill.sign({ keys: ['a.jpg'] })
  // @ts-expect-error: the answer's URLs are objects, not strings
  const url: string = (await waybill.sign({ origin: 'photos', keys: ['a.jpg'] })).urls[0]!
  void url
}

// @ts-expect-error: not one of the error codes
export const unknownCode = (error: WaybillError): boolean => error.code === 'no_such_code'
${
  uppy === undefined
    ? ''
    : `
declare const uppyInstance: UppyLike
export const s3Options = waybillUppy(uppyInstance, waybill, { origin: 'photos', mode: 'post' })
// @ts-expect-error: \`mode\` is put or post
export const badOptions = waybillUppy(uppyInstance, waybill, { origin: 'photos', mode: 'get' })
`
}`

/** The consumer's compiler options for each resolution, all strict and checking every library. */
const RESOLUTIONS = {
  NodeNext: { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
  Bundler: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler },
  node10: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Node10 },
} satisfies Record<string, ts.CompilerOptions>

function compile(file: string, resolution: keyof typeof RESOLUTIONS): string[] {
  const options: ts.CompilerOptions = {
    ...RESOLUTIONS[resolution],
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: false,
    noEmit: true,
  }
  const program = ts.createProgram([file], options)
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file
      ? `${diagnostic.file.fileName.slice(dirname(file).length + 1)}:${
          diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1
        } `
      : ''
    return `${where}TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`
  })
}

let app: string
let packed: { files: { path: string }[] }

beforeAll(async () => {
  app = mkdtempSync(join(tmpdir(), 'waybill-consumer-'))
  // The tarball as npm publishes it; prepack builds dist/ first.
  const [info] = JSON.parse(
    execFileSync('npm', ['pack', '-w', 'client', '--json', '--pack-destination', app], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as [{ filename: string; files: { path: string }[] }]
  packed = info
  const installed = join(app, 'node_modules', 'waybill-client')
  mkdirSync(installed, { recursive: true })
  execFileSync('tar', ['-xzf', join(app, info.filename), '-C', installed, '--strip-components=1'])
  writeFileSync(join(app, 'package.json'), JSON.stringify({ type: 'module', private: true }))
  writeFileSync(join(app, 'app.ts'), consumer('waybill-client', 'waybill-client/uppy'))

  // The no-bundler file and its declarations, as a page would serve them from its own folder.
  const bundle = await buildClientBundle()
  mkdirSync(join(app, 'vendor'))
  copyFileSync(bundle.path, join(app, 'vendor', 'waybill-client.js'))
  copyFileSync(bundle.path.replace(/\.js$/, '.d.ts'), join(app, 'vendor', 'waybill-client.d.ts'))
  writeFileSync(join(app, 'page.ts'), consumer('./vendor/waybill-client.js'))
}, 120_000)

afterAll(() => {
  rmSync(app, { recursive: true, force: true })
})

describe('the packed waybill-client', () => {
  it('holds the built entries, their declarations and the generated types', () => {
    const paths = packed.files.map((file) => file.path)
    for (const path of [
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/uppy.js',
      'dist/uppy.d.ts',
      'dist/openapi.d.ts',
    ]) {
      expect(paths).toContain(path)
    }
    // Declarations name the files that ship: `./client.js`, never `./client.ts` or `./openapi`.
    const declarations = readFileSync(
      join(app, 'node_modules', 'waybill-client', 'dist', 'types.d.ts'),
      'utf8',
    )
    expect(declarations).toContain(`from './openapi.js'`)
  })

  for (const resolution of Object.keys(RESOLUTIONS) as (keyof typeof RESOLUTIONS)[]) {
    it(`compiles an app under moduleResolution ${resolution}, skipLibCheck off`, () => {
      expect(compile(join(app, 'app.ts'), resolution)).toEqual([])
    })
  }
})

describe('the no-bundler file', () => {
  for (const resolution of ['NodeNext', 'Bundler'] as const) {
    it(`has its declarations beside it (moduleResolution ${resolution})`, () => {
      expect(compile(join(app, 'page.ts'), resolution)).toEqual([])
    })
  }
})
