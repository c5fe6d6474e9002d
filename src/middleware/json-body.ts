import type { Context, Env } from 'hono'
import { createMiddleware } from 'hono/factory'
import { MAX_JSON_VALUES, MAX_SMALL_BODY_BYTES } from '../limits'
import { WaybillError, invalid } from '../errors'
import { readCapped } from '../http/read-capped'

/** Bytes, and JSON values (members and elements), a body may hold. */
export interface BodyLimits {
  bytes: number
  values: number
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/**
 * True when `text` holds at most `limit` JSON values, counted as the separators outside strings
 * (every member and element but the first of each container has one). Stops at the limit, so the
 * count costs little even for a hostile body, and a body that would parse into millions of
 * members or elements is refused before `JSON.parse` builds them.
 */
function withinValueLimit(text: string, limit: number): boolean {
  let count = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if ((c === 0x2c || c === 0x3a) && ++count > limit) return false
  }
  return true
}

/**
 * Reads a JSON request body: 415 unless the Content-Type is JSON, 413 past `limits.bytes` (checked
 * on the declared length and again while reading: a chunked body declares none, and a declared
 * one may be false), 400 for more than `limits.values` values or anything that does not parse.
 */
async function readJsonBody(
  c: Context,
  limits: BodyLimits = { bytes: MAX_SMALL_BODY_BYTES, values: MAX_JSON_VALUES },
): Promise<unknown> {
  const limitBytes = limits.bytes
  const type = c.req.header('content-type')
  if (type === undefined || !JSON_TYPE.test(type)) {
    throw new WaybillError(
      'unsupported_media_type',
      'Send the body as JSON (Content-Type: application/json).',
      {
        errors: [{ path: 'Content-Type', message: 'must be application/json' }],
      },
    )
  }
  const tooLarge = () =>
    new WaybillError('payload_too_large', `The body must be at most ${limitBytes} bytes.`, {
      errors: [{ path: 'body', message: `must be at most ${limitBytes} bytes` }],
    })
  const declared = c.req.header('content-length')
  if (declared !== undefined && Number(declared) > limitBytes) throw tooLarge()

  const bytes = await readCapped(c.req.raw.body, limitBytes)
  if (bytes === undefined) throw tooLarge()
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    throw invalid([{ path: 'body', message: 'is not valid UTF-8' }])
  }
  if (text.trim() === '') throw invalid([{ path: 'body', message: 'is empty; send a JSON object' }])
  // Each separator is a character, so a text no longer than the limit is within it: no scan.
  if (text.length > limits.values && !withinValueLimit(text, limits.values)) {
    throw invalid([
      {
        path: 'body',
        message: `holds more than ${limits.values} values, more than any request of this kind needs`,
      },
    ])
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    const reason = error instanceof SyntaxError ? `: ${error.message}` : ''
    throw invalid([{ path: 'body', message: `is not valid JSON${reason}` }])
  }
}

/**
 * Reads the JSON body as `readJsonBody` does and hands it to the route's validator (which reads
 * it through `c.req.json()`). Not Hono's `bodyLimit`: it stops a chunked body, but believes a
 * declared Content-Length, and workerd delivers a longer body behind one (test/middleware/json-body.test.ts).
 */
export function jsonBody<E extends Env = Env>(
  limits?: BodyLimits | ((c: Context<E>) => BodyLimits),
) {
  return createMiddleware<E>(async function jsonBody(c, next) {
    const value = await readJsonBody(c, typeof limits === 'function' ? limits(c) : limits)
    c.req.bodyCache.json = Promise.resolve(value)
    await next()
  })
}
