// Audit events: what each request becomes (never a URL, a token or a key), and that the sinks
// (an Analytics Engine dataset, a Queue) receive one per signing request and followed link.

import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { env as bindings } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { auditEvent, type AuditEvent } from '../../src/control/audit'
import { postJson } from '../helpers/requests'
import { ALL_KEY, NOW, PHOTOS_KEY, testEnv } from '../helpers/routes'

const base = { now: NOW, requestId: 'r-1', path: '/v1/sign', route: '/v1/sign', status: 200 }
const web = { kind: 'api-key', id: 'web' }

describe('auditEvent', () => {
  it('a mint counts its artifacts and bytes, under the caller and its key', () => {
    expect(
      auditEvent({ ...base, principal: web, origin: 'photos', action: 'read', items: 3 }),
    ).toEqual({
      type: 'waybill.audit',
      time: NOW.toISOString(),
      requestId: 'r-1',
      route: '/v1/sign',
      status: 200,
      outcome: 'minted',
      action: 'read',
      principal: 'apiKey:web',
      keyId: 'web',
      origin: 'photos',
      count: 3,
      bytes: 0,
    })
    const upload = auditEvent({
      ...base,
      path: '/v1/uploads',
      route: '/v1/uploads',
      principal: { kind: 'jwt', id: 'alice' },
      origin: 'photos',
      action: 'write',
      items: 2,
      bytesReserved: 300,
    })
    expect(upload).toMatchObject({ principal: 'jwt:alice', keyId: undefined, count: 2, bytes: 300 })
  })

  it('refusals count no artifacts; follow-ups of uploads mint nothing; a link follow is its issuer’s', () => {
    for (const status of [401, 403, 410, 429]) {
      expect(auditEvent({ ...base, status, items: 5 })).toMatchObject({
        outcome: 'refused',
        count: 0,
      })
    }
    expect(auditEvent({ ...base, status: 400 }).outcome).toBe('invalid')
    expect(auditEvent({ ...base, status: 500 }).outcome).toBe('error')
    const check = auditEvent({
      ...base,
      path: '/v1/uploads/complete',
      route: '/v1/uploads/complete',
      principal: web,
      items: 1,
      bytesCompleted: 42,
    })
    expect(check).toMatchObject({ outcome: 'minted', count: 0, bytes: 42 })
    const follow = auditEvent({
      ...base,
      path: '/l/k1.x.y',
      route: '/l/:token',
      status: 302,
      linkIssuer: 'AbCdEfGhIjK',
      origin: 'photos',
      items: 1,
    })
    expect(follow).toMatchObject({
      outcome: 'followed',
      action: 'follow',
      principal: 'link:AbCdEfGhIjK',
      count: 1,
    })
    expect(follow).not.toHaveProperty('maxUses')
    // A link with maxUses says so: how many it allows, and how many are left after this one.
    const counted = auditEvent({
      ...base,
      path: '/l/k1.x.y',
      route: '/l/:token',
      status: 302,
      linkIssuer: 'AbCdEfGhIjK',
      linkUses: { max: 5, left: 2 },
      origin: 'photos',
      items: 1,
    })
    expect(counted).toMatchObject({ outcome: 'followed', count: 1, maxUses: 5, usesLeft: 2 })
  })
})

describe('the sinks', () => {
  it('get one event per signing request and followed link, with nothing secret in it', async () => {
    const points: AnalyticsEngineDataPoint[] = []
    const messages: AuditEvent[] = []
    const env = await testEnv({
      WAYBILL_LINK_USES: bindings.WAYBILL_LINK_USES,
      WAYBILL_AUDIT: { writeDataPoint: (point: AnalyticsEngineDataPoint) => points.push(point) },
      WAYBILL_AUDIT_QUEUE: {
        send: (message: AuditEvent) => {
          messages.push(message)
          return Promise.resolve()
        },
      },
    })
    const app = createApp({ clock: () => NOW })
    const ctx = createExecutionContext()
    const signed = await app.request(
      '/v1/sign',
      postJson({ origin: 'photos', keys: ['a.jpg', 'b.jpg'] }, ALL_KEY),
      env,
      ctx,
    )
    expect(signed.status).toBe(200)
    const refused = await app.request(
      '/v1/sign',
      postJson({ origin: 'docs', keys: ['a'] }, PHOTOS_KEY),
      env,
      ctx,
    )
    expect(refused.status).toBe(403)
    const issued = await app.request(
      '/v1/links',
      postJson({ origin: 'photos', keys: ['a.jpg'] }, ALL_KEY),
      env,
      ctx,
    )
    const { links } = await issued.json<{ links: { url: string }[] }>()
    const followed = await app.request(new URL(links[0]!.url).pathname, {}, env, ctx)
    expect(followed.status).toBe(302)
    const once = await app.request(
      '/v1/links',
      postJson({ origin: 'photos', keys: ['a.jpg'], maxUses: 2 }, ALL_KEY),
      env,
      ctx,
    )
    const counted = (await once.json<{ links: { url: string }[] }>()).links[0]!.url
    expect((await app.request(new URL(counted).pathname, {}, env, ctx)).status).toBe(302)
    // Not audited: what signs nothing.
    await app.request('/healthz', {}, env, ctx)
    await waitOnExecutionContext(ctx)

    expect(messages.map((m) => [m.outcome, m.principal?.split(':')[0], m.count])).toEqual([
      ['minted', 'apiKey', 2],
      ['refused', 'apiKey', 0],
      ['minted', 'apiKey', 1],
      ['followed', 'link', 1],
      ['minted', 'apiKey', 1],
      ['followed', 'link', 1],
    ])
    expect(messages[3]).not.toHaveProperty('maxUses')
    expect(messages[5]).toMatchObject({ maxUses: 2, usesLeft: 1 })
    expect(points).toHaveLength(6)
    expect(points[0]).toMatchObject({
      indexes: ['apiKey:all'],
      blobs: ['minted', 'read', 'photos', 'apiKey:all', 'all', '/v1/sign', messages[0]!.requestId],
      // maxUses and usesLeft last: 0 for all but a counted link's follow.
      doubles: [2, 0, 200, 0, 0],
    })
    expect(points[3]).toMatchObject({ doubles: [1, 0, 302, 0, 0] })
    expect(points[5]).toMatchObject({ doubles: [1, 0, 302, 2, 1] })
    const text = JSON.stringify([points, messages])
    for (const secret of [
      ALL_KEY,
      PHOTOS_KEY,
      links[0]!.url,
      new URL(links[0]!.url).pathname,
      counted,
    ]) {
      expect(text).not.toContain(secret)
    }
    expect(text).not.toMatch(/X-Amz-Signature|https?:\/\//)
  })
})
