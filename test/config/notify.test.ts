import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import { parseNotify, type NotifyConfig } from '../../src/config/notify'

// Fresh for each run: 32 random bytes.
const SECRET = `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`
const URL_ = 'https://receiver.test/waybill?token=receiverToken123'

const queue = { send: () => Promise.resolve({}) }

function ok(env: Env): NotifyConfig {
  const result = parseNotify(env)
  if (!result.ok) throw new Error(`expected a valid config: ${JSON.stringify(result.errors)}`)
  return result.value
}

/** The errors of an invalid config, after checking no secret (or the URL's token) leaked. */
function errors(env: Env): Record<string, string> {
  const result = parseNotify(env)
  if (result.ok) throw new Error('expected an invalid config')
  const text = JSON.stringify(result)
  for (const value of Object.values(env)) {
    if (typeof value === 'string' && value.length > 8) expect(text).not.toContain(value)
  }
  expect(text).not.toContain('receiverToken123')
  return Object.fromEntries(result.errors.map((e) => [e.path, e.message]))
}

describe('valid configurations', () => {
  it('is off when nothing is set, or only blanks', () => {
    expect(ok({})).toEqual({ webhook: undefined, queue: undefined })
    expect(
      ok({ WAYBILL_WEBHOOK_URL: '', WAYBILL_WEBHOOK_SECRET: ' ', WAYBILL_UPLOAD_QUEUE: '' }),
    ).toEqual({ webhook: undefined, queue: undefined })
  })

  it('takes an https URL and its secret, and signs as the package verifies', () => {
    const config = ok({ WAYBILL_WEBHOOK_URL: URL_, WAYBILL_WEBHOOK_SECRET: SECRET })
    expect(config.webhook?.url).toBe(URL_)
    expect(config.queue).toBeUndefined()
    expect(Object.isFrozen(config)).toBe(true)
    expect(Object.isFrozen(config.webhook)).toBe(true)
    // The secret is in no field: serializing the config cannot reveal it.
    expect(JSON.stringify(config)).not.toContain(SECRET.slice('whsec_'.length, 20))

    const now = new Date()
    const body = '{"type":"upload.completed"}'
    const signature = config.webhook!.sign('msg_1', now, body)
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    }
    expect(new Webhook(SECRET).verify(body, headers)).toEqual({ type: 'upload.completed' })
  })

  it('signs as the package verifies: UTF-8 bodies, and keys longer than a hash block', () => {
    // 100 bytes: HMAC hashes a key longer than 64 bytes first (RFC 2104).
    const long = `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(100))))}`
    for (const secret of [SECRET, long]) {
      const config = ok({ WAYBILL_WEBHOOK_URL: URL_, WAYBILL_WEBHOOK_SECRET: secret })
      const now = new Date()
      const body = JSON.stringify({ type: 'upload.completed', data: { key: 'été/写真 🎞.jpg' } })
      const headers = {
        'webhook-id': 'msg_utf8',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': config.webhook!.sign('msg_utf8', now, body),
      }
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
      expect(() => new Webhook(secret).verify(body.replace('été', 'ete'), headers)).toThrow()
    }
  })

  it('accepts plain http for loopback hosts only, and trims the values', () => {
    for (const url of ['http://127.0.0.1:8787/hook', 'http://localhost/hook', 'http://[::1]:9/']) {
      const config = ok({ WAYBILL_WEBHOOK_URL: ` ${url}\n`, WAYBILL_WEBHOOK_SECRET: `${SECRET}\n` })
      expect(config.webhook?.url).toBe(url)
    }
  })

  it('takes a queue binding, alone or with the webhook, and keeps the binding itself', () => {
    expect(ok({ WAYBILL_UPLOAD_QUEUE: queue }).queue).toBe(queue)
    const both = ok({
      WAYBILL_WEBHOOK_URL: URL_,
      WAYBILL_WEBHOOK_SECRET: SECRET,
      WAYBILL_UPLOAD_QUEUE: queue,
    })
    expect(both.queue).toBe(queue)
    expect(both.webhook?.url).toBe(URL_)
  })

  it('accepts a secret of exactly 24 bytes', () => {
    const secret = `whsec_${btoa('x'.repeat(24))}`
    expect(ok({ WAYBILL_WEBHOOK_URL: URL_, WAYBILL_WEBHOOK_SECRET: secret }).webhook).toBeDefined()
  })
})

describe('refused configurations', () => {
  it('refuses what is not an http(s) URL, naming the variable', () => {
    for (const url of ['receiver.test', 'ftp://receiver.test/', 'https://', 42]) {
      expect(errors({ WAYBILL_WEBHOOK_URL: url, WAYBILL_WEBHOOK_SECRET: SECRET })).toEqual({
        WAYBILL_WEBHOOK_URL: 'must be an https URL, such as "https://hooks.example.com/waybill"',
      })
    }
  })

  it('refuses plain http to anything but loopback', () => {
    for (const url of [
      'http://receiver.test/waybill?token=receiverToken123',
      'http://10.0.0.1/',
      'http://127.0.0.2/',
      'http://localhost.example.com/',
    ]) {
      expect(errors({ WAYBILL_WEBHOOK_URL: url, WAYBILL_WEBHOOK_SECRET: SECRET })).toEqual({
        WAYBILL_WEBHOOK_URL: 'must use https (plain http only for 127.0.0.1, localhost or [::1])',
      })
    }
  })

  it('refuses credentials in the URL without repeating them', () => {
    expect(
      errors({
        WAYBILL_WEBHOOK_URL: 'https://user:receiverToken123@receiver.test/',
        WAYBILL_WEBHOOK_SECRET: SECRET,
      }),
    ).toEqual({
      WAYBILL_WEBHOOK_URL:
        'must not hold a user name or password (the signature authenticates the webhook)',
    })
  })

  it('requires the secret with the URL', () => {
    expect(errors({ WAYBILL_WEBHOOK_URL: URL_ })).toEqual({
      WAYBILL_WEBHOOK_SECRET:
        'is required when WAYBILL_WEBHOOK_URL is set (wrangler secret put WAYBILL_WEBHOOK_SECRET)',
    })
    expect(errors({ WAYBILL_WEBHOOK_URL: URL_, WAYBILL_WEBHOOK_SECRET: '' })).toHaveProperty(
      'WAYBILL_WEBHOOK_SECRET',
    )
  })

  it('refuses a secret without the URL, valid or not', () => {
    for (const secret of [SECRET, 'whsec_short', 'not-a-whsec-secret-at-all']) {
      expect(errors({ WAYBILL_WEBHOOK_SECRET: secret })).toEqual({
        WAYBILL_WEBHOOK_SECRET: 'is set but WAYBILL_WEBHOOK_URL is not: set both, or neither',
      })
    }
  })

  it('refuses malformed and short secrets without echoing them', () => {
    const message =
      'must be "whsec_" then the base64 of at least 24 random bytes ' +
      '(for instance "whsec_" and the output of `openssl rand -base64 32`)'
    for (const secret of [
      SECRET.slice('whsec_'.length), // no prefix
      `whsec_${btoa('y'.repeat(23))}`, // 23 bytes
      `whsec_${btoa('y'.repeat(32)).replace(/=+$/, '')}`, // unpadded
      `whsec_${btoa('y'.repeat(32)).replace(/\+|\//g, '-')}_-`, // base64url
      'whsec_secret with spaces and more than enough characters',
      'WHSEC_zwEFT5tqc5XymJlV4JLWbi9wEDDZXDZJpVnjs+O5098=',
      12345678901234567890,
    ]) {
      expect(errors({ WAYBILL_WEBHOOK_URL: URL_, WAYBILL_WEBHOOK_SECRET: secret })).toEqual({
        WAYBILL_WEBHOOK_SECRET: message,
      })
    }
  })

  it('refuses a queue binding that is not a queue', () => {
    const message = (type: string) =>
      'must be a Queue producer binding (wrangler.jsonc: "queues": { "producers": [{ "binding": ' +
      `"WAYBILL_UPLOAD_QUEUE", "queue": "…" }] }), not ${type}`
    expect(errors({ WAYBILL_UPLOAD_QUEUE: 'uploads' })).toEqual({
      WAYBILL_UPLOAD_QUEUE: message('a string'),
    })
    expect(errors({ WAYBILL_UPLOAD_QUEUE: { send: 'yes' } })).toEqual({
      WAYBILL_UPLOAD_QUEUE: message('an object without a send() function'),
    })
    expect(errors({ WAYBILL_UPLOAD_QUEUE: [] })).toEqual({
      WAYBILL_UPLOAD_QUEUE: message('an array'),
    })
  })

  it('reports every variable at once', () => {
    expect(
      errors({
        WAYBILL_WEBHOOK_URL: 'http://receiver.test/',
        WAYBILL_UPLOAD_QUEUE: 7,
      }),
    ).toEqual({
      WAYBILL_WEBHOOK_URL: expect.stringContaining('must use https') as unknown,
      WAYBILL_WEBHOOK_SECRET: expect.stringContaining('is required') as unknown,
      WAYBILL_UPLOAD_QUEUE: expect.stringContaining('not a number') as unknown,
    })
  })
})
