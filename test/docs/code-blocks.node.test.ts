// Every code block of the docs (README.md, docs/*.md, client/README.md, CHANGELOG.md) is checked:
//
// - `ts` and `tsx` blocks are compiled under strict TypeScript, each as a module of its own,
//   against the client's sources (`waybill-client` and its entries map to client/src) and the
//   repository's packages; the names an example takes as given (`waybill`, `file`, `input`, …)
//   are declared once below;
// - `json` and `jsonc` blocks parse (a `"NAME": value` fragment inside braces); one that sets
//   WAYBILL_* variables is a configuration, and waybill's own config parser must accept it;
// - any other block says in its info string that it is `output` (what a program prints) or an
//   `illustration` (a command or text not run here); in a `sh` block each `npm run <script>` must
//   name a script, each `npm start -- --flag` a flag scripts/dev.mjs takes, and WAYBILL_* variables
//   it sets as JSON (`NAME='…'`, a .dev.vars) must pass the config parser as a configuration does.
//
// A block with none of these fails, as does an unknown tag.

import { generateKeyPairSync } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import ts from 'typescript'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { codeBlocks, PAGES, type CodeBlock } from './markdown'

// src/core/sigv4 imports its WebAssembly module as workerd and wrangler do; Node compiles it here.
vi.mock('../../src/core/sigv4/sha256.wasm', () => ({
  default: new WebAssembly.Module(readFileSync('src/core/sigv4/sha256.wasm')),
}))
// The config parser, by a path the node project's type check does not follow: src/ is typed for
// workerd (tsconfig.json), and this file for Node.
const LOAD = '../../src/config/load'
const { parseConfig } = (await import(LOAD)) as {
  parseConfig: (
    env: object,
  ) => { ok: true } | { ok: false; errors: readonly { path: string; message: string }[] }
}

const TAGS = new Set(['output', 'illustration'])
const COMPILED = new Set(['ts', 'tsx'])
const PARSED = new Set(['json', 'jsonc'])

/** What the examples take as given: the client they all start from, and a page's elements. */
const GLOBALS = `
import type { WaybillClient } from 'waybill-client'
import type { Hono } from 'hono'

declare global {
  /** The client every example starts from: createClient({ baseUrl, auth }). */
  const waybill: WaybillClient
  /** A file the user picked. */
  const file: File
  /** A page's elements. */
  const input: HTMLInputElement
  const progress: HTMLProgressElement
  const bar: HTMLProgressElement
  const bars: HTMLProgressElement[]
  const rows: HTMLElement[]
  const result: HTMLElement
  const label: HTMLElement
  const note: HTMLElement
  const gallery: HTMLElement
  const img: HTMLImageElement
  const link: HTMLAnchorElement
  const a: HTMLAnchorElement
  const shareBox: HTMLInputElement
  const pauseButton: HTMLButtonElement
  const resumeButton: HTMLButtonElement
  const cancelButton: HTMLButtonElement
  /** Your app's own: its session, the signed-in user's id, and what a page does with a URL. */
  const session: { getToken(): Promise<string | undefined> }
  const userId: string
  const keys: string[]
  function show(key: string, url: string): void
  function index(object: { key: string }): void
  /** Your app's server, whose session middleware sets \`user\`. */
  const app: Hono<{ Variables: { user?: { id: string } } }>
  function waybillToken(userId: string): Promise<{ token: string; expiresAt: number }>
}

export {}
`

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2022', 'DOM', 'DOM.Iterable', 'ESNext.Disposable'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    jsx: 'react-jsx',
    strict: true,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
    paths: {
      'waybill-client': [resolve('client/src/index.ts')],
      'waybill-client/*': [resolve('client/src/*.ts')],
    },
  },
}

/** Where the blocks are written: inside the repository, so they resolve its node_modules. */
const DIR = resolve('.tmp/docs-blocks')

/** Each compiled block's diagnostics, as `file:line: TSnnnn message`, by block. */
function compile(blocks: CodeBlock[]): Map<CodeBlock, string[]> {
  rmSync(DIR, { recursive: true, force: true })
  mkdirSync(DIR, { recursive: true })
  // A .ts file, not a .d.ts: skipLibCheck would hide its mistakes.
  writeFileSync(join(DIR, 'globals.ts'), GLOBALS)
  // What a bundler makes of a CSS import (Uppy's styles).
  writeFileSync(join(DIR, 'css.d.ts'), `declare module '*.css'\n`)
  writeFileSync(join(DIR, 'tsconfig.json'), JSON.stringify(TSCONFIG))
  const files = new Map<string, CodeBlock>()
  blocks.forEach((block, i) => {
    const name = join(DIR, `block-${i}.${block.lang}`)
    // Each block is a module of its own, so its names never meet another block's.
    writeFileSync(name, `${block.text}\nexport {}\n`)
    files.set(name, block)
  })
  const config = ts.getParsedCommandLineOfConfigFile(
    join(DIR, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
      },
    },
  )!
  const program = ts.createProgram(
    [...files.keys(), join(DIR, 'globals.ts'), join(DIR, 'css.d.ts')],
    config.options,
  )
  const found = new Map<CodeBlock, string[]>(blocks.map((block) => [block, []]))
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const block = diagnostic.file && files.get(resolve(diagnostic.file.fileName))
    const message = `TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`
    if (block === undefined || block === null) {
      // A problem outside the blocks (the globals, the client) fails every block's check.
      const where = diagnostic.file?.fileName ?? 'the compiler options'
      for (const list of found.values()) list.push(`${where}: ${message}`)
      continue
    }
    const line = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line
    found.get(block)!.push(`${block.file}:${block.line + 1 + line}: ${message}`)
  }
  return found
}

/** A block's JSON: the whole block, or a `"NAME": value` fragment inside braces. */
function parseJson(block: CodeBlock): unknown {
  const read = (text: string) => {
    // Plain `json` is JSON; `jsonc` may have comments and trailing commas, as wrangler.jsonc does.
    if (block.lang === 'json') return JSON.parse(text) as unknown
    const file = ts.parseJsonText('block.jsonc', text)
    const errors: ts.Diagnostic[] = []
    const value = ts.convertToObject(file, errors) as unknown
    const [error] = [
      ...(file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics,
      ...errors,
    ]
    if (error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, ''))
    return value
  }
  try {
    return read(block.text)
  } catch (whole) {
    if (!block.text.trimStart().startsWith('"')) throw whole
    return read(`{${block.text}}`)
  }
}

// A configuration example is judged in an env that holds what examples leave out: origins for
// the grants to name, a token secret, and the secrets any origin names.
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const PEM = privateKey.export({ type: 'pkcs1', format: 'pem' }) as string
const BASE_ENV: Record<string, unknown> = {
  WAYBILL_ORIGINS: {
    photos: { type: 's3', bucket: 'photos', region: 'eu-west-1', credentials: 'PHOTOS' },
    demo: { type: 's3', bucket: 'demo', region: 'us-east-1', credentials: 'DEMO' },
  },
  WAYBILL_TOKEN_SECRETS: JSON.stringify([{ id: 'docs', secret: 'd'.repeat(43) }]),
  WAYBILL_JWT_HS256_SECRET: 'j'.repeat(43),
  // The R2 binding the examples name, as far as the config looks at it.
  MEDIA: Object.fromEntries(
    ['get', 'put', 'head', 'delete', 'createMultipartUpload'].map((name) => [name, () => {}]),
  ),
}
function envWith(variables: Record<string, unknown>): Record<string, unknown> {
  const env = { ...BASE_ENV, ...variables }
  return new Proxy(env, {
    get: (target, name) => {
      if (typeof name !== 'string' || name in target) return target[name as string]
      if (name.endsWith('_ACCESS_KEY_ID')) return 'AKIAIOSFODNN7EXAMPLE'
      if (name.endsWith('_SECRET_ACCESS_KEY')) return 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
      if (name.endsWith('_PRIVATE_KEY')) return PEM
      return undefined
    },
  })
}

/** What waybill's config parser says of a configuration example, or [] when it is not one. */
function configProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return []
  const names = Object.keys(value)
  if (names.length === 0 || !names.every((name) => name.startsWith('WAYBILL_'))) return []
  const result = parseConfig(envWith(value as Record<string, unknown>))
  return result.ok ? [] : result.errors.map(({ path, message }) => `${path}: ${message}`)
}

const scripts = (file: string) =>
  new Set(Object.keys((JSON.parse(readFileSync(file, 'utf8')) as { scripts: object }).scripts))
const ROOT_SCRIPTS = scripts('package.json')
const CLIENT_SCRIPTS = scripts('client/package.json')
const DEV = readFileSync('scripts/dev.mjs', 'utf8')

/**
 * What a shell block names that is not there (npm scripts, npm start's flags), and what the config
 * parser says of the WAYBILL_* variables it sets as JSON (a `.dev.vars`).
 */
function shellProblems(text: string): string[] {
  const variables: Record<string, string> = {}
  for (const [, name, value] of text.matchAll(/^(WAYBILL_[A-Z_]+)='(.*)'$/gm)) {
    variables[name!] = value!
  }
  const problems = configProblems(variables)
  for (const line of text.split('\n')) {
    for (const [, name, rest] of line.matchAll(/npm run ([\w:-]+)([^|&;]*)/g)) {
      const own = / -w client\b/.test(rest!) ? CLIENT_SCRIPTS : ROOT_SCRIPTS
      if (!own.has(name!)) problems.push(`npm run ${name}: no such script`)
    }
    const start = /npm start -- (.*)/.exec(line)
    for (const [flag] of start?.[1]!.matchAll(/--[a-z][a-z-]*/g) ?? []) {
      if (!DEV.includes(`'${flag}`) && !DEV.includes(`${flag} `)) {
        problems.push(`npm start ${flag}: scripts/dev.mjs takes no such flag`)
      }
    }
  }
  return problems
}

/** Why a block is not checked as it says, or [] when it is. */
function judge(block: CodeBlock, compiled: Map<CodeBlock, string[]>): string[] {
  const at = `${block.file}:${block.line}`
  const unknown = block.tags.filter((tag) => !TAGS.has(tag))
  if (unknown.length > 0) return [`${at}: unknown tag ${unknown.join(' ')}`]
  if (COMPILED.has(block.lang)) return compiled.get(block) ?? [`${at}: not compiled`]
  if (PARSED.has(block.lang)) {
    try {
      return configProblems(parseJson(block)).map((problem) => `${at}: ${problem}`)
    } catch (error) {
      return [`${at}: not ${block.lang}: ${(error as Error).message}`]
    }
  }
  if (block.tags.length === 0) {
    return [`${at}: a \`${block.lang}\` block is neither checked nor marked output or illustration`]
  }
  return block.lang === 'sh' ? shellProblems(block.text).map((problem) => `${at}: ${problem}`) : []
}

afterAll(() => rmSync(DIR, { recursive: true, force: true }))

describe('the check of code blocks', () => {
  // Blocks a page must never hold, each caught: what the check says when a page has one.
  const canaries = codeBlocks(
    'canary.md',
    [
      '```sh\nnpm start\n```',
      '```ts\nconst n: number = "one"\n```',
      '```tsx\nawait waybill.upload(input.files[0], { origin: "p" })\nawait waybill.sign({ origin: "p", method: "PUT", items: [{ key: "a", download: "a.pdf" }] })\n```',
      '```json\n{ "origin": "photos", }\n```',
      '```json\n"WAYBILL_GRANTS": [{ "to": "*", "origin": "photos", "actions": ["fly"] }]\n```',
      '```sh illustration\nnpm run no-such-script && npm start -- --no-such-flag\n```',
      '```sh outptu\nls\n```',
      '```sh illustration\nWAYBILL_GRANTS=\'[{"to":"*","origin":"photos","actions":["fly"]}]\'\n```',
    ].join('\n\n'),
  )
  const compiled = compile(canaries.filter((block) => COMPILED.has(block.lang)))
  const verdicts = canaries.map((block) => judge(block, compiled).join('\n'))

  it('refuses a block neither checked nor marked', () => {
    expect(verdicts[0]).toMatch(/a `sh` block is neither checked nor marked/)
  })

  it('compiles TypeScript strictly, with the client typed from its sources', () => {
    expect(verdicts[1]).toMatch(/canary\.md:6: TS2322 Type 'string' is not assignable/)
    expect(verdicts[2]).toMatch(/TS18047 'input.files' is possibly 'null'/)
    expect(verdicts[2]).toMatch(/canary\.md:11: TS2345 [\s\S]*'download'/)
  })

  it('parses JSON, and checks a configuration by the config parser', () => {
    expect(verdicts[3]).toMatch(/not json/)
    expect(verdicts[4]).toMatch(/WAYBILL_GRANTS\.0\.actions/)
  })

  it('checks the npm scripts and flags a shell block names, and the tags', () => {
    expect(verdicts[5]).toMatch(/npm run no-such-script: no such script/)
    expect(verdicts[5]).toMatch(/npm start --no-such-flag: scripts\/dev.mjs takes no such flag/)
    expect(verdicts[6]).toMatch(/unknown tag outptu/)
    expect(verdicts[7]).toMatch(/WAYBILL_GRANTS\.0\.actions/)
  })
})

describe('every code block of the docs', () => {
  const blocks = PAGES.flatMap((page) => codeBlocks(page))
  const compiled = compile(blocks.filter((block) => COMPILED.has(block.lang)))

  it('finds the blocks of every page', () => {
    expect(blocks.length).toBeGreaterThan(60)
    expect(new Set(blocks.map((block) => block.file))).toContain('client/README.md')
  })

  it('is checked, or marked output or illustration', () => {
    expect(blocks.flatMap((block) => judge(block, compiled))).toEqual([])
  })
})
