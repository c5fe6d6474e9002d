// The control plane end to end, through the Worker's own entry (its own app, its own caches: one
// isolate) while the admin works through the admin Worker's app (another isolate) on the same D1: a key, a
// link and a grant made through the admin API, used, revoked, and refused by the Worker within the
// stated bound (CONTROL_MAX_AGE_MS), measured on the real clock. Signed URLs go to versitygw.

import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { exports } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { createAdminApp } from '../../src/admin/app'
import type { Env } from '../../src/env'
import type { AuditEvent } from '../../src/control/audit'
import { CONTROL_MAX_AGE_MS, USAGE_FLUSH_MS } from '../../src/limits'
import { admin, appWithClock, fresh, send, withControl } from '../helpers/control-plane'
import { ndjsonLines } from '../helpers/requests'
import { objectUrl, store, workerEnv } from '../helpers/worker-env'

/** The admin Worker's app (another isolate, another Worker). */
const adminApp = createAdminApp()
let adminEnv: Env
const ROOT = fresh('cp')
/** What the bound allows for a poll loop: the bound, a poll interval, a D1 round trip. */
const POLL_MS = 100
const SLACK_MS = 1_000

beforeAll(async () => {
  adminEnv = await withControl(workerEnv)
  const seeded = await store.fetch(objectUrl(`${ROOT}/hello.txt`), {
    method: 'PUT',
    body: 'hello',
  })
  expect(seeded.status).toBe(200)
})

/** A request to the Worker itself (its exported fetch). */
function worker(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`http://waybill.test${path}`, init))
}

function sign(key: string, keys = [`${ROOT}/hello.txt`]): Promise<Response> {
  return worker('/v1/sign', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ origin: 'e2e', keys }),
  })
}

/** Polls until `answer` gives `status`; the milliseconds it took. Fails past the bound. */
async function within(status: number, answer: () => Promise<Response>): Promise<number> {
  const start = Date.now()
  for (;;) {
    const response = await answer()
    await response.body?.cancel()
    if (response.status === status) return Date.now() - start
    if (Date.now() - start > CONTROL_MAX_AGE_MS + SLACK_MS) {
      throw new Error(`still ${response.status}, not ${status}, after ${Date.now() - start} ms`)
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

async function newKey(grants: object[]): Promise<{ id: string; key: string }> {
  const response = await admin(adminApp, adminEnv, 'POST', '/keys', { label: 'e2e', grants })
  expect(response.status, await response.clone().text()).toBe(201)
  return response.json()
}

// The Worker's e2e origin signs any key (keys "any"), so its grants cover the whole bucket.
const READ = { origin: 'e2e', actions: ['read'] }

describe('a key made through the admin API', () => {
  it('signs URLs the store accepts; revoked, the Worker refuses it within the bound', async () => {
    const { id, key } = await newKey([READ])
    const signed = await sign(key)
    expect(signed.status, await signed.clone().text()).toBe(200)
    const { urls } = await signed.json<{ urls: { url: string }[] }>()
    expect(await (await fetch(urls[0]!.url)).text()).toBe('hello')

    const revoked = await admin(adminApp, adminEnv, 'POST', '/revocations', {
      kind: 'key',
      key: id,
    })
    expect(revoked.status).toBe(201)
    const took = await within(401, () => sign(key))
    console.info(JSON.stringify({ revoked: 'key', refusedAfterMs: took }))
    expect(took).toBeLessThanOrEqual(CONTROL_MAX_AGE_MS + SLACK_MS)
    // And stays refused.
    expect((await sign(key)).status).toBe(401)
  })
})

describe('a link revoked by its id', () => {
  it('redirects to the object, then is gone within the bound; another link stays', async () => {
    const { key } = await newKey([READ])
    const issued = await worker('/v1/links', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ origin: 'e2e', keys: [`${ROOT}/hello.txt`, `${ROOT}/hello.txt`] }),
    })
    expect(issued.status).toBe(200)
    const { links } = await issued.json<{ links: { url: string; id: string }[] }>()
    const [doomed, kept] = links.map((link) => new URL(link.url).pathname)
    const follow = (path: string) => worker(path, { redirect: 'manual' })
    const first = await follow(doomed!)
    expect(first.status).toBe(302)
    expect(await (await fetch(first.headers.get('location')!)).text()).toBe('hello')

    const revoked = await admin(adminApp, adminEnv, 'POST', '/revocations', {
      kind: 'link',
      link: links[0]!.id,
    })
    expect(revoked.status).toBe(201)
    // Revoked again: a 409 naming it, and no second record.
    const again = await admin(adminApp, adminEnv, 'POST', '/revocations', {
      kind: 'link',
      link: links[0]!.id,
    })
    expect(again.status).toBe(409)
    expect((await again.json<{ errors: unknown[] }>()).errors).toEqual([
      {
        path: 'link',
        message: expect.stringMatching(/^is revoked already, since \d{4}-/) as string,
      },
    ])
    const listed = await admin(adminApp, adminEnv, 'GET', '/revocations?limit=1000')
    const { revocations } = await listed.json<{ revocations: { link?: string }[] }>()
    expect(revocations.filter((r) => r.link === links[0]!.id)).toHaveLength(1)
    const took = await within(410, () => follow(doomed!))
    console.info(JSON.stringify({ revoked: 'link', refusedAfterMs: took }))
    expect((await follow(kept!)).status).toBe(302)
  })
})

describe('a grant added and removed', () => {
  it('lets a key sign within the bound, and stops it within the bound', async () => {
    const { id, key } = await newKey([])
    expect((await sign(key)).status).toBe(403)
    const added = await admin(adminApp, adminEnv, 'POST', '/grants', {
      to: `apiKey:${id}`,
      ...READ,
    })
    expect(added.status).toBe(201)
    const granted = await within(200, () => sign(key))
    const { id: grant } = await added.json<{ id: string }>()
    expect((await admin(adminApp, adminEnv, 'DELETE', `/grants/${grant}`)).status).toBe(204)
    const took = await within(403, () => sign(key))
    console.info(JSON.stringify({ granted: granted, revoked: 'grant', refusedAfterMs: took }))
  })
})

describe('usage and audit events', () => {
  it('count every URL an answer carries: each listed object with one, each part URL', async () => {
    const folder = `${ROOT}/${fresh('usage')}`
    for (const name of ['a.txt', 'b.txt']) {
      const put = await store.fetch(objectUrl(`${folder}/${name}`), { method: 'PUT', body: name })
      expect(put.status).toBe(200)
    }
    const { id, key } = await newKey([{ origin: 'e2e', actions: ['read', 'list', 'write'] }])
    const events: AuditEvent[] = []
    const env: Env = {
      ...adminEnv,
      WAYBILL_AUDIT_QUEUE: {
        send: (event: AuditEvent) => (events.push(event), Promise.resolve()),
      },
    }
    // Its own isolate, on the real time (the store checks the signatures of the multipart calls).
    const { app, adminApp: admins, clock } = appWithClock(new Date())
    const ctx = createExecutionContext()
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
      app.request(
        path,
        {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body !== undefined && { 'content-type': 'application/json' }),
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        },
        env,
        ctx,
      )
    const listing = `/v1/list/e2e?prefix=${encodeURIComponent(`${folder}/`)}`
    const listed = await call('GET', listing)
    expect(listed.status).toBe(200)
    const { items } = await listed.json<{ items: { url?: string }[] }>()
    expect(items.map((item) => typeof item.url)).toEqual(['string', 'string'])
    // The same page again, not modified: no URL in the answer, none counted.
    const unchanged = await call('GET', listing, undefined, {
      'if-none-match': listed.headers.get('etag')!,
    })
    expect(unchanged.status).toBe(304)
    const streamed = await call('GET', listing, undefined, { accept: 'application/x-ndjson' })
    expect(streamed.status).toBe(200)
    const lines = await ndjsonLines<{ url?: string }>(streamed)
    expect(lines.filter((line) => typeof line.url === 'string')).toHaveLength(2)
    const created = await call('POST', '/v1/uploads', {
      origin: 'e2e',
      mode: 'multipart',
      key: `${folder}/big.bin`,
      contentType: 'application/octet-stream',
      contentLength: 6 * 1024 * 1024,
    })
    expect(created.status).toBe(200)
    const upload = await created.json<{ uploadId: string; parts: unknown[] }>()
    expect(upload.parts).toHaveLength(2)
    // A request nobody is known for writes what was gathered, once USAGE_FLUSH_MS have passed.
    clock.advance(USAGE_FLUSH_MS)
    expect((await send(app, env, 'POST', '/v1/sign', { bearer: 'wb_nobody', ctx })).status).toBe(
      401,
    )
    await waitOnExecutionContext(ctx)

    expect(events.filter((event) => event.keyId === id).map((event) => event.count)).toEqual([
      2, 0, 2, 2,
    ])
    const usage = await admin(admins, env, 'GET', `/usage?principal=apiKey:${id}`)
    const { days } = await usage.json<{ days: { origin: string; minted: number }[] }>()
    expect(days).toEqual([expect.objectContaining({ origin: 'e2e', minted: 6 })])
    const aborted = await call('POST', '/v1/uploads/multipart/abort', {
      origin: 'e2e',
      key: `${folder}/big.bin`,
      uploadId: upload.uploadId,
    })
    expect(aborted.status).toBe(204)
  })
})
