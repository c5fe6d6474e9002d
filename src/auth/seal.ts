// Values waybill hands out and must get back unchanged (multipart upload handles, listing cursors).
// The payload travels with an HMAC-SHA256 tag keyed from the origin's S3 secret, one key per
// purpose, over the payload, the origin's name and what it is bound to (the caller, the key), so a
// caller can neither forge one, alter one, use another caller's, nor take one to another origin
// (origins may share credentials). Keys are imported once per origin and purpose.

import * as v from 'valibot'
import type { S3Origin } from '../config'
import { base64UrlDecode, base64UrlEncode } from '../core/base64url'
import { constantTimeEqual } from './api-key'

const TAG_BYTES = 16
const encoder = new TextEncoder()
const keys = new WeakMap<S3Origin, Map<string, Promise<CryptoKey>>>()

function keyFor(origin: S3Origin, purpose: string): Promise<CryptoKey> {
  let byPurpose = keys.get(origin)
  if (byPurpose === undefined) keys.set(origin, (byPurpose = new Map<string, Promise<CryptoKey>>()))
  let key = byPurpose.get(purpose)
  if (key === undefined) {
    key = (async () => {
      // HMAC(secret, label) as the key: apart from SigV4's own derivation, which keys with
      // "AWS4" + secret, and apart per purpose.
      const secret = await crypto.subtle.importKey(
        'raw',
        encoder.encode(origin.credentials.secretAccessKey),
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['sign'],
      )
      const derived = await crypto.subtle.sign(
        'HMAC',
        secret,
        encoder.encode(`waybill:${purpose}:v1`),
      )
      return crypto.subtle.importKey('raw', derived, { name: 'HMAC', hash: 'SHA-256' }, false, [
        'sign',
      ])
    })()
    byPurpose.set(purpose, key)
  }
  return key
}

async function tag(origin: S3Origin, purpose: string, payload: string, bound: string) {
  const mac = await crypto.subtle.sign(
    'HMAC',
    await keyFor(origin, purpose),
    encoder.encode(`${origin.name}\n${bound}\n${payload}`),
  )
  return new Uint8Array(mac, 0, TAG_BYTES)
}

/** `value` (as JSON) sealed for `purpose` on `origin`, bound to `bound` (which it does not carry). */
export async function seal(
  origin: S3Origin,
  purpose: string,
  value: unknown,
  bound: string,
): Promise<string> {
  const payload = JSON.stringify(value)
  const body = base64UrlEncode(encoder.encode(payload))
  return `${body}.${base64UrlEncode(await tag(origin, purpose, payload, bound))}`
}

/** The payload of a sealed value, read without checking its tag: only to describe a request. */
function peek(sealed: string): string | undefined {
  const dot = sealed.indexOf('.')
  const bytes = base64UrlDecode(dot < 0 ? sealed : sealed.slice(0, dot))
  if (bytes === undefined) return undefined
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    return undefined
  }
}

/**
 * The value `seal` sealed with the same origin, purpose and binding, and that `schema` accepts;
 * undefined for anything else.
 */
export async function unseal<const TSchema extends v.GenericSchema>(
  origin: S3Origin,
  purpose: string,
  sealed: string,
  bound: string,
  schema: TSchema,
): Promise<v.InferOutput<TSchema> | undefined> {
  const parts = sealed.split('.')
  if (parts.length !== 2) return undefined
  const payload = peek(sealed)
  const presented = base64UrlDecode(parts[1]!)
  if (payload === undefined || presented === undefined) return undefined
  const expected = await tag(origin, purpose, payload, bound)
  if (!constantTimeEqual(presented, expected)) return undefined
  let value: unknown
  try {
    value = JSON.parse(payload)
  } catch {
    return undefined
  }
  const result = v.safeParse(schema, value)
  return result.success ? result.output : undefined
}
