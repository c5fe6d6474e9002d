// Upload quotas against versitygw: uploads are reserved at the most they admit when they are
// signed, until the quota is full (429 naming it, with Retry-After); a smaller upload gives room
// back once its URL or policy can store no more; an aborted multipart upload gives its room back;
// and requests sent at once never overshoot (one Durable Object per caller decides, one request
// after the other). test/e2e/quota-model.test.ts states the property over any sequence.

import { beforeAll, describe, expect, it } from 'vitest'
import { createAdminApp } from '../../src/admin/app'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import type { QuotaCounter } from '../../src/control/quota-counter'
import { DEFAULT_EXPIRES_S, QUOTA_HOLD_MARGIN_S } from '../../src/limits'
import { admin, fresh, send, withControl } from '../helpers/control-plane'
import { form, postForm } from '../helpers/forms'
import { workerEnv } from '../helpers/worker-env'

const app = createApp()
const adminApp = createAdminApp()
/** Past every form this file issues (900 s by default) and the quota's hold margin after it. */
const afterHold = createApp({
  clock: () => new Date(Date.now() + (DEFAULT_EXPIRES_S + QUOTA_HOLD_MARGIN_S + 5) * 1000),
})
const ROOT = fresh('quota')
const MAX_BYTES = 1000
/** A year's window: one ending between two requests of a test would reset what it counts. */
const WINDOW_S = 366 * 86_400
let env: Env

beforeAll(async () => {
  env = await withControl(workerEnv)
})

/** A key, with one grant to write up to 1000 bytes anywhere on the e2e origin, and a quota. */
async function keyWithQuota(quota: { maxObjects?: number; maxBytes?: number }) {
  const created = await admin(adminApp, env, 'POST', '/keys', {
    grants: [
      {
        origin: 'e2e',
        actions: ['write'],
        maxContentLength: MAX_BYTES,
        // POST forms cannot refuse to replace an object.
        overwrite: true,
      },
    ],
  })
  expect(created.status).toBe(201)
  const { id, key } = await created.json<{ id: string; key: string }>()
  const set = await admin(adminApp, env, 'POST', '/quotas', {
    to: `apiKey:${id}`,
    origin: 'e2e',
    windowS: WINDOW_S,
    ...quota,
  })
  expect(set.status, await set.clone().text()).toBe(201)
  return { id, key, quota: (await set.json<{ id: string }>()).id }
}

interface PostUpload {
  key: string
  url: string
  fields: Record<string, string>
  receipt: string
}

const upload = (key: string, body: object) =>
  send(app, env, 'POST', '/v1/uploads', { bearer: key, body: { origin: 'e2e', ...body } })

describe('a byte quota', () => {
  it('fills at the most each upload admits, 429 naming it; a smaller upload gives room back once its policy expired', async () => {
    const { key, quota } = await keyWithQuota({ maxBytes: 3 * MAX_BYTES })
    // A POST form without a length reserves the most its policy admits: the grant's 1000 bytes.
    const post = () =>
      upload(key, {
        mode: 'post',
        overwrite: true,
        key: `${ROOT}/${crypto.randomUUID()}.txt`,
        contentType: 'text/plain',
      })
    const forms: PostUpload[] = []
    for (let i = 0; i < 3; i++) {
      const response = await post()
      expect(response.status, await response.clone().text()).toBe(200)
      forms.push(await response.json<PostUpload>())
    }
    const full = await post()
    expect(full.status).toBe(429)
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Number(full.headers.get('retry-after'))).toBeLessThanOrEqual(WINDOW_S)
    const problem = await full.json<{ type: string; detail: string; errors: { path: string }[] }>()
    expect(problem.type).toBe('urn:waybill:problem:quota_exceeded')
    expect(problem.detail).toContain(quota)
    expect(problem.errors.map((e) => e.path)).toEqual(['quota'])
    // A PUT must say its size: a byte quota cannot count what is not signed.
    const unsized = await upload(key, { key: `${ROOT}/x.txt`, contentType: 'text/plain' })
    expect(unsized.status).toBe(400)
    expect((await unsized.json<{ errors: { path: string }[] }>()).errors[0]!.path).toBe(
      'contentLength',
    )

    // Two of the forms store 10 bytes each, and are checked complete while their policies live:
    // the store would still take 1000 bytes through each, so each still counts 1000.
    const check = (worker: typeof app, signed: PostUpload) =>
      send(worker, env, 'POST', '/v1/uploads/complete', {
        bearer: key,
        body: { origin: 'e2e', key: signed.key, receipt: signed.receipt },
      })
    for (const signed of forms.slice(0, 2)) {
      const stored = await postForm(signed.url, form(signed.fields, new Blob(['0123456789'])))
      expect(stored.status).toBe(204)
      const checked = await check(app, signed)
      expect(checked.status, await checked.clone().text()).toBe(200)
    }
    expect((await post()).status).toBe(429)
    // Checked once their policies can store no more (past their expiry and its margin), they
    // count what they stored: 990 bytes come back each.
    for (const signed of forms.slice(0, 2)) {
      const checked = await check(afterHold, signed)
      expect(checked.status, await checked.clone().text()).toBe(200)
    }
    // 10 + 10 + 1000 reserved: room for one more 1000-byte form, not two.
    expect((await post()).status).toBe(200)
    expect((await post()).status).toBe(429)
  })
})

describe('an object quota', () => {
  it('never overshoots, however many requests arrive at once', async () => {
    const { key } = await keyWithQuota({ maxObjects: 5 })
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        upload(key, { key: `${ROOT}/c${i}.txt`, contentType: 'text/plain', contentLength: 1 }),
      ),
    )
    const statuses = answers.map((answer) => answer.status).sort()
    expect(statuses.filter((s) => s === 200)).toHaveLength(5)
    expect(statuses.filter((s) => s === 429)).toHaveLength(15)
    // A batch is reserved all or none.
    const { key: other } = await keyWithQuota({ maxObjects: 3 })
    const items = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        key: `${ROOT}/b${i}-${crypto.randomUUID()}.txt`,
        contentType: 'text/plain',
        contentLength: 1,
      }))
    expect((await upload(other, { items: items(2) })).status).toBe(200)
    expect((await upload(other, { items: items(2) })).status).toBe(429)
    expect((await upload(other, { items: items(1) })).status).toBe(200)
  })

  it('gets the room of an aborted multipart upload back', async () => {
    const { key } = await keyWithQuota({ maxObjects: 1 })
    const start = (name: string) =>
      upload(key, {
        mode: 'multipart',
        key: `${ROOT}/${name}`,
        contentType: 'text/plain',
        contentLength: 10,
      })
    const started = await start('m1.txt')
    expect(started.status, await started.clone().text()).toBe(200)
    expect((await start('m2.txt')).status).toBe(429)
    const { uploadId } = await started.json<{ uploadId: string }>()
    const aborted = await send(app, env, 'POST', '/v1/uploads/multipart/abort', {
      bearer: key,
      body: { origin: 'e2e', key: `${ROOT}/m1.txt`, uploadId },
    })
    expect(aborted.status).toBe(204)
    expect((await start('m2.txt')).status).toBe(200)
  })
})

describe('a quota counter', () => {
  it('frees each reservation a release names once, all in one call', async () => {
    const quotas = env.WAYBILL_QUOTAS as DurableObjectNamespace<QuotaCounter>
    const counter = quotas.get(quotas.idFromName(`${ROOT}/release`))
    const limits = { windowS: 3600, maxObjects: 3, maxBytes: 100 }
    const now = Date.now()
    const held = ['a', 'b', 'c'].map((id) => ({ id, bytes: 30, heldUntil: 0 }))
    expect(await counter.reserve(held, limits, now)).toEqual({
      ok: true,
      used: { objects: 3, bytes: 90 },
    })
    const one = [{ id: 'd', bytes: 1, heldUntil: 0 }]
    expect((await counter.reserve(one, limits, now)).ok).toBe(false)
    // Two held, one never reserved, one named twice: two come back.
    await counter.release(['a', 'b', 'unknown', 'a'], now)
    expect(await counter.reserve(one, limits, now)).toEqual({
      ok: true,
      used: { objects: 2, bytes: 31 },
    })
  })

  it('holds the most an artifact admits until it can store no more; an unsigned one comes back now', async () => {
    const quotas = env.WAYBILL_QUOTAS as DurableObjectNamespace<QuotaCounter>
    const counter = quotas.get(quotas.idFromName(`${ROOT}/hold`))
    const limits = { windowS: 3600, maxBytes: 100 }
    // Inside one window: its start, and ten minutes on.
    const start = Math.floor(Date.now() / 3_600_000) * 3_600_000
    const until = start + 600_000
    const form = { id: 'form', bytes: 60, heldUntil: until }
    expect((await counter.reserve([form], limits, start)).ok).toBe(true)
    // Checked at 10 bytes while the policy lives: the store may still take 60, so 60 it counts.
    await counter.settle('form', 10, start + 1000)
    const forty = { id: 'forty', bytes: 41, heldUntil: until }
    expect(await counter.reserve([forty], limits, start + 2000)).toMatchObject({ ok: false })
    // Deleted while it lives: the policy can store again, so nothing comes back either.
    await counter.release(['form'], start + 3000)
    expect(await counter.reserve([forty], limits, start + 4000)).toMatchObject({ ok: false })
    // Once the policy is past its hold, a check counts what it finds.
    await counter.settle('form', 10, until)
    expect(await counter.reserve([forty], limits, until + 1000)).toEqual({
      ok: true,
      used: { objects: 2, bytes: 51 },
    })
    // A reservation whose request signed nothing is cancelled at once, hold or not.
    await counter.cancel(['forty'])
    expect(
      await counter.reserve([{ id: 'ninety', bytes: 90, heldUntil: until }], limits, until + 2000),
    ).toEqual({ ok: true, used: { objects: 2, bytes: 100 } })
  })
})

describe('reads', () => {
  it('never touch a quota counter: they sign with the counters unreachable, uploads do not', async () => {
    const created = await admin(adminApp, env, 'POST', '/keys', {
      grants: [{ origin: 'e2e', actions: ['read', 'write'] }],
    })
    const { id, key } = await created.json<{ id: string; key: string }>()
    const set = await admin(adminApp, env, 'POST', '/quotas', {
      to: `apiKey:${id}`,
      origin: 'e2e',
      windowS: 3600,
      maxObjects: 10,
    })
    expect(set.status).toBe(201)
    // Counters that fail every call, as an unreachable Durable Object would.
    const trap = () => {
      throw new Error('a read called the quota counters')
    }
    const unreachable = { ...env, WAYBILL_QUOTAS: { idFromName: trap, get: trap } }
    const signed = await send(app, unreachable, 'POST', '/v1/sign', {
      bearer: key,
      body: { origin: 'e2e', keys: ['a.txt'] },
    })
    expect(signed.status).toBe(200)
    const links = await send(app, unreachable, 'POST', '/v1/links', {
      bearer: key,
      body: { origin: 'e2e', keys: ['a.txt'] },
    })
    expect(links.status).toBe(200)
    const write = await send(app, unreachable, 'POST', '/v1/uploads', {
      bearer: key,
      body: { origin: 'e2e', key: `${ROOT}/r.txt`, contentType: 'text/plain', contentLength: 1 },
    })
    expect(write.status).toBe(503)
    expect(write.headers.get('retry-after')).not.toBeNull()
  })
})
