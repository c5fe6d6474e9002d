// waybill-client as an app gets it: `npm pack -w client` (its prepack builds dist/), the tarball
// unpacked into a consumer's node_modules, and a consumer file compiled against it under each
// moduleResolution an app may use, with skipLibCheck off so every shipped declaration is checked.
// The no-bundler file (public/vendor/waybill-client.js) and the .d.ts beside it get the same calls.
// The README's Uppy snippet is compiled as written, against the tarball and the real Uppy types;
// so is a React consumer of waybill-client/react. (React's and Uppy's packages are the
// repository's own, linked into the consumer's node_modules.)
//
// A correct call must compile and a wrong one must not: each wrong one carries @ts-expect-error,
// which is itself an error when nothing is wrong (TS2578), so types that decayed to `any` fail too.

import { execFileSync, spawnSync } from 'node:child_process'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildClientBundle } from '../../scripts/docs-assets.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** What an app writes: a correct call of each kind, and wrong ones that must not compile. */
const consumer = (from: string, uppy?: string) => `
import {
  createClient,
  WaybillError,
  type SignAnswer,
  type SignRequest,
  type UploadResult,
  type UploadStatus,
} from '${from}'
${
  uppy === undefined
    ? ''
    : `import { waybillUppy, type UppyLike } from '${uppy}'
import { listStream, signStream } from 'waybill-client/stream'
import { redirectUrl } from 'waybill-client/redirect'`
}

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

export async function pausedUpload(file: Blob): Promise<string> {
  const task = waybill.startUpload(file, { origin: 'photos', key: 'videos/talk.mp4' })
  task.pause()
  task.resume()
  const { state }: UploadStatus = task.status
  const stored = await task.done
  // @ts-expect-error: a task has no \`stop\` (it is \`cancel\`)
  task.stop()
  return \`\${state} \${stored.key}\`
}

export async function many(files: File[]): Promise<number> {
  const outcomes = await waybill.uploadMany(
    files.map((file) => ({ file })),
    { origin: 'photos', continueOnError: true, onFileProgress: (i, p) => void [i, p.loaded] },
  )
  const stored: UploadResult[] = await waybill.uploadMany(files.map((file) => ({ file })), {
    origin: 'photos',
  })
  // @ts-expect-error: with continueOnError, outcomes are settled results, not stored objects
  const wrong: UploadResult = outcomes[0]!
  void wrong
  return outcomes.filter((o) => o.status === 'fulfilled').length + stored.length
}

export async function oneTime(): Promise<number | undefined> {
  const answer = await waybill.links({ origin: 'photos', keys: ['r.pdf'], maxUses: 1 })
  return answer.maxUses
}

export async function wrong(): Promise<void> {
  // @ts-expect-error: a sign request has no \`key\` field (it is \`keys\`)
  await waybill.sign({ origin: 'photos', key: 'a.jpg' })
  // @ts-expect-error: keys are strings
  await waybill.sign({ origin: 'photos', keys: [1] })
  // @ts-expect-error: \`origin\` is required
  await waybill.sign({ keys: ['a.jpg'] })
  // @ts-expect-error: a link's \`maxUses\` is a number
  await waybill.links({ origin: 'photos', keys: ['a.jpg'], maxUses: '1' })
  // @ts-expect-error: the answer's URLs are objects, not strings
  const url: string = (await waybill.sign({ origin: 'photos', keys: ['a.jpg'] })).urls[0]!
  void url
  // @ts-expect-error: \`download\` is true or a file name
  await waybill.sign({ origin: 'photos', items: [{ key: 'a.pdf', download: 5 }] })
  // @ts-expect-error: a PUT URL takes no download name (GET and HEAD do)
  await waybill.sign({ origin: 'photos', method: 'PUT', items: [{ key: 'a.pdf', download: 'a.pdf' }] })
  // @ts-expect-error: \`response\` overrides are objects
  await waybill.sign({ origin: 'photos', items: [{ key: 'a.pdf', response: 'inline' }] })
}

/** What a GET item asks for, typed as the document types it. */
export async function named(): Promise<string | true | undefined> {
  const request: SignRequest = {
    origin: 'photos',
    items: [{ key: 'a.pdf', download: 'report 2026.pdf', response: { cacheControl: 'no-cache' } }],
  }
  await waybill.sign(request)
  return request.items?.[0]?.download ?? request.items?.[0]?.inline
}

// @ts-expect-error: not one of the error codes
export const unknownCode = (error: WaybillError): boolean => error.code === 'no_such_code'
export const corsRefused = (error: WaybillError): boolean => error.code === 'cors_refused'
${
  uppy === undefined
    ? ''
    : `
declare const uppyInstance: UppyLike
export const s3Options = waybillUppy(uppyInstance, waybill, { origin: 'photos', mode: 'post' })
// @ts-expect-error: \`mode\` is put or post
export const badOptions = waybillUppy(uppyInstance, waybill, { origin: 'photos', mode: 'get' })

export async function streamed(): Promise<string[]> {
  const keys: string[] = []
  for await (const { key } of signStream(waybill, { origin: 'photos', keys: ['a.jpg'] })) keys.push(key)
  for await (const object of listStream(waybill, 'photos', { limit: 10_000 })) keys.push(object.key)
  return keys
}
export const image = redirectUrl(waybill, 'photos', 'gallery/cat.jpg', { download: true })
// @ts-expect-error: \`download\` is true or a file name
export const badRedirect = redirectUrl(waybill, 'photos', 'a.jpg', { download: 1 })
`
}`

/**
 * A React consumer of waybill-client/react, and of the store any framework holds: correct calls,
 * and wrong ones that must not compile.
 */
const REACT_CONSUMER = `
import { createElement, type ReactElement } from 'react'
import { createClient, type UploadResult } from 'waybill-client'
import {
  UploadButton,
  UploadDropzone,
  useSignedList,
  useUpload,
  useUploadRules,
  useUploads,
  type UploadQueue,
} from 'waybill-client/react'
import { createUploadStore, uploadRules, type UploadSnapshot } from 'waybill-client/store'

const waybill = createClient({ baseUrl: 'https://waybill.example.com' })

export function useEverything(): string {
  const upload = useUpload(waybill, { origin: 'photos' })
  const { rules, accept, check } = useUploadRules(waybill, 'photos')
  const queue: UploadQueue = useUploads(waybill, {
    origin: 'photos',
    rules,
    keyOf: (file) => \`uploads/\${file.name}\`,
    onComplete: (outcomes) => void outcomes.length,
  })
  const gallery = useSignedList(waybill, 'photos', { prefix: 'gallery/', limit: 50 })
  const code: string | undefined = upload.error?.code
  const percent: number | undefined = upload.progress?.percentage
  const busy: boolean = queue.isUploading
  const shares: number[] = queue.items.map((item) => item.progress.percentage)
  const names: string[] = queue.items.map((item) => item.file.name)
  const refused: string | undefined = check(new Blob(['x']))?.code
  // @ts-expect-error: \`origin\` is required
  useUpload(waybill, {})
  // @ts-expect-error: a listing's \`limit\` is a number
  useSignedList(waybill, 'photos', { limit: '50' })
  // @ts-expect-error: keyOf answers a key, a string
  useUploads(waybill, { origin: 'photos', keyOf: (file) => file.size })
  return [upload.state, percent, busy, shares, names, accept, refused, gallery.items[0]?.url, code].join()
}

export async function batch(queue: UploadQueue, files: FileList): Promise<UploadResult[]> {
  const outcomes = await queue.add(files)
  return outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []))
}

export function Components(): ReactElement {
  return createElement(
    'div',
    null,
    createElement(UploadButton, { client: waybill, origin: 'photos', children: 'Upload' }),
    createElement(UploadDropzone, {
      client: waybill,
      origin: 'photos',
      keyOf: (file: File) => \`inbox/\${file.name}\`,
      onComplete: (outcomes: PromiseSettledResult<UploadResult>[]) => void outcomes,
    }),
    // @ts-expect-error: the components need the client
    createElement(UploadButton, { origin: 'photos' }),
  )
}

export async function vanilla(input: HTMLInputElement): Promise<number> {
  const rules = await uploadRules(waybill, 'photos')
  input.accept = rules.accept
  const store = createUploadStore(waybill, { origin: 'photos', rules })
  const stop = store.subscribe(() => {
    const { items, isUploading }: UploadSnapshot = store.getSnapshot()
    void [items[0]?.progress.percentage, isUploading]
  })
  const outcomes = await store.add(input.files ?? [])
  stop()
  // @ts-expect-error: the store takes files, not keys
  await store.add(['a.png'])
  return outcomes.length
}
`

/** The README's Uppy snippet, exactly as the README shows it. */
function readmeUppySnippet(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('### Use with Uppy'))
  const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
  if (snippet === undefined) throw new Error('README.md: no ts snippet under "Use with Uppy"')
  return `${snippet}export {}\n`
}

/** The consumer's compiler options for each resolution, all strict and checking every library. */
const RESOLUTIONS = {
  NodeNext: { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
  Bundler: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler },
  node10: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Node10 },
} satisfies Record<string, ts.CompilerOptions>

// Uppy 6's declarations name Symbol.dispose (the README says so).
const DISPOSABLE = ['lib.esnext.disposable.d.ts']

function compile(
  file: string,
  resolution: keyof typeof RESOLUTIONS,
  extraLibs: string[] = [],
): string[] {
  const options: ts.CompilerOptions = {
    ...RESOLUTIONS[resolution],
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts', ...extraLibs],
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
/** What the build printed (scripts/build-client.mjs). */
let buildOutput: string

beforeAll(async () => {
  app = mkdtempSync(join(tmpdir(), 'waybill-consumer-'))
  // The tarball as npm publishes it; prepack builds dist/ first, and prints its sizes on stderr.
  const pack = spawnSync('npm', ['pack', '-w', 'client', '--json', '--pack-destination', app], {
    cwd: ROOT,
    encoding: 'utf8',
  })
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`)
  buildOutput = pack.stderr
  const [info] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }]
  packed = info
  const installed = join(app, 'node_modules', 'waybill-client')
  mkdirSync(installed, { recursive: true })
  execFileSync('tar', ['-xzf', join(app, info.filename), '-C', installed, '--strip-components=1'])
  writeFileSync(join(app, 'package.json'), JSON.stringify({ type: 'module', private: true }))
  writeFileSync(join(app, 'app.ts'), consumer('waybill-client', 'waybill-client/uppy'))
  // React's and Uppy's own packages, as an app that uses them has them.
  for (const name of [
    'react',
    '@types/react',
    '@uppy/core',
    '@uppy/aws-s3',
    '@uppy/dashboard',
    '@uppy/golden-retriever',
  ]) {
    mkdirSync(dirname(join(app, 'node_modules', name)), { recursive: true })
    symlinkSync(join(ROOT, 'node_modules', name), join(app, 'node_modules', name), 'dir')
  }
  writeFileSync(join(app, 'react-app.ts'), REACT_CONSUMER)
  writeFileSync(join(app, 'readme-uppy.ts'), readmeUppySnippet())

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
      'dist/store.js',
      'dist/store.d.ts',
      'dist/react.js',
      'dist/react.d.ts',
      'dist/uppy.js',
      'dist/uppy.d.ts',
      'dist/stream.js',
      'dist/stream.d.ts',
      'dist/redirect.js',
      'dist/redirect.d.ts',
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

  it('was built within the budget of each entry, which the build printed', () => {
    const entries = Object.keys(
      (
        JSON.parse(readFileSync(join(ROOT, 'client', 'package.json'), 'utf8')) as {
          exports: Record<string, unknown>
        }
      ).exports,
    ).filter((entry) => entry !== './package.json')
    for (const entry of entries) {
      const name = `waybill-client${entry.slice(1)}`
      const line = buildOutput.split('\n').find((text) => text.trim().startsWith(`${name} `))
      expect(line, entry).toMatch(/ [\d.]+ KiB gzip: within the budget of [\d.]+ KiB$/)
    }
  })

  for (const resolution of Object.keys(RESOLUTIONS) as (keyof typeof RESOLUTIONS)[]) {
    it(`compiles an app under moduleResolution ${resolution}, skipLibCheck off`, () => {
      expect(compile(join(app, 'app.ts'), resolution)).toEqual([])
    })
  }

  for (const resolution of ['NodeNext', 'Bundler'] as const) {
    it(`compiles a React app of the hooks (moduleResolution ${resolution})`, () => {
      expect(compile(join(app, 'react-app.ts'), resolution)).toEqual([])
    })

    it(`compiles the README's Uppy snippet as written (moduleResolution ${resolution})`, () => {
      expect(compile(join(app, 'readme-uppy.ts'), resolution, DISPOSABLE)).toEqual([])
    })
  }

  it("needs ESNext.Disposable for Uppy's declarations, as the README says", () => {
    expect(compile(join(app, 'readme-uppy.ts'), 'Bundler').join('\n')).toMatch(
      /Property 'dispose' does not exist on type 'SymbolConstructor'/,
    )
  })
})

describe('the no-bundler file', () => {
  for (const resolution of ['NodeNext', 'Bundler'] as const) {
    it(`has its declarations beside it (moduleResolution ${resolution})`, () => {
      expect(compile(join(app, 'page.ts'), resolution)).toEqual([])
    })
  }
})
