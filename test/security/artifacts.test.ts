// Every artifact answers to its issuer (issue #28): what acts after it is minted — a link that
// signs on each visit, a POST policy the store accepts until it expires, a receipt, an upload
// handle — is judged again when it acts, and a quota counts the most it can ever store. Each test
// reproduces a fault found from outside on e8fbc01, and failed there. (Fault 5, the completion
// check's clock window, is test/security/upload-integrity.test.ts, "4: …".)

import { beforeAll, describe, expect, it } from 'vitest'
import { createAdminApp } from '../../src/admin/app'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { admin, appWithClock, send, withControl } from '../helpers/control-plane'
import { form, postForm } from '../helpers/forms'
import { objectUrl, store } from '../helpers/worker-env'
import { app, call, problem, ROOT, securityEnv } from '../helpers/security-world'

let env: Env
/** The admin Worker's app. Its writes reach the data plane's warm caches within the control
 * plane's bound; a fresh isolate (`createApp()`) sees them at once. */
const adminApp = createAdminApp()
const MINE = `${ROOT}/alice/artifacts/`

beforeAll(async () => {
  env = await withControl(await securityEnv())
})

/** A key made through the admin API, with `grants`, and a quota on `origin` when given. */
async function storedKey(
  grants: readonly Record<string, unknown>[],
  quota?: { origin: string; maxObjects?: number; maxBytes?: number },
) {
  const created = await admin(adminApp, env, 'POST', '/keys', { grants })
  expect(created.status, await created.clone().text()).toBe(201)
  const made = await created.json<{ id: string; key: string }>()
  if (quota !== undefined) {
    const set = await admin(adminApp, env, 'POST', '/quotas', {
      to: `apiKey:${made.id}`,
      windowS: 86_400,
      ...quota,
    })
    expect(set.status, await set.clone().text()).toBe(201)
  }
  return made
}

const as = (key: string, method: string, path: string, body?: unknown, worker = app) =>
  send(worker, env, method, path, { bearer: key, body })

/** Bytes stored under a folder of the bucket, by listing it. */
async function storedUnder(folder: string): Promise<{ objects: number; bytes: number }> {
  const listing = await store.fetch(
    `${objectUrl('').replace(/\/$/, '')}?list-type=2&prefix=${encodeURIComponent(folder)}`,
  )
  const sizes = [...(await listing.text()).matchAll(/<Size>(\d+)<\/Size>/g)].map((m) =>
    Number(m[1]),
  )
  return { objects: sizes.length, bytes: sizes.reduce((sum, n) => sum + n, 0) }
}

const storedText = async (key: string) => {
  const response = await store.fetch(objectUrl(key))
  return response.status === 200 ? response.text() : response.status
}

describe('fault 4: a POST form replaces only when the grant and the request both say so', () => {
  it('refuses a form that would replace without being asked, even where the grant allows it', async () => {
    const key = `${MINE}replaced.txt`
    await store.fetch(objectUrl(key), { method: 'PUT', body: 'original' })
    // Alice's grant on her folder allows overwrite; her request does not ask for it.
    const unasked = await problem(
      await call(env, 'POST', '/v1/uploads', {
        origin: 's3',
        mode: 'post',
        key,
        contentType: 'text/plain',
      }),
    )
    // Before: 200, and the form replaced the object.
    expect(unasked.status).toBe(400)
    expect(unasked.errors?.map((e) => e.path)).toEqual(['overwrite'])
    expect(await storedText(key)).toBe('original')

    // Asked for, it replaces: the form cannot refuse to.
    const asked = await call(env, 'POST', '/v1/uploads', {
      origin: 's3',
      mode: 'post',
      overwrite: true,
      key,
      contentType: 'text/plain',
    })
    expect(asked.status, await asked.clone().text()).toBe(200)
    const { url, fields } = await asked.json<{ url: string; fields: Record<string, string> }>()
    expect((await postForm(url, form(fields, new Blob(['replaced'])))).status).toBe(204)
    expect(await storedText(key)).toBe('replaced')
  })
})

describe('fault 3: a quota counts the most an artifact can store, until it expires', () => {
  // The whole bucket on the origin whose keys are "any": the only one where a form may choose
  // its key under a prefix.
  const grant = { origin: 'loose', actions: ['write'], maxContentLength: 1000, overwrite: true }

  it('a POST policy checked at a small size still holds its largest until it expires', async () => {
    const folder = `${ROOT}/quota-bytes/`
    const { key } = await storedKey([grant], { origin: 'loose', maxBytes: 1000 })
    const issued = await as(key, 'POST', '/v1/uploads', {
      origin: 'loose',
      mode: 'post',
      overwrite: true,
      key: `${folder}form.bin`,
      contentType: 'application/octet-stream',
    })
    expect(issued.status, await issued.clone().text()).toBe(200)
    const policy = await issued.json<{
      url: string
      fields: Record<string, string>
      receipt: string
    }>()
    const sent = await postForm(policy.url, form(policy.fields, new Blob(['0123456789'])))
    expect(sent.status).toBe(204)
    const checked = await as(key, 'POST', '/v1/uploads/complete', {
      origin: 'loose',
      key: `${folder}form.bin`,
      receipt: policy.receipt,
      etag: sent.headers.get('etag'),
    })
    expect(checked.status, await checked.clone().text()).toBe(200)
    // Before: settled at 10 bytes, so 990 more could be signed.
    const more = await as(key, 'POST', '/v1/uploads', {
      origin: 'loose',
      key: `${folder}more.bin`,
      contentType: 'application/octet-stream',
      contentLength: 990,
    })
    expect(more.status).toBe(429)
    // The policy still stores its largest: 1000 bytes in all, the quota.
    const replay = await postForm(policy.url, form(policy.fields, new Blob([new Uint8Array(1000)])))
    expect(replay.status).toBe(204)
    expect(await storedUnder(folder)).toEqual({ objects: 1, bytes: 1000 })
  })

  it('a form that chooses its key under a prefix is refused where a quota counts', async () => {
    const folder = `${ROOT}/quota-prefix/`
    const { key } = await storedKey([grant], { origin: 'loose', maxObjects: 1 })
    const issued = await problem(
      await as(key, 'POST', '/v1/uploads', {
        origin: 'loose',
        mode: 'post',
        overwrite: true,
        keyPrefix: folder,
        contentType: 'application/octet-stream',
      }),
    )
    // Before: 200, and one policy stored five objects under a one-object quota.
    expect(issued.status).toBe(400)
    expect(issued.errors?.map((e) => e.path)).toEqual(['keyPrefix'])
    expect(await storedUnder(folder)).toEqual({ objects: 0, bytes: 0 })
  })
})

describe('what a caller started stays its own to end', () => {
  it('aborts its own multipart upload after its grant is removed, and nothing else', async () => {
    const key = `${ROOT}/abort/mine.bin`
    const made = await storedKey([{ origin: 's3', prefix: `${ROOT}/abort/`, actions: ['write'] }])
    const started = await as(made.key, 'POST', '/v1/uploads', {
      origin: 's3',
      mode: 'multipart',
      key,
      contentType: 'application/octet-stream',
      contentLength: 10,
    })
    expect(started.status, await started.clone().text()).toBe(200)
    const { uploadId } = await started.json<{ uploadId: string }>()
    const listed = await admin(adminApp, env, 'GET', `/grants?to=apiKey:${made.id}`)
    const ids = (await listed.json<{ grants: { id: string }[] }>()).grants.map((g) => g.id)
    expect(ids).toHaveLength(1)
    for (const id of ids)
      expect((await admin(adminApp, env, 'DELETE', `/grants/${id}`)).status).toBe(204)
    // No grant now (in an isolate that reads the change: a fresh one, where a warm one would
    // within the control plane's bound): nothing new is signed for it, not even more parts.
    const later = createApp()
    const ref = { origin: 's3', key, uploadId }
    const more = await as(
      made.key,
      'POST',
      '/v1/uploads/multipart/parts',
      { ...ref, partNumbers: [1] },
      later,
    )
    expect(more.status).toBe(403)
    // Before: 403 too, so the upload could only be left open.
    const aborted = await as(made.key, 'POST', '/v1/uploads/multipart/abort', ref, later)
    expect(aborted.status, await aborted.clone().text()).toBe(204)
    // Another caller's handle, or this one for another key, opens nothing: the same 403s as before.
    const other = await problem(await call(env, 'POST', '/v1/uploads/multipart/abort', ref, 'bob'))
    expect(other.status).toBe(403)
    const moved = await problem(
      await as(made.key, 'POST', '/v1/uploads/multipart/abort', { ...ref, key: `${key}.x` }, later),
    )
    expect(moved.status).toBe(403)
    expect(moved.errors?.map((e) => e.path)).toEqual(['origin'])
  })
})

describe('faults 1 and 2: a link answers to the key that issued it, on every visit', () => {
  const link = async (key: string, body: Record<string, unknown> = {}) => {
    const response = await as(key, 'POST', '/v1/links', {
      origin: 's3',
      keys: [`${ROOT}/links/a.png`],
      ...body,
    })
    return response
  }
  const follow = (url: string, worker = app, on = env) =>
    worker.request(new URL(url).pathname, {}, on)
  const readGrant = { origin: 's3', prefix: `${ROOT}/links/`, actions: ['read'] }

  it("stops a revoked key's links at once", async () => {
    const made = await storedKey([readGrant])
    const issued = await link(made.key, { expiresIn: 7 * 86_400 })
    expect(issued.status, await issued.clone().text()).toBe(200)
    const { links } = await issued.json<{ links: { url: string }[] }>()
    expect((await follow(links[0]!.url)).status).toBe(302)
    const revoked = await admin(adminApp, env, 'POST', '/revocations', {
      kind: 'key',
      key: made.id,
    })
    expect(revoked.status).toBe(201)
    // Before: 302 with a fresh URL, for the link's whole life (a week here). Now 410 as soon as
    // an isolate reads the change: a fresh one at once (a warm one within the control plane's
    // bound, test/e2e/control-plane.test.ts).
    const gone = await problem(await follow(links[0]!.url, createApp()))
    expect(gone.status).toBe(410)
    expect(gone.detail).toBe('The API key that issued this link was revoked.')
  })

  it('never lets a link outlive its key, asked for or by default', async () => {
    const keyExpiresAt = Date.now() + 3_600_000
    const created = await admin(adminApp, env, 'POST', '/keys', {
      grants: [readGrant],
      expiresAt: new Date(keyExpiresAt).toISOString(),
    })
    const { key } = await created.json<{ key: string }>()
    // Before: a link for a day (the default), or a month when asked, from a key with an hour left.
    const asked = await problem(await link(key, { expiresIn: 30 * 86_400 }))
    expect(asked.status).toBe(400)
    expect(asked.errors?.map((e) => e.path)).toEqual(['expiresIn'])
    const byDefault = await link(key)
    expect(byDefault.status).toBe(200)
    const { expiresAt, links } = await byDefault.json<{
      expiresAt: string
      links: { url: string }[]
    }>()
    expect(Date.parse(expiresAt)).toBeLessThanOrEqual(keyExpiresAt)
    const { app: later, clock } = appWithClock(new Date(keyExpiresAt - 1000))
    expect((await follow(links[0]!.url, later)).status).toBe(302)
    clock.advance(2000)
    expect((await follow(links[0]!.url, later)).status).toBe(410)
  })

  it("stops a configured key's links once the key is no longer configured", async () => {
    const issued = await call(env, 'POST', '/v1/links', {
      origin: 's3',
      keys: [`${ROOT}/alice/a.png`],
    })
    const { links } = await issued.json<{ links: { url: string }[] }>()
    expect((await follow(links[0]!.url)).status).toBe(302)
    // The same deployment without alice's key: her links go with it.
    const without = await withControl(
      await securityEnv({
        WAYBILL_API_KEYS: JSON.stringify(
          (JSON.parse(env.WAYBILL_API_KEYS as string) as { id: string }[]).filter(
            (key) => key.id !== 'alice',
          ),
        ),
      }),
    )
    const gone = await problem(await follow(links[0]!.url, app, without))
    expect(gone.status).toBe(410)
    expect(gone.detail).toBe('The API key that issued this link is no longer configured.')
  })
})
