// Upload quotas, model-based (issue #28): for any sequence of mints, uses of what was minted
// (replays included, within the artifacts' lifetimes), completion checks, multipart completes and
// aborts, the objects and bytes a caller has stored never exceed its quota. Everything is real:
// the app with the control plane (D1, the QuotaCounter Durable Object) and versitygw, which
// enforces every URL and policy. After each command the caller's folder is listed in the bucket.
//
// On e8fbc01 this failed two ways: a POST policy checked at a small size gave room back while the
// store still took its largest size again, and a `keyPrefix` policy stored any number of objects.
// Seed and replay: test/helpers/fuzz-arbitraries.ts (VITE_FUZZ_SEED).

import fc from 'fast-check'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { createAdminApp } from '../../src/admin/app'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { elements, text } from '../../src/origins/s3/xml'
import { admin, fresh, send, withControl } from '../helpers/control-plane'
import { form, postForm } from '../helpers/forms'
import { FUZZ_SEED, FUZZ_TIMEOUT_MS, fuzzParameters } from '../helpers/fuzz-arbitraries'
import { store, workerEnv } from '../helpers/worker-env'

const s3 = inject('s3')
const app = createApp()
const adminApp = createAdminApp()
const RUNS = 60
const ROOT = fresh('quota-model')
/** The grant's largest upload, and the most slots (keys) a run writes to. */
const MAX_UPLOAD = 100
const SLOTS = 3
let env: Env
let runs = 0

beforeAll(async () => {
  env = await withControl(workerEnv)
})

/** A PUT URL or POST policy, with the ETag the store answered its last use with. */
type Artifact =
  | {
      kind: 'put'
      key: string
      url: string
      headers: Record<string, string>
      receipt: string
      etag?: string
    }
  | {
      kind: 'post'
      key: string
      url: string
      fields: Record<string, string>
      receipt: string
      etag?: string
    }
  | { kind: 'multipart'; key: string; uploadId: string; part: string; size: number }

/** What the test remembers: the artifacts it was given, to use again. */
interface Model {
  artifacts: Artifact[]
  /**
   * What the quota should count: every artifact minted, each at the most it admits, less the
   * multipart uploads aborted. (No artifact expires within a run, so none settles lower.)
   */
  used: { objects: number; bytes: number }
}

/** The caller of one run: its key, its folder, its quota. */
interface Real {
  key: string
  folder: string
  quota: { maxObjects: number; maxBytes: number }
  /** A counter, for fresh keys under a prefix. */
  n: number
}

const call = (real: Real, path: string, body: Record<string, unknown>) =>
  send(app, env, 'POST', path, { bearer: real.key, body: { origin: 'e2e', ...body } })

/** What the caller's folder holds in the bucket: objects and bytes. */
async function storedIn(folder: string): Promise<{ objects: number; bytes: number }> {
  const query = new URLSearchParams({ 'list-type': '2', prefix: folder })
  const response = await store.fetch(`${s3.endpoint}/${s3.bucket}?${query.toString()}`)
  const xml = await response.text()
  expect(response.status, xml).toBe(200)
  const sizes = elements(xml, 'Contents').map((entry) => Number(text(entry, 'Size')))
  return { objects: sizes.length, bytes: sizes.reduce((sum, size) => sum + size, 0) }
}

/**
 * A mint is signed exactly when one more object, at the most it admits (`claim` bytes), fits the
 * quota on top of what the model counts, and refused (429) otherwise. Signed, it is remembered.
 */
async function minted(
  model: Model,
  real: Real,
  claim: number,
  response: Response,
  artifact: (body: never) => Artifact,
) {
  const body = await response.text()
  const { used } = model
  const fits =
    used.objects + 1 <= real.quota.maxObjects && used.bytes + claim <= real.quota.maxBytes
  expect(response.status, body.slice(0, 300)).toBe(fits ? 200 : 429)
  if (!fits) return
  used.objects++
  used.bytes += claim
  model.artifacts.push(artifact(JSON.parse(body) as never))
}

const bytes = (size: number) => new Blob([new Uint8Array(size).fill(7)])

/** The artifact `pick` names, counting from the newest: most steps act on what was just minted. */
const picked = (model: Model, pick: number) =>
  model.artifacts[model.artifacts.length - 1 - (pick % model.artifacts.length)]!

/**
 * A step of a run: what it does, then the property, checked after every step: the caller's folder
 * holds no more objects and bytes than its quota allows.
 */
abstract class Step implements fc.AsyncCommand<Model, Real> {
  abstract act(model: Model, real: Real): Promise<void>
  abstract toString(): string
  check(model: Readonly<Model>): boolean {
    return model.artifacts.length >= 0
  }
  async run(model: Model, real: Real): Promise<void> {
    await this.act(model, real)
    const stored = await storedIn(real.folder)
    expect(stored.objects, `objects after ${this.toString()}`).toBeLessThanOrEqual(
      real.quota.maxObjects,
    )
    expect(stored.bytes, `bytes after ${this.toString()}`).toBeLessThanOrEqual(real.quota.maxBytes)
  }
}

/** A step that uses something minted before. */
abstract class OnArtifact extends Step {
  override check(model: Readonly<Model>): boolean {
    return model.artifacts.length > 0
  }
}

class MintPut extends Step {
  constructor(
    readonly slot: number,
    readonly size: number,
    readonly overwrite: boolean,
  ) {
    super()
  }
  override async act(model: Model, real: Real) {
    const key = `${real.folder}s${this.slot}`
    const response = await call(real, '/v1/uploads', {
      key,
      contentType: 'application/octet-stream',
      contentLength: this.size,
      ...(this.overwrite ? { overwrite: true } : {}),
    })
    await minted(
      model,
      real,
      this.size,
      response,
      (put: Omit<Extract<Artifact, { kind: 'put' }>, 'kind'>) => ({
        ...put,
        kind: 'put',
      }),
    )
  }
  override toString = () =>
    `MintPut(s${this.slot}, ${this.size}${this.overwrite ? ', overwrite' : ''})`
}

class MintPost extends Step {
  constructor(
    readonly slot: number,
    readonly size: number | undefined,
  ) {
    super()
  }
  override async act(model: Model, real: Real) {
    const response = await call(real, '/v1/uploads', {
      mode: 'post',
      overwrite: true,
      key: `${real.folder}s${this.slot}`,
      contentType: 'application/octet-stream',
      ...(this.size === undefined ? {} : { contentLength: this.size }),
    })
    await minted(
      model,
      real,
      this.size ?? MAX_UPLOAD,
      response,
      (post: Omit<Extract<Artifact, { kind: 'post' }>, 'kind'>) => ({
        ...post,
        kind: 'post',
      }),
    )
  }
  override toString = () => `MintPost(s${this.slot}, ${this.size ?? 'up to the grant'})`
}

/** A form that chooses its own key under a prefix: no quota can bound it, so it is refused. */
class MintPostPrefix extends Step {
  override async act(model: Model, real: Real) {
    const response = await call(real, '/v1/uploads', {
      mode: 'post',
      overwrite: true,
      keyPrefix: `${real.folder}p/`,
      contentType: 'application/octet-stream',
    })
    // Where it is signed all the same, the property below is what catches it.
    const body = await response.text()
    if (response.status === 200) {
      const post = JSON.parse(body) as { url: string; fields: Record<string, string> }
      model.artifacts.push({ kind: 'post', key: `${real.folder}p/`, receipt: '', ...post })
      return
    }
    expect(response.status, body).toBe(400)
    expect(body).toContain('keyPrefix')
  }
  override toString = () => 'MintPostPrefix'
}

class MintMultipart extends Step {
  constructor(
    readonly slot: number,
    readonly size: number,
  ) {
    super()
  }
  override async act(model: Model, real: Real) {
    const response = await call(real, '/v1/uploads', {
      mode: 'multipart',
      key: `${real.folder}s${this.slot}`,
      contentType: 'application/octet-stream',
      contentLength: this.size,
      overwrite: true,
    })
    await minted(
      model,
      real,
      this.size,
      response,
      (upload: { key: string; uploadId: string; parts: { url: string }[] }) => ({
        kind: 'multipart',
        key: upload.key,
        uploadId: upload.uploadId,
        part: upload.parts[0]!.url,
        size: this.size,
      }),
    )
  }
  override toString = () => `MintMultipart(s${this.slot}, ${this.size})`
}

/** Sends an artifact to the store, at `size` where it admits a choice: a first use, or a replay. */
class Use extends OnArtifact {
  constructor(
    readonly pick: number,
    readonly size: number,
  ) {
    super()
  }
  override async act(model: Model, real: Real) {
    const artifact = picked(model, this.pick)
    if (artifact.kind === 'put') {
      const headers = { ...artifact.headers }
      const size = Number(headers['content-length'])
      delete headers['content-length']
      const sent = await fetch(artifact.url, { method: 'PUT', headers, body: bytes(size) })
      if (sent.ok) artifact.etag = sent.headers.get('etag') ?? undefined
    } else if (artifact.kind === 'post') {
      // A prefix form chooses a new key each time; an exact one replaces its own.
      const key: Record<string, string> = artifact.key.endsWith('/')
        ? { key: `${artifact.key}o${real.n++}` }
        : {}
      const sent = await postForm(artifact.url, form(artifact.fields, bytes(this.size), key))
      if (sent.ok) artifact.etag = sent.headers.get('etag') ?? undefined
    } else {
      await fetch(artifact.part, { method: 'PUT', body: bytes(artifact.size) })
      await call(real, '/v1/uploads/multipart/complete', {
        key: artifact.key,
        uploadId: artifact.uploadId,
      })
    }
  }
  override toString = () => `Use(newest-${this.pick}, ${this.size} bytes where it may choose)`
}

/** The completion check of a PUT or POST upload (which settles its reservation), or an abort. */
class Finish extends OnArtifact {
  constructor(readonly pick: number) {
    super()
  }
  override async act(model: Model, real: Real) {
    const artifact = picked(model, this.pick)
    if (artifact.kind === 'multipart') {
      const aborted = await call(real, '/v1/uploads/multipart/abort', {
        key: artifact.key,
        uploadId: artifact.uploadId,
      })
      // Aborted (not completed before): nothing can store through it, so its room comes back.
      if (aborted.status === 204) {
        model.used.objects--
        model.used.bytes -= artifact.size
      }
    } else if (!artifact.key.endsWith('/')) {
      await call(real, '/v1/uploads/complete', {
        key: artifact.key,
        receipt: artifact.receipt,
        ...(artifact.etag === undefined ? {} : { etag: artifact.etag }),
      })
    }
  }
  override toString = () => `Finish(newest-${this.pick})`
}

const slot = fc.nat(SLOTS - 1)
/** Mostly the newest artifact, sometimes one of the two before it. */
const pick = fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.nat(2), weight: 1 })
// Sizes where quotas are decided: nothing, a little, most, all the grant allows, or any.
const size = fc.oneof(
  fc.constantFrom(0, 1, MAX_UPLOAD / 2, MAX_UPLOAD - 1, MAX_UPLOAD),
  fc.nat(MAX_UPLOAD),
)
const commands: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[] = [
  fc.tuple(slot, size, fc.boolean()).map(([s, n, o]) => new MintPut(s, n, o)),
  // Half without a length: a form that admits any size up to the grant's.
  fc.tuple(slot, fc.option(size, { nil: undefined, freq: 1 })).map(([s, n]) => new MintPost(s, n)),
  fc.constant(new MintPostPrefix()),
  fc.tuple(slot, size).map(([s, n]) => new MintMultipart(s, n)),
  fc.tuple(pick, size).map(([p, n]) => new Use(p, n)),
  fc.tuple(pick, size).map(([p, n]) => new Use(p, n)),
  pick.map((p) => new Finish(p)),
]

describe('upload quotas, against a model of what the store accepts', () => {
  it(
    'never let a caller store more objects or bytes than its quota, whatever it does with what it was given',
    async () => {
      // Printed for replay (vitest shows it when the test fails): VITE_FUZZ_SEED=<seed>.
      console.log(`quota model: seed ${FUZZ_SEED}`)
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            maxObjects: fc.integer({ min: 1, max: 3 }),
            maxBytes: fc.constantFrom(100, 150, 250),
          }),
          fc.commands(commands, { maxCommands: 20 }),
          async (quota, steps) => {
            const created = await admin(adminApp, env, 'POST', '/keys', {
              grants: [
                {
                  origin: 'e2e',
                  actions: ['write'],
                  maxContentLength: MAX_UPLOAD,
                  overwrite: true,
                },
              ],
            })
            expect(created.status).toBe(201)
            const { id, key } = await created.json<{ id: string; key: string }>()
            const set = await admin(adminApp, env, 'POST', '/quotas', {
              to: `apiKey:${id}`,
              origin: 'e2e',
              // One window for the whole run: a year.
              windowS: 366 * 86_400,
              ...quota,
            })
            expect(set.status, await set.clone().text()).toBe(201)
            const real: Real = { key, folder: `${ROOT}/${runs++}/`, quota, n: 0 }
            await fc.asyncModelRun(
              () => ({ model: { artifacts: [], used: { objects: 0, bytes: 0 } }, real }),
              steps,
            )
          },
        ),
        fuzzParameters(RUNS),
      )
    },
    FUZZ_TIMEOUT_MS,
  )
})
