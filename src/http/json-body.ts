import type { Context } from 'hono'
import { MAX_BODY_BYTES } from '../constants'
import { WaybillError, invalid } from '../errors'
import { readCapped } from '../streams'

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

/**
 * Reads a JSON request body: 415 unless the Content-Type is JSON, 413 past `MAX_BODY_BYTES` (checked
 * on the declared length and again while reading, since a chunked body declares none), 400 for
 * anything that does not parse.
 */
export async function readJsonBody(c: Context, limitBytes = MAX_BODY_BYTES): Promise<unknown> {
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
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    throw invalid([{ path: 'body', message: 'is not valid UTF-8' }])
  }
  if (text.trim() === '') throw invalid([{ path: 'body', message: 'is empty; send a JSON object' }])
  try {
    return JSON.parse(text)
  } catch (error) {
    const reason = error instanceof SyntaxError ? `: ${error.message}` : ''
    throw invalid([{ path: 'body', message: `is not valid JSON${reason}` }])
  }
}
