// Tells others that an upload finished: an `upload.completed` event POSTed to a webhook, signed per
// Standard Webhooks (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md),
// and/or sent to a Cloudflare Queue. Delivery runs after the answer (ExecutionContext.waitUntil):
// it retries, then logs one line, and never throws, so the upload's own answer never depends on it.

import type { UploadMode } from '../schemas/fields'
import { principalName, type Principal } from '../principal'
import { sha256AsciiHex } from '../core/sigv4/sha256'
import type { NotifyConfig, UploadQueue, WebhookTarget } from '../config/notify'
import {
  NOTIFY_MAX_ERROR_CHARS,
  QUEUE_RETRY_DELAYS_MS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_TIMEOUT_MS,
} from '../limits'
import { systemClock, type Clock } from '../clock'

/** What the upload completion code knows once it has checked an upload finished. */
export interface CompletedUpload {
  readonly origin: string
  readonly key: string
  /** Bytes, as the store reports them. */
  readonly size: number
  readonly contentType: string
  /** As S3 answers it (quoted or not). */
  readonly etag: string
  readonly mode: UploadMode
  readonly principal: Pick<Principal, 'kind' | 'id'>
  /**
   * What tells this completion from another of the same key: the store's upload id of a multipart
   * upload, the Last-Modified of a checked object. With the origin, key and ETag it makes the
   * event's id, so a repeated complete or check sends an event receivers already have.
   */
  readonly occurrence: string
}

/** The event's data: the upload as receivers see it. */
type UploadCompletedData = Omit<CompletedUpload, 'principal' | 'occurrence'> & {
  /** Without S3's quotes: `d41d8cd98f00b204e9800998ecf8427e`, `…-3` for a multipart upload. */
  readonly etag: string
  /** As the request log names the caller: `apiKey:web`, `jwt:alice`. */
  readonly principal: string
}

/**
 * One event. The webhook's body is `{ type, timestamp, data }` (the spec's payload) with `id` as
 * its `webhook-id`; a queue has no headers, so its message is the whole object, `id` included,
 * for consumers to drop duplicates.
 */
export interface UploadCompletedEvent {
  /**
   * `msg_<32 hex>`, from the upload itself: the same on every attempt and for a repeated complete
   * or check of the same upload, so receivers can drop duplicates.
   */
  readonly id: string
  readonly type: 'upload.completed'
  /** ISO 8601, when the upload was found complete. */
  readonly timestamp: string
  readonly data: UploadCompletedData
}

/** The one log line for an event a target never took. Never the URL, a secret or a signature. */
export interface NotifyFailure {
  readonly level: 'error'
  readonly message: 'upload notification failed'
  readonly eventId: string
  readonly origin: string
  readonly target: 'webhook' | 'queue'
  readonly attempts: number
  /** The webhook's last HTTP status, when it answered. */
  readonly status?: number
  /** `timeout` or `network` for a webhook that did not answer; the binding's message for a queue. */
  readonly error?: string
}

export interface NotifyDeps {
  readonly fetch?: typeof fetch
  readonly sleep?: (ms: number) => Promise<void>
  /** The time each webhook attempt is signed with. */
  readonly clock?: Clock
  readonly log?: (line: NotifyFailure) => void
}

/**
 * The `upload.completed` event for an upload, stamped `now`.
 *
 * @example
 * const event = uploadCompletedEvent(
 *   { origin: 'photos', key: 'a.jpg', size: 5, contentType: 'image/jpeg', etag: '"9a0…"',
 *     mode: 'put', principal, occurrence: 'Mon, 23 Nov 2026 12:00:00 GMT' },
 *   new Date(),
 * )
 * event.id // 'msg_0b6c…'
 */
export function uploadCompletedEvent(upload: CompletedUpload, now: Date): UploadCompletedEvent {
  const etag = upload.etag.replace(/^"(.*)"$/, '$1')
  const identity = [upload.origin, upload.key, etag, upload.occurrence]
  return Object.freeze({
    id: `msg_${sha256AsciiHex(identity.map(encodeURIComponent).join('\n')).slice(0, 32)}`,
    type: 'upload.completed',
    timestamp: now.toISOString(),
    data: Object.freeze({
      origin: upload.origin,
      key: upload.key,
      size: upload.size,
      contentType: upload.contentType,
      etag,
      mode: upload.mode,
      principal: principalName(upload.principal),
    }),
  })
}

/**
 * Delivers `event` to the webhook and the queue `notify` names (either, both or none), each with
 * its retries. Resolves once every target took the event or was given up on (one log line each);
 * never rejects.
 *
 * @example
 * c.executionCtx.waitUntil(notifyUploadCompleted(config.notify, event))
 */
export async function notifyUploadCompleted(
  notify: NotifyConfig,
  event: UploadCompletedEvent,
  deps: NotifyDeps = {},
): Promise<void> {
  const { webhook, queue } = notify
  const sleep = deps.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  const log = deps.log ?? ((line) => console.error(JSON.stringify(line)))
  const deliveries: Promise<Failure | undefined>[] = []
  if (webhook !== undefined) {
    const send = deps.fetch ?? ((input, init) => fetch(input, init))
    deliveries.push(
      guard('webhook', deliverWebhook(webhook, event, send, deps.clock ?? systemClock, sleep)),
    )
  }
  if (queue !== undefined) deliveries.push(guard('queue', deliverQueue(queue, event, sleep)))
  for (const failure of await Promise.all(deliveries)) {
    if (failure === undefined) continue
    try {
      log({
        level: 'error',
        message: 'upload notification failed',
        eventId: event.id,
        origin: event.data.origin,
        ...failure,
      })
    } catch {
      // A broken logger must not reject the waitUntil promise either.
    }
  }
}

type Failure = Pick<NotifyFailure, 'target' | 'attempts' | 'status' | 'error'>

/** Anything unforeseen (a signing bug, say) is a failure to log too, never a rejection. */
async function guard(
  target: Failure['target'],
  delivery: Promise<Failure | undefined>,
): Promise<Failure | undefined> {
  try {
    return await delivery
  } catch (error) {
    return { target, attempts: 0, error: describe(error) }
  }
}

type Attempt = { ok: true } | { ok: false; retry: boolean; status?: number; error?: string }

async function deliverWebhook(
  target: WebhookTarget,
  event: UploadCompletedEvent,
  send: typeof fetch,
  clock: Clock,
  sleep: (ms: number) => Promise<void>,
): Promise<Failure | undefined> {
  const body = JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data })
  for (let attempts = 1; ; attempts++) {
    const attempt = await postOnce(target, event.id, body, clock(), send)
    if (attempt.ok) return undefined
    const delay = WEBHOOK_RETRY_DELAYS_MS[attempts - 1]
    if (!attempt.retry || delay === undefined) {
      return { target: 'webhook', attempts, status: attempt.status, error: attempt.error }
    }
    await sleep(delay)
  }
}

/**
 * One POST. Each attempt is signed afresh with its own time: receivers refuse a `webhook-timestamp`
 * too far from their clock (five minutes in the reference libraries).
 */
async function postOnce(
  target: WebhookTarget,
  id: string,
  body: string,
  now: Date,
  send: typeof fetch,
): Promise<Attempt> {
  const headers = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': target.sign(id, now, body),
  }
  let response: Response
  try {
    response = await send(target.url, {
      method: 'POST',
      headers,
      body,
      // Not followed: a 301 or 302 turns the POST into a GET. The configured URL needs fixing.
      redirect: 'manual',
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    })
  } catch (error) {
    // AbortSignal.timeout rejects with a DOMException named TimeoutError.
    const timeout =
      typeof error === 'object' &&
      error !== null &&
      'name' in error &&
      error.name === 'TimeoutError'
    return { ok: false, retry: true, error: timeout ? 'timeout' : 'network' }
  }
  // Only the status matters; cancelling the body lets workerd reuse the connection.
  await response.body?.cancel().catch(() => undefined)
  if (response.ok) return { ok: true }
  const { status } = response
  return { ok: false, retry: status === 408 || status === 429 || status >= 500, status }
}

async function deliverQueue(
  queue: UploadQueue,
  event: UploadCompletedEvent,
  sleep: (ms: number) => Promise<void>,
): Promise<Failure | undefined> {
  for (let attempts = 1; ; attempts++) {
    try {
      // JSON rather than the default V8 serialization: HTTP pull consumers can read it too.
      await queue.send(event, { contentType: 'json' })
      return undefined
    } catch (error) {
      const delay = QUEUE_RETRY_DELAYS_MS[attempts - 1]
      if (delay === undefined) return { target: 'queue', attempts, error: describe(error) }
      await sleep(delay)
    }
  }
}

function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return text.slice(0, NOTIFY_MAX_ERROR_CHARS)
}
