// Upload notifications inside workerd: the event, the Standard Webhooks signature as the package
// verifies it, the retries of each target, and the one log line when a target is given up on.

import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { parseNotify, type NotifyConfig, type UploadQueue } from '../../src/config/notify'
import { QUEUE_RETRY_DELAYS_MS, WEBHOOK_RETRY_DELAYS_MS } from '../../src/limits'
import {
  notifyUploadCompleted,
  uploadCompletedEvent,
  type NotifyDeps,
  type UploadCompletedEvent,
} from '../../src/services/notify'

/** A fresh Standard Webhooks secret: 32 random bytes, never a fixed value. */
const newSecret = () =>
  `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`
const SECRET = newSecret()
const OTHER_SECRET = newSecret()
const TOKEN = 'receiverQueryToken0123456789'
const URL_ = `https://receiver.test/hooks/waybill?token=${TOKEN}`
const NOW = new Date('2026-11-23T12:00:00.000Z')

function config(env: Record<string, unknown>): NotifyConfig {
  const result = parseNotify(env)
  if (!result.ok) throw new Error(JSON.stringify(result.errors))
  return result.value
}

const webhookOnly = () => config({ WAYBILL_WEBHOOK_URL: URL_, WAYBILL_WEBHOOK_SECRET: SECRET })

const UPLOAD = {
  origin: 'photos',
  key: 'users/alice/cat.jpg',
  size: 12_345,
  contentType: 'image/jpeg',
  etag: '"9e107d9d372bb6826bd81d3542a419d6"',
  mode: 'put',
  principal: { kind: 'jwt', id: 'alice' },
  occurrence: 'Mon, 23 Nov 2026 11:59:58 GMT',
} as const

const event = (): UploadCompletedEvent => uploadCompletedEvent(UPLOAD, NOW)

interface Call {
  url: string
  body: string
  headers: Record<string, string>
  init: RequestInit
}

/** A fetch answering each call with the next status (the last one repeats), or throwing. */
function fakeFetch(answers: readonly (number | Error)[]) {
  const calls: Call[] = []
  const fetch = (input: RequestInfo | URL, init: RequestInit = {}) => {
    calls.push({
      url: input instanceof Request ? input.url : String(input),
      body: init.body as string,
      headers: init.headers as Record<string, string>,
      init,
    })
    const answer = answers[Math.min(calls.length, answers.length) - 1]!
    if (answer instanceof Error) return Promise.reject(answer)
    return Promise.resolve(new Response(answer === 204 ? null : 'answer', { status: answer }))
  }
  return { fetch, calls }
}

/** A queue binding recording what was sent, failing the first `failures` sends. */
function fakeQueue(failures = 0) {
  const sent: { message: unknown; options: QueueSendOptions | undefined }[] = []
  let calls = 0
  const queue: UploadQueue = {
    send(message, options) {
      calls++
      if (calls <= failures) return Promise.reject(new Error('Queue send failed: overloaded'))
      sent.push({ message, options })
      return Promise.resolve({ metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } })
    },
  }
  return { queue, sent, calls: () => calls }
}

/** Deps recording sleeps (without waiting) and log lines, signing at a clock moving 1 s a call. */
function deps(fetch?: typeof globalThis.fetch) {
  const sleeps: number[] = []
  const logs: unknown[] = []
  let tick = 0
  const base = Date.now()
  const recorded: NotifyDeps = {
    fetch,
    sleep: (ms) => {
      sleeps.push(ms)
      return Promise.resolve()
    },
    clock: () => new Date(base + 1000 * tick++),
    log: (line) => logs.push(line),
  }
  return { deps: recorded, sleeps, logs }
}

describe('uploadCompletedEvent', () => {
  it('builds the Standard Webhooks shaped event, naming the caller as the request log does', () => {
    const made = event()
    expect(made.id).toMatch(/^msg_[0-9a-f]{32}$/)
    expect(made).toEqual({
      id: made.id,
      type: 'upload.completed',
      timestamp: '2026-11-23T12:00:00.000Z',
      data: {
        origin: 'photos',
        key: 'users/alice/cat.jpg',
        size: 12_345,
        contentType: 'image/jpeg',
        etag: '9e107d9d372bb6826bd81d3542a419d6',
        mode: 'put',
        principal: 'jwt:alice',
      },
    })
    expect(Object.isFrozen(event())).toBe(true)
  })

  it('derives the id from the upload: the same for a repeat, another for another upload', () => {
    const a = uploadCompletedEvent(UPLOAD, NOW)
    // A repeated check or complete, later, and the store quoting the ETag or not.
    const again = uploadCompletedEvent({ ...UPLOAD, etag: UPLOAD.etag.slice(1, -1) }, new Date())
    expect(again.id).toBe(a.id)
    for (const other of [
      { ...UPLOAD, occurrence: 'Mon, 23 Nov 2026 12:05:00 GMT' },
      { ...UPLOAD, key: 'users/alice/cat.jpeg' },
      { ...UPLOAD, origin: 'photos2' },
      { ...UPLOAD, etag: '"0e107d9d372bb6826bd81d3542a419d6"' },
    ]) {
      expect(uploadCompletedEvent(other, NOW).id).not.toBe(a.id)
    }
    const web = uploadCompletedEvent({ ...UPLOAD, principal: { kind: 'api-key', id: 'web' } }, NOW)
    expect(web.data.principal).toBe('apiKey:web')
  })
})

describe('webhook delivery', () => {
  it('POSTs the JSON payload with the three headers, and the package verifies it', async () => {
    const { fetch, calls } = fakeFetch([204])
    const recorded = deps(fetch)
    const sent = event()
    await notifyUploadCompleted(webhookOnly(), sent, recorded.deps)

    expect(calls).toHaveLength(1)
    const [call] = calls
    expect(call!.url).toBe(URL_)
    expect(call!.init.method).toBe('POST')
    expect(call!.init.redirect).toBe('manual')
    expect(call!.init.signal).toBeInstanceOf(AbortSignal)
    expect(call!.headers['content-type']).toBe('application/json')
    expect(call!.headers['webhook-id']).toBe(sent.id)
    expect(call!.headers['webhook-timestamp']).toMatch(/^\d{10}$/)
    expect(call!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)

    const payload = new Webhook(SECRET).verify(call!.body, call!.headers)
    expect(payload).toEqual({ type: sent.type, timestamp: sent.timestamp, data: sent.data })
    expect(recorded.sleeps).toEqual([])
    expect(recorded.logs).toEqual([])
  })

  it('signs with the clock given, in seconds', async () => {
    const { fetch, calls } = fakeFetch([200])
    const at = new Date('2026-11-23T12:34:56.789Z')
    await notifyUploadCompleted(webhookOnly(), event(), { fetch, clock: () => at })
    expect(calls[0]!.headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)))
  })

  it('fails verification for a payload with one byte changed, and for another secret', async () => {
    const { fetch, calls } = fakeFetch([200])
    await notifyUploadCompleted(webhookOnly(), event(), deps(fetch).deps)
    const { body, headers } = calls[0]!
    const at = body.indexOf('12345')
    const tampered = `${body.slice(0, at)}9${body.slice(at + 1)}`
    expect(tampered).toHaveLength(body.length)
    expect(() => new Webhook(SECRET).verify(tampered, headers)).toThrow(WebhookVerificationError)
    expect(() => new Webhook(OTHER_SECRET).verify(body, headers)).toThrow(
      'No matching signature found',
    )
    const otherId = { ...headers, 'webhook-id': 'msg_other' }
    expect(() => new Webhook(SECRET).verify(body, otherId)).toThrow(WebhookVerificationError)
    expect(new Webhook(SECRET).verify(body, headers)).toBeDefined()
  })

  it('retries a 503 with backoff, the same webhook-id each time, each attempt signed afresh', async () => {
    const { fetch, calls } = fakeFetch([503, 503, 200])
    const recorded = deps(fetch)
    await notifyUploadCompleted(webhookOnly(), event(), recorded.deps)

    expect(calls).toHaveLength(3)
    expect(recorded.sleeps).toEqual([...WEBHOOK_RETRY_DELAYS_MS])
    expect(recorded.sleeps).toEqual([1_000, 4_000])
    expect(new Set(calls.map((c) => c.headers['webhook-id']))).toEqual(new Set([event().id]))
    expect(new Set(calls.map((c) => c.body)).size).toBe(1)
    // The clock moves a second per attempt: new timestamps, new signatures, all of them valid.
    expect(new Set(calls.map((c) => c.headers['webhook-timestamp'])).size).toBe(3)
    expect(new Set(calls.map((c) => c.headers['webhook-signature'])).size).toBe(3)
    for (const call of calls)
      expect(new Webhook(SECRET).verify(call.body, call.headers)).toBeTruthy()
    expect(recorded.logs).toEqual([])
  })

  it('retries 408, 429, network errors and timeouts', async () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError')
    for (const first of [408, 429, 500, 502, new TypeError('Network connection lost.'), timeout]) {
      const { fetch, calls } = fakeFetch([first, 204])
      const recorded = deps(fetch)
      await notifyUploadCompleted(webhookOnly(), event(), recorded.deps)
      expect(calls).toHaveLength(2)
      expect(recorded.sleeps).toEqual([1_000])
      expect(recorded.logs).toEqual([])
    }
  })

  it('does not retry 400 and the other answers that will not change, and logs them once', async () => {
    for (const status of [400, 401, 403, 404, 410, 413, 301, 302]) {
      const { fetch, calls } = fakeFetch([status, 200])
      const recorded = deps(fetch)
      await notifyUploadCompleted(webhookOnly(), event(), recorded.deps)
      expect(calls).toHaveLength(1)
      expect(recorded.sleeps).toEqual([])
      expect(recorded.logs).toEqual([
        {
          level: 'error',
          message: 'upload notification failed',
          eventId: event().id,
          origin: 'photos',
          target: 'webhook',
          attempts: 1,
          status,
          error: undefined,
        },
      ])
    }
  })

  it('names a timeout and a network failure when it gives up on them', async () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError')
    for (const [failure, error] of [
      [timeout, 'timeout'],
      [new TypeError('fetch failed'), 'network'],
    ] as const) {
      const recorded = deps(fakeFetch([failure]).fetch)
      await notifyUploadCompleted(webhookOnly(), event(), recorded.deps)
      expect(recorded.logs).toMatchObject([{ target: 'webhook', attempts: 3, error }])
      expect(recorded.logs[0]).not.toHaveProperty('status', expect.anything())
    }
  })
})

describe('giving up', () => {
  let lines: string[] = []
  let levels: string[] = []
  beforeEach(() => {
    lines = []
    levels = []
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        levels.push(level)
        lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '))
      })
    }
  })
  afterEach(() => vi.restoreAllMocks())

  it('stops after the last attempt and logs one JSON error line, with no secret in it', async () => {
    const { fetch, calls } = fakeFetch([503])
    const sleeps: number[] = []
    const sleep = (ms: number) => (sleeps.push(ms), Promise.resolve())
    await notifyUploadCompleted(webhookOnly(), event(), { fetch, sleep })

    expect(calls).toHaveLength(WEBHOOK_RETRY_DELAYS_MS.length + 1)
    expect(sleeps).toEqual([1_000, 4_000])
    expect(lines).toHaveLength(1)
    expect(levels).toEqual(['error'])
    expect(JSON.parse(lines[0]!)).toEqual({
      level: 'error',
      message: 'upload notification failed',
      eventId: event().id,
      origin: 'photos',
      target: 'webhook',
      attempts: 3,
      status: 503,
    })
    const secretBase64 = SECRET.slice('whsec_'.length)
    for (const forbidden of [secretBase64, secretBase64.slice(0, 16), TOKEN, 'v1,', 'cat.jpg']) {
      expect(lines[0]).not.toContain(forbidden)
    }
    for (const call of calls) {
      expect(lines[0]).not.toContain(call.headers['webhook-signature']!.slice(3))
    }
  })

  it('never rejects: not for a throwing logger, nor for a signer that throws', async () => {
    const throwing = () => {
      throw new Error('logger down')
    }
    const failing = fakeFetch([500])
    await expect(
      notifyUploadCompleted(webhookOnly(), event(), {
        fetch: failing.fetch,
        sleep: () => Promise.resolve(),
        log: throwing,
      }),
    ).resolves.toBeUndefined()

    const broken: NotifyConfig = {
      webhook: { url: URL_, sign: () => throwing() },
    }
    const recorded = deps(fakeFetch([200]).fetch)
    await expect(notifyUploadCompleted(broken, event(), recorded.deps)).resolves.toBeUndefined()
    expect(recorded.logs).toMatchObject([
      { target: 'webhook', attempts: 0, error: 'Error: logger down' },
    ])
  })
})

describe('queue delivery', () => {
  it('sends the whole event, id included, as JSON', async () => {
    const { queue, sent } = fakeQueue()
    const recorded = deps()
    await notifyUploadCompleted(config({ WAYBILL_UPLOAD_QUEUE: queue }), event(), recorded.deps)
    expect(sent).toEqual([{ message: event(), options: { contentType: 'json' } }])
    expect(recorded.sleeps).toEqual([])
    expect(recorded.logs).toEqual([])
  })

  it('retries a failed send', async () => {
    const { queue, sent, calls } = fakeQueue(2)
    const recorded = deps()
    await notifyUploadCompleted(config({ WAYBILL_UPLOAD_QUEUE: queue }), event(), recorded.deps)
    expect(calls()).toBe(3)
    expect(sent).toHaveLength(1)
    expect(recorded.sleeps).toEqual([...QUEUE_RETRY_DELAYS_MS])
    expect(recorded.logs).toEqual([])
  })

  it('gives up after the last attempt with one log line naming the error', async () => {
    const { queue, sent, calls } = fakeQueue(Infinity)
    const recorded = deps()
    await notifyUploadCompleted(config({ WAYBILL_UPLOAD_QUEUE: queue }), event(), recorded.deps)
    expect(calls()).toBe(QUEUE_RETRY_DELAYS_MS.length + 1)
    expect(sent).toEqual([])
    expect(recorded.logs).toEqual([
      {
        level: 'error',
        message: 'upload notification failed',
        eventId: event().id,
        origin: 'photos',
        target: 'queue',
        attempts: 3,
        status: undefined,
        error: 'Error: Queue send failed: overloaded',
      },
    ])
  })
})

describe('targets', () => {
  it('delivers to both, each on its own: a failing webhook does not hold back the queue', async () => {
    const { queue, sent } = fakeQueue()
    const { fetch, calls } = fakeFetch([400])
    const recorded = deps(fetch)
    const both = config({
      WAYBILL_WEBHOOK_URL: URL_,
      WAYBILL_WEBHOOK_SECRET: SECRET,
      WAYBILL_UPLOAD_QUEUE: queue,
    })
    await notifyUploadCompleted(both, event(), recorded.deps)
    expect(calls).toHaveLength(1)
    expect(sent).toHaveLength(1)
    expect(recorded.logs).toMatchObject([{ target: 'webhook', status: 400 }])

    const ok = fakeFetch([200])
    const again = deps(ok.fetch)
    await notifyUploadCompleted(both, event(), again.deps)
    expect(ok.calls).toHaveLength(1)
    expect(sent).toHaveLength(2)
    expect(again.logs).toEqual([])
  })

  it('does nothing when nothing is configured', async () => {
    const fetch = vi.fn<typeof globalThis.fetch>()
    const sleep = vi.fn<(ms: number) => Promise<void>>()
    const log = vi.fn()
    await notifyUploadCompleted(config({}), event(), { fetch, sleep, log })
    expect(fetch).not.toHaveBeenCalled()
    expect(sleep).not.toHaveBeenCalled()
    expect(log).not.toHaveBeenCalled()
  })
})
