// Schemathesis, property-based, against the Worker under `wrangler dev` (./global-setup.ts):
// requests generated from docs/openapi.json, with every check it has (server errors, statuses and
// content types the document does not list, answers that break their schema, schema-valid
// requests refused, invalid ones accepted, auth ignored, …). It knows the Worker's origin names,
// as a caller does, so its requests reach the services behind every operation, and walks the
// document's links from an upload to its follow-ups. Each operation gets the credential of the
// security scheme it names: the API key for the caller's operations, the admin token for
// /admin/v1 (Schemathesis' [auth.openapi.<scheme>]), so neither is sent where it is refused. The
// callers' operations and the admin API are two runs, in that order (see below).
//
// The seed is random unless WAYBILL_SCHEMATHESIS_SEED is set, and printed with any failure:
//   WAYBILL_SCHEMATHESIS_SEED=<seed> npm run test:openapi

import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { expect, inject, it } from 'vitest'

const DOCUMENT = resolve('docs/openapi.json')
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options'])
const PATHS = (JSON.parse(readFileSync(DOCUMENT, 'utf8')) as { paths: Record<string, object> })
  .paths
const OPERATIONS = Object.values(PATHS).flatMap((item) =>
  Object.keys(item).filter((key) => METHODS.has(key)),
).length
const ADMIN = /^\/admin\//
const ADMIN_OPERATIONS = Object.entries(PATHS)
  .filter(([path]) => ADMIN.test(path))
  .flatMap(([, item]) => Object.keys(item).filter((key) => METHODS.has(key))).length
/** Generated cases per operation and phase: the run takes about a minute on two cores. */
const MAX_EXAMPLES = 50

// The origins of the Worker under test (./target.ts): most generated origin names are these. The
// credentials come from the child's environment, so that they are written to no file.
const CONFIG = `
[cache]
enabled = false

[auth.openapi.apiKey]
bearer = "\${WAYBILL_FUZZ_API_KEY}"

[auth.openapi.adminToken]
bearer = "\${WAYBILL_FUZZ_ADMIN_TOKEN}"

[dictionaries.origins]
values = ["photos", "cdn"]

[parameters]
"body.origin" = { dictionary = "origins", probability = 0.9 }
"path.origin" = { dictionary = "origins", probability = 0.9 }
`

function run(command: string, args: string[], cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; output: string }>((done, fail) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('error', fail)
    child.once('close', (code) => done({ code, output }))
  })
}

// One seed for both runs, printed with any failure.
const seed = process.env.WAYBILL_SCHEMATHESIS_SEED ?? String(Math.floor(Math.random() * 2 ** 31))

/** Schemathesis over the operations `filter` selects; its output, once it has passed. */
async function fuzz(filter: string[]): Promise<string> {
  const { st, baseUrl, apiKey, adminToken } = inject('schemathesis')
  // Its caches and the examples it finds stay in a folder of this run's, not the checkout.
  const dir = mkdtempSync(join(tmpdir(), 'waybill-schemathesis-'))
  try {
    writeFileSync(join(dir, 'schemathesis.toml'), CONFIG)
    // prettier-ignore
    const { code, output } = await run(st, [
      '--config-file', join(dir, 'schemathesis.toml'), '--no-color',
      'run', DOCUMENT,
      '--url', baseUrl,
      ...filter,
      '--checks', 'all',
      '--max-examples', String(MAX_EXAMPLES),
      '--seed', seed,
      // A redirect's answer is the 302 the document describes, not the bucket's answer to it.
      '--max-redirects', '0',
      // One thread: two can break Python 3.11's ast.parse under Hypothesis ("SystemError: AST
      // constructor recursion depth mismatch", python/cpython#106905), and gain nothing here.
      '--workers', '1',
      '--generation-database', 'none',
    ], dir, { WAYBILL_FUZZ_API_KEY: apiKey, WAYBILL_FUZZ_ADMIN_TOKEN: adminToken })
    console.log(`Schemathesis seed ${seed}\n${output}`)
    expect(
      code,
      `Schemathesis failed with seed ${seed} (replay: WAYBILL_SCHEMATHESIS_SEED=${seed} npm run test:openapi):\n${output}`,
    ).toBe(0)
    return output
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// The callers' operations first, against the state a deployment starts from; the admin API's
// after them. Its requests change what the callers' answers must be (a quota makes uploads 429,
// a revocation of every link makes them 410, as documented), which Schemathesis would take for
// valid requests refused; the suite's own tests check those answers (test/e2e/quotas.test.ts,
// test/e2e/control-plane.test.ts).
it("finds no failure of any check in the callers' operations (with the API key)", async () => {
  const output = await fuzz(['--exclude-path-regex', ADMIN.source])
  // What it ran: a run that generated nothing would pass too.
  const callers = OPERATIONS - ADMIN_OPERATIONS
  expect(output).toContain(`Operations:       ${callers} selected / ${OPERATIONS} total`)
  expect(output).toMatch(/Test cases:\s+\d{4,} generated, \d+ passed/)
})

it('finds no failure of any check in the admin API (with the admin token)', async () => {
  const output = await fuzz(['--include-path-regex', ADMIN.source])
  expect(output).toContain(`Operations:       ${ADMIN_OPERATIONS} selected / ${OPERATIONS} total`)
  expect(output).toMatch(/Test cases:\s+\d{3,} generated, \d+ passed/)
})
