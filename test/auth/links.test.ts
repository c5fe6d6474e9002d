// Link tokens: the tag is plain HMAC-SHA256 (checked against Web Crypto, for short, long and
// non-ASCII secrets), and verification tells a good token from a tampered, foreign or broken one.

import { describe, expect, it } from 'vitest'
import { principalHash, signLink, verifyLink, type LinkPayload } from '../../src/auth/links'
import { base64UrlDecode, base64UrlEncode } from '../../src/core/base64url'
import { sha256 } from '../hex'

const PAYLOAD: LinkPayload = {
  o: 'photos',
  k: 'a/ü b.jpg',
  e: 1_900_000_000,
  i: 1_800_000_000,
  p: 'x',
}

async function webCryptoTag(secret: string, message: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(message))
  return new Uint8Array(mac, 0, 16)
}

describe('signLink', () => {
  it.each([
    ['a 32-character secret', 'link-test-secret-0123456789abcdef'],
    ['a secret longer than an HMAC block', 's'.repeat(150)],
    ['a non-ASCII secret', 'пароль-ключ-🔑-0123456789-abcdefghij'],
  ])('tags with HMAC-SHA256 of the purpose, id and body under %s', async (_, secret) => {
    const token = signLink([{ id: 'k1', secret }], PAYLOAD)
    const [id, body, tag] = token.split('.') as [string, string, string]
    expect(id).toBe('k1')
    expect(base64UrlDecode(tag)).toEqual(
      await webCryptoTag(secret, `waybill-link-v1.k1.k1.${body}`),
    )
    expect(verifyLink([{ id: 'k1', secret }], token)).toEqual({ payload: PAYLOAD })
  })
})

describe('verifyLink', () => {
  const secrets = [
    { id: 'new', secret: 'the-new-link-secret-0123456789abcdef' },
    { id: 'old', secret: 'the-old-link-secret-0123456789abcdef' },
  ]
  const token = signLink(secrets, PAYLOAD)
  const [, body, tag] = token.split('.') as [string, string, string]

  it('checks a token under any configured secret, by its id', () => {
    expect(verifyLink(secrets, token)).toEqual({ payload: PAYLOAD })
    const old = signLink([secrets[1]!], PAYLOAD)
    expect(verifyLink(secrets, old)).toEqual({ payload: PAYLOAD })
    expect(verifyLink([secrets[0]!], old)).toEqual({ fault: 'unknown_secret' })
  })

  it('refuses a token with its payload, tag or secret id changed', () => {
    const other = base64UrlEncode(new TextEncoder().encode(JSON.stringify({ ...PAYLOAD, k: 'b' })))
    expect(verifyLink(secrets, `new.${other}.${tag}`)).toEqual({ fault: 'tampered' })
    const flipped = `${tag.slice(0, -1)}${tag.endsWith('A') ? 'B' : 'A'}`
    expect(verifyLink(secrets, `new.${body}.${flipped}`)).toEqual({ fault: 'tampered' })
    expect(verifyLink(secrets, `old.${body}.${tag}`)).toEqual({ fault: 'tampered' })
    expect(verifyLink(secrets, `new.${body}x.${tag}`)).toEqual({ fault: 'tampered' })
    // Not the shape of a link at all: a link waybill did not issue.
    expect(verifyLink(secrets, `new.${body}.${tag}!`)).toEqual({ fault: 'malformed' })
  })

  it('accepts only the canonical spelling of a tag (no second text for the same link)', () => {
    // The tag's last character carries 4 bits past its 16 bytes; a lenient decoder reads the
    // next character of the alphabet as the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const last = tag.at(-1)!
    const alternate = `${tag.slice(0, -1)}${alphabet[alphabet.indexOf(last) + 1]}`
    expect(atob(alternate.replace(/-/g, '+').replace(/_/g, '/'))).toBe(
      atob(tag.replace(/-/g, '+').replace(/_/g, '/')),
    )
    expect(verifyLink(secrets, `new.${body}.${alternate}`)).toEqual({ fault: 'tampered' })
  })

  it('calls a token of the wrong shape, or a tagged payload that is not one, malformed', async () => {
    expect(verifyLink(secrets, 'new.abc')).toEqual({ fault: 'malformed' })
    expect(verifyLink(secrets, `${token}.x`)).toEqual({ fault: 'malformed' })
    // Correctly tagged, but not a link's payload: not UTF-8, not JSON, JSON of another shape.
    for (const bytes of [
      new Uint8Array([0xff, 0xfe]),
      new TextEncoder().encode('{"o":'),
      new TextEncoder().encode(JSON.stringify({ ...PAYLOAD, e: 'tomorrow' })),
    ]) {
      const encoded = base64UrlEncode(bytes)
      const mac = await webCryptoTag(secrets[0]!.secret, `waybill-link-v1.new.new.${encoded}`)
      expect(verifyLink(secrets, `new.${encoded}.${base64UrlEncode(mac)}`)).toEqual({
        fault: 'malformed',
      })
    }
  })
})

describe('principalHash', () => {
  it('is the first 8 bytes of the SHA-256 of the caller, base64url', async () => {
    expect(principalHash('jwt:alice')).toBe(
      base64UrlEncode((await sha256('jwt:alice')).subarray(0, 8)),
    )
    expect(principalHash('jwt:alice')).not.toBe(principalHash('jwt:bob'))
  })
})
