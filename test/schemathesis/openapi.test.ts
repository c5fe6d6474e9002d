// Schemathesis, property-based, against the Worker under `wrangler dev` (./global-setup.ts):
// requests generated from docs/openapi.json, with every check it has (server errors, statuses and
// content types the document does not list, answers that break their schema, schema-valid
// requests refused, invalid ones accepted, auth ignored, …). It knows the Worker's origin names,
// as a caller does, so its requests reach the services behind every operation, and walks the
// document's links from an upload to its follow-ups.
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
const OPERATIONS = Object.values(
  (JSON.parse(readFileSync(DOCUMENT, 'utf8')) as { paths: Record<string, object> }).paths,
).flatMap((item) => Object.keys(item).filter((key) => METHODS.has(key))).length
/** Generated cases per operation and phase: the run takes about a minute on two cores. */
const MAX_EXAMPLES = 50

// The origins of the Worker under test (./target.ts): most generated origin names are these.
const CONFIG = `
[cache]
enabled = false

[dictionaries.origins]
values = ["photos", "cdn"]

[parameters]
"body.origin" = { dictionary = "origins", probability = 0.9 }
"path.origin" = { dictionary = "origins", probability = 0.9 }
`

function run(command: string, args: string[], cwd: string) {
  return new Promise<{ code: number | null; output: string }>((done, fail) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('error', fail)
    child.once('close', (code) => done({ code, output }))
  })
}

it('finds no failure of any check in docs/openapi.json against the Worker', async () => {
  const { st, baseUrl, apiKey } = inject('schemathesis')
  const seed = process.env.WAYBILL_SCHEMATHESIS_SEED ?? String(Math.floor(Math.random() * 2 ** 31))
  // Its caches and the examples it finds stay in a folder of this run's, not the checkout.
  const dir = mkdtempSync(join(tmpdir(), 'waybill-schemathesis-'))
  try {
    writeFileSync(join(dir, 'schemathesis.toml'), CONFIG)
    // prettier-ignore
    const { code, output } = await run(st, [
      '--config-file', join(dir, 'schemathesis.toml'), '--no-color',
      'run', DOCUMENT,
      '--url', baseUrl,
      '--header', `Authorization: Bearer ${apiKey}`,
      '--checks', 'all',
      '--max-examples', String(MAX_EXAMPLES),
      '--seed', seed,
      // A redirect's answer is the 302 the document describes, not the bucket's answer to it.
      '--max-redirects', '0',
      '--workers', '2',
      '--generation-database', 'none',
    ], dir)
    console.log(`Schemathesis seed ${seed}\n${output}`)
    expect(
      code,
      `Schemathesis failed with seed ${seed} (replay: WAYBILL_SCHEMATHESIS_SEED=${seed} npm run test:openapi):\n${output}`,
    ).toBe(0)
    // What it ran: a run that generated nothing would pass too.
    expect(output).toContain(`Operations:       ${OPERATIONS} selected / ${OPERATIONS} total`)
    expect(output).toMatch(/Test cases:\s+\d{4,} generated, \d+ passed/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
