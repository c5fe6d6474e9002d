// Links you can count, end to end: a link issued with `maxUses` leads to the object (versitygw
// serves its bytes) that many times, each use counted by the link's own Durable Object, one at a
// time: twenty visits at once to a one-time link get one redirect and nineteen 410s. A visit
// refused for any other reason never spends a use.

import { exports } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { createAdminApp } from '../../src/admin/app'
import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { admin, fresh, send, withControl } from '../helpers/control-plane'
import { objectUrl, store, workerEnv } from '../helpers/worker-env'

const apiKey = inject('apiKey')
const ROOT = fresh('link-uses')
const KEY = `${ROOT}/report.txt`
const BODY = 'counted bytes'

/** HTTP to the Worker's real entry, with the pool's bindings (its `e2e` origin and API key). */
function worker(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`http://waybill.test${path}`, init))
}

interface Issued {
  maxUses?: number
  links: { url: string; id: string }[]
}

async function issue(maxUses: number): Promise<{ path: string; id: string }> {
  const response = await worker('/v1/links', {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ origin: 'e2e', keys: [KEY], maxUses }),
  })
  expect(response.status, await response.clone().text()).toBe(200)
  const answer = await response.json<Issued>()
  expect(answer.maxUses).toBe(maxUses)
  return { path: new URL(answer.links[0]!.url).pathname, id: answer.links[0]!.id }
}

const follow = (path: string) => worker(path, { redirect: 'manual' })

beforeAll(async () => {
  // Seeded straight into the store, not through the code under test.
  const seeded = await store.fetch(objectUrl(KEY), { method: 'PUT', body: BODY })
  expect(seeded.status).toBe(200)
})

describe('a one-time link', () => {
  it('gives exactly one redirect to twenty visits at once, and nineteen 410s', async () => {
    const { path } = await issue(1)
    const answers = await Promise.all(Array.from({ length: 20 }, () => follow(path)))
    const found = answers.filter((answer) => answer.status === 302)
    const gone = answers.filter((answer) => answer.status === 410)
    expect(found).toHaveLength(1)
    expect(gone).toHaveLength(19)
    for (const answer of gone) {
      expect(answer.headers.get('location')).toBeNull()
      expect(answer.headers.get('content-type')).toBe('application/problem+json')
      expect((await answer.json<{ detail: string }>()).detail).toMatch(/used its 1 time\b/)
    }
    // The one redirect leads to the bytes: versitygw verifies the signature.
    const bytes = await fetch(found[0]!.headers.get('location')!)
    expect(bytes.status).toBe(200)
    expect(await bytes.text()).toBe(BODY)
  })
})

describe('an N-use link', () => {
  it('leads N times, one after the other, then answers 410', async () => {
    const { path } = await issue(3)
    for (let i = 0; i < 3; i++) {
      const answer = await follow(path)
      expect(answer.status, `use ${i + 1}`).toBe(302)
      expect(await (await fetch(answer.headers.get('location')!)).text()).toBe(BODY)
    }
    expect((await follow(path)).status).toBe(410)
  })

  it('leads N times to N visits of many at once', async () => {
    const { path } = await issue(3)
    const answers = await Promise.all(Array.from({ length: 12 }, () => follow(path)))
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 302)).toHaveLength(3)
    expect(statuses.filter((status) => status === 410)).toHaveLength(9)
  })
})

describe('a refused visit', () => {
  const app = createApp()
  const adminApp = createAdminApp()
  let env: Env

  beforeAll(async () => {
    env = await withControl(workerEnv)
  })

  /** How many uses a link's counter holds (none: the table is not there). */
  const usesCounted = (linkId: string) => {
    const namespace = workerEnv.WAYBILL_LINK_USES as DurableObjectNamespace
    return runInDurableObject(namespace.get(namespace.idFromName(linkId)), (_, state) => {
      const table = state.storage.sql
        .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'uses'")
        .toArray()
      if (table.length === 0) return 0
      return state.storage.sql.exec<{ used: number }>('SELECT used FROM uses').one().used
    })
  }

  it('spends no use: tampered, revoked, or its issuer revoked', async () => {
    const { path, id } = await issue(1)
    const [secretId, payload, tag] = path.slice('/l/'.length).split('.') as [string, string, string]
    const tampered = `/l/${secretId}.${payload}.${(tag[0] === 'A' ? 'B' : 'A') + tag.slice(1)}`
    expect((await follow(tampered)).status).toBe(403)
    const later = new Date(Date.now() + 60_000).toISOString()
    const revoked = { ...env, WAYBILL_LINK_REVOCATIONS: JSON.stringify([{ issuedBefore: later }]) }
    const refused = await app.request(path, { redirect: 'manual' }, revoked)
    expect(refused.status).toBe(410)
    expect(await usesCounted(id)).toBe(0)
    expect((await follow(path)).status).toBe(302)
    expect(await usesCounted(id)).toBe(1)
    expect((await follow(path)).status).toBe(410)

    // A stored key's link, followed after the key is revoked: refused, and nothing counted.
    const created = await admin(adminApp, env, 'POST', '/keys', {
      // The whole origin: one with keys "any" takes no prefix grant.
      grants: [{ origin: 'e2e', actions: ['read'] }],
    })
    expect(created.status).toBe(201)
    const { id: keyId, key } = await created.json<{ id: string; key: string }>()
    const issued = await send(app, env, 'POST', '/v1/links', {
      bearer: key,
      body: { origin: 'e2e', keys: [KEY], maxUses: 1 },
    })
    expect(issued.status, await issued.clone().text()).toBe(200)
    const link = (await issued.json<Issued>()).links[0]!
    const revokedKey = await admin(adminApp, env, 'POST', '/revocations', {
      kind: 'key',
      key: keyId,
    })
    expect(revokedKey.status).toBe(201)
    const afterRevocation = await app.request(
      new URL(link.url).pathname,
      { redirect: 'manual' },
      env,
    )
    expect(afterRevocation.status).toBe(410)
    expect(await afterRevocation.text()).toMatch(/revoked/)
    expect(await usesCounted(link.id)).toBe(0)
  })
})
