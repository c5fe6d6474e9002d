// Upload notifications: where waybill tells others that an upload finished (src/services/notify.ts).
//
//   WAYBILL_WEBHOOK_URL (a var): https://hooks.example.com/waybill. Events are POSTed there, signed
//     per Standard Webhooks (https://www.standardwebhooks.com/). Plain http is accepted for
//     127.0.0.1, localhost and [::1] only, for local testing.
//   WAYBILL_WEBHOOK_SECRET (a secret): whsec_<base64 of 24 or more random bytes>. Required with the
//     URL, refused without it.
//   WAYBILL_UPLOAD_QUEUE (a Queue producer binding): events are sent there too.
// None set: no notifications.

import * as v from 'valibot'
import { base64Decode, base64Encode } from '../core/bytes'
import { HmacSha256 } from '../core/sigv4/sha256'
import { MIN_WEBHOOK_SECRET_BYTES } from '../limits'
import type { FieldError } from '../errors'
import { fieldErrors, isRecord, typeName } from '../schemas/valibot'
import type { Env } from '../env'

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])
// Padded standard base64 only, as the Standard Webhooks libraries' decoders (@stablelib/base64) take it.
const WEBHOOK_SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/

/** Where the webhook goes, and how one attempt is signed. */
export interface WebhookTarget {
  readonly url: string
  /**
   * The `webhook-signature` header for one attempt (`v1,<base64>`). A closure over the key, so no
   * field holds the secret for a log line or JSON.stringify to reveal.
   */
  readonly sign: (id: string, timestamp: Date, body: string) => string
}

/** The part of a Queue producer binding waybill uses. */
export type UploadQueue = Pick<Queue, 'send'>

export interface NotifyConfig {
  readonly webhook?: WebhookTarget | undefined
  readonly queue?: UploadQueue | undefined
}

/** A variable that is absent or blank, as wrangler leaves an unset var or `.dev.vars` entry. */
function blank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
}

/** An optional variable: absent and blank reach `read` as `undefined`. */
function optional<TOutput>(
  read: (value: unknown, refuse: (message: string) => undefined) => TOutput | undefined,
) {
  return v.pipe(
    // The default makes v.object run this for an absent variable too.
    v.optional(v.unknown(), ''),
    v.rawTransform(({ dataset: { value }, addIssue, NEVER }): TOutput | undefined => {
      if (blank(value)) return undefined
      let refused = false
      const output = read(value, (message) => {
        refused = true
        addIssue({ message })
        return undefined
      })
      return refused ? NEVER : output
    }),
  )
}

const urlMessage = 'must be an https URL, such as "https://hooks.example.com/waybill"'

// The URL may carry a receiver's token in its query, so messages never repeat it.
const WebhookUrl = optional((value, refuse) => {
  const url = typeof value === 'string' ? URL.parse(value.trim()) : null
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    return refuse(urlMessage)
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return refuse('must use https (plain http only for 127.0.0.1, localhost or [::1])')
  }
  if (url.username !== '' || url.password !== '') {
    return refuse('must not hold a user name or password (the signature authenticates the webhook)')
  }
  return url.href
})

const secretMessage =
  `must be "whsec_" then the base64 of at least ${MIN_WEBHOOK_SECRET_BYTES} random bytes ` +
  '(for instance "whsec_" and the output of `openssl rand -base64 32`)'

/** WAYBILL_WEBHOOK_SECRET, read only when the URL is set; its value is never part of a message. */
function webhookSecret(urlSet: boolean) {
  return v.pipe(
    v.optional(v.unknown(), ''),
    v.rawTransform(({ dataset: { value }, addIssue, NEVER }): WebhookTarget['sign'] | undefined => {
      if (blank(value)) {
        if (!urlSet) return undefined
        addIssue({
          message:
            'is required when WAYBILL_WEBHOOK_URL is set (wrangler secret put WAYBILL_WEBHOOK_SECRET)',
        })
        return NEVER
      }
      if (!urlSet) {
        addIssue({ message: 'is set but WAYBILL_WEBHOOK_URL is not: set both, or neither' })
        return NEVER
      }
      const base64 = typeof value === 'string' ? WEBHOOK_SECRET.exec(value.trim())?.[1] : undefined
      const secret = base64 === undefined ? undefined : base64Decode(base64)
      if (secret === undefined || secret.length < MIN_WEBHOOK_SECRET_BYTES) {
        addIssue({ message: secretMessage })
        return NEVER
      }
      // One key per isolate: decoded, and its HMAC pads compressed, here, never per event.
      const mac = new HmacSha256(secret)
      const encoder = new TextEncoder()
      // The spec's signature: base64 of the HMAC of `<id>.<unix seconds>.<body>`, in UTF-8.
      return (id, timestamp, body) => {
        const seconds = Math.floor(timestamp.getTime() / 1000)
        const tag = mac.signBytes(encoder.encode(`${id}.${seconds}.${body}`))
        return `v1,${base64Encode(tag)}`
      }
    }),
  )
}

const UploadQueue = optional((value, refuse): UploadQueue | undefined => {
  if (isRecord(value) && typeof value.send === 'function') return value as UploadQueue
  const found = isRecord(value) ? 'an object without a send() function' : typeName(value)
  return refuse(
    'must be a Queue producer binding (wrangler.jsonc: "queues": { "producers": [{ "binding": ' +
      `"WAYBILL_UPLOAD_QUEUE", "queue": "…" }] }), not ${found}`,
  )
})

/**
 * The notification variables of `env`, becoming a frozen NotifyConfig. Each problem is filed under
 * its variable's name.
 *
 * @example
 * const notify = v.safeParse(notifySchema(env), env)
 * if (notify.success) notify.output.webhook?.url // 'https://hooks.example.com/waybill'
 */
export function notifySchema(env: Env) {
  return v.pipe(
    v.object({
      WAYBILL_WEBHOOK_URL: WebhookUrl,
      WAYBILL_WEBHOOK_SECRET: webhookSecret(!blank(env.WAYBILL_WEBHOOK_URL)),
      WAYBILL_UPLOAD_QUEUE: UploadQueue,
    }),
    v.transform((vars): NotifyConfig => {
      const url = vars.WAYBILL_WEBHOOK_URL
      const sign = vars.WAYBILL_WEBHOOK_SECRET
      return Object.freeze({
        webhook: url === undefined || sign === undefined ? undefined : Object.freeze({ url, sign }),
        // A binding, not data: left as workerd made it.
        queue: vars.WAYBILL_UPLOAD_QUEUE,
      })
    }),
  )
}

/**
 * Parses the notification variables alone (the full config parse includes them).
 *
 * @example
 * const result = parseNotify({ WAYBILL_WEBHOOK_URL: 'https://hooks.example.com/waybill' })
 * // { ok: false, errors: [{ path: 'WAYBILL_WEBHOOK_SECRET', message: 'is required when …' }] }
 */
export function parseNotify(
  env: Env,
): { ok: true; value: NotifyConfig } | { ok: false; errors: FieldError[] } {
  const result = v.safeParse(notifySchema(env), env)
  return result.success
    ? { ok: true, value: result.output }
    : { ok: false, errors: fieldErrors(result.issues) }
}
