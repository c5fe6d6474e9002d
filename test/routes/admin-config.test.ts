// The control plane's configuration as one document (issue #31): exported without a secret unless
// asked, imported back by id (what is held stays as it is), each record checked as its create is.
// The pool's local D1, shared with the other tests: each test imports only its own records.

import { beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import { CONTROL_MAX_AGE_MS } from '../../src/limits'
import { admin, appWithClock, fresh, send, withControl } from '../helpers/control-plane'
import { sha256Hex } from '../helpers/hex'
import { NOW, problemOf, testEnv } from '../helpers/routes'

let env: Env

beforeAll(async () => {
  env = await withControl(await testEnv())
})

type Apps = ReturnType<typeof appWithClock>

interface Exported {
  version: number
  keys: { id: string; label: string | null; secrets: { prefix: string; sha256?: string }[] }[]
  grants: { id: string; grant: { to: string } }[]
  quotas: { id: string; to: string }[]
  revocations: { id: string; principal?: string }[]
}

const counts = (keys: number, grants: number, quotas: number, revocations: number) => ({
  keys,
  grants,
  quotas,
  revocations,
})

async function json<T>(response: Response | Promise<Response>, status = 200): Promise<T> {
  const answer = await response
  expect(answer.status, await answer.clone().text()).toBe(status)
  return answer.json<T>()
}

/** A key, its grant, a quota and a revocation of its links: the records of one caller. */
async function caller({ adminApp }: Apps) {
  const id = fresh('cfg')
  const made = await json<{ id: string; key: string; grants: { id: string }[] }>(
    admin(adminApp, env, 'POST', '/keys', {
      id,
      label: 'exported',
      grants: [{ origin: 'photos', actions: ['read', 'write'] }],
    }),
    201,
  )
  const quota = await json<{ id: string }>(
    admin(adminApp, env, 'POST', '/quotas', {
      to: `apiKey:${id}`,
      origin: 'photos',
      maxObjects: 3,
      windowS: 3600,
    }),
    201,
  )
  const revocation = await json<{ id: string }>(
    admin(adminApp, env, 'POST', '/revocations', {
      kind: 'links',
      issuedBefore: NOW.toISOString(),
      principal: `apiKey:${id}`,
    }),
    201,
  )
  return { ...made, quota: quota.id, revocation: revocation.id }
}

/** The part of `document` that is `who`'s. */
function mine(document: Exported, who: Awaited<ReturnType<typeof caller>>): Exported {
  return {
    ...document,
    keys: document.keys.filter((key) => key.id === who.id),
    grants: document.grants.filter((grant) => grant.grant.to === `apiKey:${who.id}`),
    quotas: document.quotas.filter((quota) => quota.id === who.quota),
    revocations: document.revocations.filter((revocation) => revocation.id === who.revocation),
  }
}

describe('export', () => {
  it("holds every key's metadata, grant, quota and revocation, with no secret unless asked", async () => {
    const apps = appWithClock(NOW)
    const who = await caller(apps)
    const plain = await admin(apps.adminApp, env, 'GET', '/export')
    const text = await plain.clone().text()
    const document = mine(await json<Exported>(plain), who)
    expect(document.version).toBe(1)
    expect(document.keys).toEqual([
      expect.objectContaining({ id: who.id, label: 'exported', secrets: [expect.anything()] }),
    ])
    expect(document.keys[0]!.secrets[0]).not.toHaveProperty('sha256')
    expect(document.grants.map((grant) => grant.id)).toEqual([who.grants[0]!.id])
    expect(document.quotas).toEqual([expect.objectContaining({ to: `apiKey:${who.id}` })])
    expect(document.revocations).toEqual([
      expect.objectContaining({ id: who.revocation, principal: `apiKey:${who.id}` }),
    ])
    const hash = await sha256Hex(who.key)
    expect(text).not.toContain(hash)
    expect(text).not.toContain(who.key)

    const withHashes = mine(
      await json<Exported>(admin(apps.adminApp, env, 'GET', '/export?secrets=include')),
      who,
    )
    expect(withHashes.keys[0]!.secrets).toEqual([expect.objectContaining({ sha256: hash })])
  })
})

describe('import', () => {
  it('adds what the control plane does not hold and leaves what it holds, then it stands', async () => {
    const apps = appWithClock(NOW)
    const { adminApp, clock } = apps
    const who = await caller(apps)
    const document = mine(
      await json<Exported>(admin(adminApp, env, 'GET', '/export?secrets=include')),
      who,
    )
    // All held already: nothing changes.
    expect(await json(admin(adminApp, env, 'POST', '/import', document))).toEqual({
      added: counts(0, 0, 0, 0),
      skipped: counts(1, 1, 1, 1),
    })
    // Lost: the grant, the quota and the revocation; and a key restored from another environment.
    for (const path of [
      `/grants/${who.grants[0]!.id}`,
      `/quotas/${who.quota}`,
      `/revocations/${who.revocation}`,
    ]) {
      expect((await admin(adminApp, env, 'DELETE', path)).status).toBe(204)
    }
    const elsewhere = `wb_${'R'.repeat(43)}`
    const restored = fresh('restored')
    const key = {
      id: restored,
      label: 'from production',
      createdAt: NOW.toISOString(),
      expiresAt: null,
      revokedAt: null,
      secrets: [
        {
          prefix: 'wb_RRRR',
          createdAt: NOW.toISOString(),
          expiresAt: null,
          sha256: await sha256Hex(elsewhere),
        },
      ],
    }
    const grant = {
      id: `g_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`,
      createdAt: NOW.toISOString(),
      grant: { to: `apiKey:${restored}`, origin: 'photos', actions: ['read'] },
    }
    // Events of one millisecond come in no order of their own: a millisecond apart.
    clock.advance(1)
    const answer = await json<{ added: unknown; skipped: unknown }>(
      admin(adminApp, env, 'POST', '/import', {
        ...document,
        keys: [...document.keys, key],
        grants: [...document.grants, grant],
      }),
    )
    expect(answer).toEqual({ added: counts(1, 2, 1, 1), skipped: counts(1, 0, 0, 0) })
    // Each record is back under its id.
    expect((await admin(adminApp, env, 'GET', `/quotas/${who.quota}`)).status).toBe(200)
    const view = await json<{ grants: { id: string }[] }>(
      admin(adminApp, env, 'GET', `/keys/${who.id}`),
    )
    expect(view.grants.map((g) => g.id)).toContain(who.grants[0]!.id)
    // The restored key signs with the grant it came with, within the control plane's bound.
    clock.advance(CONTROL_MAX_AGE_MS)
    const signed = await send(apps.app, env, 'POST', '/v1/sign', {
      bearer: elsewhere,
      body: { origin: 'photos', keys: ['a.jpg'] },
    })
    expect(signed.status, await signed.clone().text()).toBe(200)
    // One event in the audit trail says what the document offered.
    const trail = await json<{ events: { action: string; after: unknown }[] }>(
      admin(adminApp, env, 'GET', '/audit?action=import&limit=1'),
    )
    expect(trail.events[0]).toMatchObject({
      action: 'import',
      after: { offered: counts(2, 2, 1, 1) },
    })
  })

  it('refuses a key without its secrets, a grant its origin cannot hold, another version', async () => {
    const apps = appWithClock(NOW)
    const who = await caller(apps)
    const document = mine(await json<Exported>(admin(apps.adminApp, env, 'GET', '/export')), who)
    const problem = async (body: unknown, status = 400) => {
      const response = await admin(apps.adminApp, env, 'POST', '/import', body)
      expect(response.status, await response.clone().text()).toBe(status)
      return (await problemOf(response)).errors?.map((error) => error.path)
    }
    expect(await problem(document)).toEqual(['keys.0.secrets.0.sha256'])
    expect(await problem({ ...document, keys: [], version: 2 })).toEqual(['version'])
    expect(
      await problem(
        {
          version: 1,
          grants: [
            { ...document.grants[0], grant: { ...document.grants[0]!.grant, origin: 'nowhere' } },
          ],
        },
        404,
      ),
    ).toEqual(['grants.0.grant.origin'])
    expect(
      await problem({ version: 1, keys: [{ ...document.keys[0], id: 'photos-only' }] }),
    ).toContain('keys.0.secrets.0.sha256')
  })
})
