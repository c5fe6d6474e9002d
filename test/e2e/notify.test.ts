// Upload notifications over real HTTP: workerd's own fetch delivers to the receiver the global
// setup runs in Node, which checks each delivery with the `standardwebhooks` package.

import { beforeEach, describe, expect, inject, it } from 'vitest'
import { parseNotify, type NotifyConfig } from '../../src/config/notify'
import {
  notifyUploadCompleted,
  uploadCompletedEvent,
  type NotifyFailure,
  type UploadCompletedEvent,
} from '../../src/services/notify'
import type { WebhookRecord } from '../helpers/provided-context'

const receiver = inject('webhook')

function webhookConfig(): NotifyConfig {
  const result = parseNotify({
    WAYBILL_WEBHOOK_URL: `${receiver.baseUrl}/hooks/waybill`,
    WAYBILL_WEBHOOK_SECRET: receiver.secret,
  })
  if (!result.ok) throw new Error(JSON.stringify(result.errors))
  return result.value
}

function event(): UploadCompletedEvent {
  return uploadCompletedEvent(
    {
      origin: 'e2e',
      key: 'notify/ünïcode ключ.bin',
      size: 5 * 1024 ** 2,
      contentType: 'application/octet-stream',
      etag: '"b1946ac92492d2347c6235b4d2611184-2"',
      mode: 'multipart',
      principal: { kind: 'api-key', id: 'e2e' },
      // Each test's event its own upload, so the receiver tells their deliveries apart.
      occurrence: crypto.randomUUID(),
    },
    new Date(),
  )
}

async function control(failNext: number): Promise<void> {
  const response = await fetch(`${receiver.baseUrl}/control`, {
    method: 'POST',
    body: JSON.stringify({ failNext }),
  })
  expect(response.status).toBe(204)
}

async function deliveries(id: string): Promise<WebhookRecord[]> {
  const response = await fetch(`${receiver.baseUrl}/events?id=${encodeURIComponent(id)}`)
  return response.json()
}

beforeEach(() => control(0))

describe('webhook delivery to a real receiver', () => {
  it('delivers an event the receiver verifies', async () => {
    const sent = event()
    const logs: NotifyFailure[] = []
    await notifyUploadCompleted(webhookConfig(), sent, { log: (line) => logs.push(line) })

    expect(logs).toEqual([])
    const records = await deliveries(sent.id)
    expect(records).toMatchObject([{ id: sent.id, verified: true, status: 204 }])
    expect(JSON.parse(records[0]!.body)).toEqual({
      type: 'upload.completed',
      timestamp: sent.timestamp,
      data: { ...sent.data, etag: 'b1946ac92492d2347c6235b4d2611184-2', principal: 'apiKey:e2e' },
    })
  })

  it('retries after the receiver answers 503, waiting the real backoff', async () => {
    await control(1)
    const sent = event()
    const logs: NotifyFailure[] = []
    const started = Date.now()
    await notifyUploadCompleted(webhookConfig(), sent, { log: (line) => logs.push(line) })

    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000)
    expect(logs).toEqual([])
    const records = await deliveries(sent.id)
    expect(records.map(({ id, verified, status }) => ({ id, verified, status }))).toEqual([
      { id: sent.id, verified: true, status: 503 },
      { id: sent.id, verified: true, status: 204 },
    ])
    expect(records[1]!.body).toBe(records[0]!.body)
  })

  it('gives up after three 503s with one log line', async () => {
    await control(3)
    const sent = event()
    const logs: NotifyFailure[] = []
    await notifyUploadCompleted(webhookConfig(), sent, {
      sleep: () => Promise.resolve(),
      log: (line) => logs.push(line),
    })

    expect((await deliveries(sent.id)).map((r) => r.status)).toEqual([503, 503, 503])
    expect(logs).toEqual([
      expect.objectContaining({ eventId: sent.id, target: 'webhook', attempts: 3, status: 503 }),
    ])
  })

  it('has the receiver refuse a tampered copy of a delivery', async () => {
    const sent = event()
    const requests: { url: string; init: RequestInit }[] = []
    await notifyUploadCompleted(webhookConfig(), sent, {
      fetch: (input, init = {}) => {
        requests.push({ url: input instanceof Request ? input.url : input.toString(), init })
        return fetch(input, init)
      },
    })
    expect(requests).toHaveLength(1)
    const { url, init } = requests[0]!
    const body = init.body as string
    const resend = (copy: string) => fetch(url, { ...init, body: copy, signal: null })

    // The untouched copy still verifies (a replay: receivers drop it by its webhook-id)…
    expect((await resend(body)).status).toBe(204)
    // …but not with one byte changed.
    const at = body.indexOf('"size":') + '"size":'.length
    const tampered = `${body.slice(0, at)}${body[at] === '9' ? '8' : '9'}${body.slice(at + 1)}`
    expect(tampered).toHaveLength(body.length)
    expect(tampered).not.toBe(body)
    expect((await resend(tampered)).status).toBe(401)

    const records = await deliveries(sent.id)
    expect(records.map(({ verified, status }) => ({ verified, status }))).toEqual([
      { verified: true, status: 204 },
      { verified: true, status: 204 },
      { verified: false, status: 401 },
    ])
    expect(records[2]!.body).toBe(tampered)
  })
})
