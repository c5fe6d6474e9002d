// Schemathesis, property-based, against the two Workers under `wrangler dev` (./global-setup.ts):
// requests generated from each one's document (docs/openapi.json for the data plane,
// docs/admin-openapi.json for the admin plane, on its own host), with every check it has (server errors, statuses and
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
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { expect, inject, it } from 'vitest'
import { waitForInstall } from '../../scripts/schemathesis.mjs'
import { afterUsageWritten } from '../helpers/local-d1'

const DOCUMENT = resolve('docs/openapi.json')
const ADMIN_DOCUMENT = resolve('docs/admin-openapi.json')
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options'])

/** How many operations a document describes. */
function operationsOf(document: string): number {
  const { paths } = JSON.parse(readFileSync(document, 'utf8')) as { paths: Record<string, object> }
  return Object.values(paths).flatMap((item) => Object.keys(item).filter((key) => METHODS.has(key)))
    .length
}
const OPERATIONS = operationsOf(DOCUMENT)
const ADMIN_OPERATIONS = operationsOf(ADMIN_DOCUMENT)
/**
 * Generated cases per operation in the phases that draw at random (fuzzing, stateful). The
 * coverage phase, which walks every parameter's boundaries and invalid shapes, does not depend on
 * it. At 50, the two runs took about four minutes of the suite's ten on two cores.
 */
const MAX_EXAMPLES = 30

// The origins of the Worker under test (./target.ts): most generated origin names are these. The
// credentials come from the child's environment, so that they are written to no file.
const CONFIG = `
hooks = "\${WAYBILL_FUZZ_HOOKS}"

[cache]
enabled = false

[dictionaries.origins]
values = ["photos", "cdn", "media"]

[parameters]
"body.origin" = { dictionary = "origins", probability = 0.9 }
"path.origin" = { dictionary = "origins", probability = 0.9 }
"query.origin" = { dictionary = "origins", probability = 0.9 }

`

/**
 * Each run's own auth and operations: a scheme or filter that matches none of a document's is a
 * warning.
 */
const CALLERS_CONFIG = `
[auth.openapi.apiKey]
bearer = "\${WAYBILL_FUZZ_API_KEY}"

# Time decides this answer, not the request's shape: a link made with a generated expiresIn of a
# second may have expired when it is followed, which the document answers with 410. Schemathesis'
# defaults, and that.
[[operations]]
include-path = "/l/{token}"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "410", "429", "5xx"]
`
const ADMIN_CONFIG = `
[auth.openapi.adminToken]
bearer = "\${WAYBILL_FUZZ_ADMIN_TOKEN}"

# A time range whose "from" is after its "to" is a 400 naming "from", and an imported quota with
# neither limit a 400 naming it: rules across fields, which the document does not state.
# Schemathesis' defaults, and that.
[[operations]]
include-path-regex = "^/admin/v1/(audit|usage|usage/top|import)$"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]
`

const HOOKS = resolve('test/schemathesis/hooks.py')
/** Real uploads per kind for the follow-ups' generated requests (./hooks.py). */
const UPLOADS = 8

/** A URL an R2 origin signed, as its path parameters and query. */
interface ServedUrl {
  origin: string
  key: string
  query: Record<string, string>
}

interface MadeUploads {
  multipart: { origin: string; key: string; uploadId: string }[]
  abortable: { origin: string; key: string; uploadId: string }[]
  put: { origin: string; key: string; receipt: string; etag: string | undefined }[]
  /** Signed URLs of the R2 origin "media", by the method they are signed for. */
  served: Record<'GET' | 'PUT' | 'DELETE', ServedUrl[]>
  /** The admin run's: grants made before it, for its `DELETE /admin/v1/grants/{id}` to remove. */
  grants: string[]
}

/** `POST /v1/uploads` as the fuzzed caller; its JSON answer. */
async function createUpload(baseUrl: string, apiKey: string, body: object) {
  const response = await fetch(`${baseUrl}/v1/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ origin: 'photos', ...body }),
  })
  expect(response.status, await response.clone().text()).toBe(200)
  return response.json() as Promise<Record<string, unknown>>
}

/**
 * Multipart uploads started (some only to be aborted) and PUT uploads issued through the Worker, for
 * ./hooks.py to put into the follow-ups' generated bodies. Half the PUT uploads are sent, so a
 * check finds their object; each signs its checksum, so a check needs no ETag (one given is the
 * store's, as a caller's would be).
 */
async function makeUploads(baseUrl: string, apiKey: string): Promise<MadeUploads> {
  const made: Omit<MadeUploads, 'served'> = { multipart: [], abortable: [], put: [], grants: [] }
  for (let i = 0; i < 2 * UPLOADS; i++) {
    const started = await createUpload(baseUrl, apiKey, {
      mode: 'multipart',
      key: `fuzz/multipart-${i}.bin`,
      contentType: 'application/octet-stream',
      contentLength: 12 * 1024 * 1024,
    })
    const upload = {
      origin: 'photos',
      key: started.key as string,
      uploadId: started.uploadId as string,
    }
    ;(i < UPLOADS ? made.multipart : made.abortable).push(upload)
  }
  for (let i = 0; i < UPLOADS; i++) {
    const bytes = `put ${i}`
    const issued = await createUpload(baseUrl, apiKey, {
      mode: 'put',
      key: `fuzz/put-${i}.txt`,
      contentType: 'text/plain',
      contentLength: bytes.length,
      checksumSha256: createHash('sha256').update(bytes).digest('base64'),
      overwrite: true,
    })
    let etag: string | undefined
    if (i % 2 === 0) {
      const sent = await fetch(issued.url as string, {
        method: 'PUT',
        headers: issued.headers as Record<string, string>,
        body: bytes,
      })
      expect(sent.status, await sent.text()).toBe(200)
      etag = sent.headers.get('etag') ?? undefined
    }
    made.put.push({
      origin: 'photos',
      key: issued.key as string,
      receipt: issued.receipt as string,
      etag,
    })
  }
  return { ...made, served: await makeServedUrls(baseUrl, apiKey) }
}

/** `POST /v1/sign` on "media" as the fuzzed caller: the URL, as hooks.py sets a request to it. */
async function signServed(baseUrl: string, apiKey: string, body: object): Promise<ServedUrl> {
  const response = await fetch(`${baseUrl}/v1/sign`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ origin: 'media', ...body }),
  })
  expect(response.status, await response.clone().text()).toBe(200)
  const { urls } = (await response.json()) as { urls: { key: string; url: string }[] }
  const url = new URL(urls[0]!.url)
  return { origin: 'media', key: urls[0]!.key, query: Object.fromEntries(url.searchParams) }
}

/**
 * Signed URLs for the R2 origin's routes (/o/{origin}/{key}): no generator can forge their
 * signature over the exact path and query, so ./hooks.py gives each generated request a real one
 * (every other part stays as generated). The GET URLs lead to an object stored here first.
 */
async function makeServedUrls(baseUrl: string, apiKey: string): Promise<MadeUploads['served']> {
  const stored = await createUpload(baseUrl, apiKey, {
    origin: 'media',
    key: 'fuzz/served.txt',
    contentType: 'text/plain',
    contentLength: 5,
    overwrite: true,
  })
  const sent = await fetch(stored.url as string, {
    method: 'PUT',
    headers: stored.headers as Record<string, string>,
    body: 'hello',
  })
  expect(sent.status, await sent.text()).toBe(200)
  return {
    GET: [await signServed(baseUrl, apiKey, { keys: ['fuzz/served.txt'] })],
    PUT: [
      await signServed(baseUrl, apiKey, {
        method: 'PUT',
        items: [{ key: 'fuzz/served-put.txt' }],
      }),
    ],
    DELETE: [
      await signServed(baseUrl, apiKey, {
        method: 'DELETE',
        items: [{ key: 'fuzz/served-delete.txt' }],
      }),
    ],
  }
}

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

/** No uploads: for the admin run, which sends nothing to the upload follow-ups. */
const NO_UPLOADS: MadeUploads = {
  multipart: [],
  abortable: [],
  put: [],
  served: { GET: [], PUT: [], DELETE: [] },
  grants: [],
}

/** Grants to remove made before the admin run. */
const GRANTS = 8

/**
 * Grants for the admin run's `DELETE /admin/v1/grants/{id}` (./hooks.py gives their ids to its
 * valid cases, in turn): a random id is only ever a 404, and a grant its stateful phase makes
 * first (`POST /admin/v1/grants`, linked to the delete) comes in some seeds only, so that one
 * seed in many warned that the delete "repeatedly returned 404".
 */
async function makeGrants(adminUrl: string, adminToken: string): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < GRANTS; i++) {
    const response = await fetch(`${adminUrl}/admin/v1/grants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: `role:fuzz-${i}`, origin: 'photos', actions: ['read'] }),
    })
    expect(response.status, await response.clone().text()).toBe(201)
    ids.push(((await response.json()) as { id: string }).id)
  }
  return ids
}

/**
 * Schemathesis over `document`'s operations at `url`, ./hooks.py drawing from `uploads`; its
 * output, once it has passed.
 */
async function fuzz(
  document: string,
  url: string,
  uploads: MadeUploads = NO_UPLOADS,
  filter: string[] = [],
  operations = '',
) {
  const { st, installed, apiKey, adminToken } = inject('schemathesis')
  await waitForInstall(installed)
  // Its caches and the examples it finds stay in a folder of this run's, not the checkout.
  const dir = mkdtempSync(join(tmpdir(), 'waybill-schemathesis-'))
  try {
    writeFileSync(join(dir, 'schemathesis.toml'), CONFIG + operations)
    const uploadsFile = join(dir, 'uploads.json')
    writeFileSync(uploadsFile, JSON.stringify(uploads))
    // prettier-ignore
    const { code, output } = await run(st, [
      '--config-file', join(dir, 'schemathesis.toml'), '--no-color',
      'run', document,
      '--url', url,
      '--checks', 'all',
      '--max-examples', String(MAX_EXAMPLES),
      '--seed', seed,
      // A redirect's answer is the 302 the document describes, not the bucket's answer to it.
      '--max-redirects', '0',
      // One thread: two can break Python 3.11's ast.parse under Hypothesis ("SystemError: AST
      // constructor recursion depth mismatch", python/cpython#106905), and gain nothing here.
      '--workers', '1',
      '--generation-database', 'none',
      ...filter,
    ], dir, {
      WAYBILL_FUZZ_API_KEY: apiKey,
      WAYBILL_FUZZ_ADMIN_TOKEN: adminToken,
      WAYBILL_FUZZ_HOOKS: HOOKS,
      WAYBILL_FUZZ_UPLOADS: uploadsFile,
    })
    console.log(`Schemathesis seed ${seed}\n${output}`)
    const replay = `seed ${seed} (replay: WAYBILL_SCHEMATHESIS_SEED=${seed} npm run test:openapi)`
    expect(code, `Schemathesis failed with ${replay}:\n${output}`).toBe(0)
    // Nor a warning: one says an operation's requests never got past a refusal ("only 401/403",
    // "repeatedly returned 404": ./hooks.py no longer gives the follow-ups real uploads), or that
    // the document and the validation disagree.
    expect(output, `Schemathesis warned with ${replay}:\n${output}`).not.toMatch(/=+ WARNINGS =+/)
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
  const { baseUrl, apiKey } = inject('schemathesis')
  const uploads = await makeUploads(baseUrl, apiKey)
  // Not a form posted to an R2 origin: its body must carry a policy waybill signed for its exact
  // fields and file, which no generator can make, and one put in by a hook would turn Schemathesis'
  // negative cases into valid forms. test/origins/r2/uploads.test.ts and test/browser/r2.test.ts
  // post real ones, and their refusals.
  const output = await fuzz(
    DOCUMENT,
    baseUrl,
    uploads,
    ['--exclude-operation-id', 'postServedForm'],
    CALLERS_CONFIG,
  )
  // What it ran: a run that generated nothing would pass too.
  expect(output).toContain(`Operations:       ${OPERATIONS - 1} selected / ${OPERATIONS} total`)
  expect(output).toMatch(/Test cases:\s+\d{4,} generated, \d+ passed/)
})

it('finds no failure of any check in the admin API, on its own Worker (with the admin token)', async () => {
  const { adminUrl, adminToken } = inject('schemathesis')
  // Not while the data plane still writes the callers' run's usage: a 503 of SQLITE_BUSY, which
  // Schemathesis rightly reports (seed 1489303792 in CI, once), is not the document's fault.
  await afterUsageWritten()
  const grants = await makeGrants(adminUrl, adminToken)
  const output = await fuzz(
    ADMIN_DOCUMENT,
    adminUrl,
    { ...NO_UPLOADS, grants },
    ['--exclude-operation-id', 'adminExplain'],
    ADMIN_CONFIG,
  )
  expect(output).toContain(
    `Operations:       ${ADMIN_OPERATIONS - 1} selected / ${ADMIN_OPERATIONS} total`,
  )
  expect(output).toMatch(/Test cases:\s+\d{3,} generated, \d+ passed/)
  // Explain on its own, after: the data plane reads D1 for it, after its answer too (the change
  // epoch's refresh), which the admin write generated next would meet on the local SQLite file.
  // No stateful phase: no link leads from explain to another operation.
  const explained = await fuzz(
    ADMIN_DOCUMENT,
    adminUrl,
    NO_UPLOADS,
    ['--include-operation-id', 'adminExplain', '--phases', 'examples,coverage,fuzzing'],
    ADMIN_CONFIG,
  )
  expect(explained).toContain(`Operations:       1 selected / ${ADMIN_OPERATIONS} total`)
  expect(explained).toMatch(/Test cases:\s+\d{2,} generated, \d+ passed/)
})
