// Sealed tokens: the tag is plain HMAC-SHA256 (checked against Web Crypto, for short, long and
// non-ASCII secrets), and opening tells a good token from a tampered, foreign or broken one, or one
// sealed for another purpose or binding.

import { describe, expect, it } from 'vitest'
import { base64UrlDecode, base64UrlEncode } from '../../src/core/bytes'
import { conceal, openToken, reveal, sealToken } from '../../src/core/token'

const VALUE = { o: 'photos', k: 'a/ü b.jpg', e: 1_900_000_000 }

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

describe('sealToken', () => {
  it.each([
    ['a 32-character secret', 'link-test-secret-0123456789abcdef'],
    ['a secret longer than an HMAC block', 's'.repeat(150)],
    ['a non-ASCII secret', 'пароль-ключ-🔑-0123456789-abcdefghij'],
  ])('tags with HMAC-SHA256 of the purpose, id, body and binding under %s', async (_, secret) => {
    const secrets = [{ id: 'k1', secret }]
    const bare = sealToken(secrets, 'link', VALUE)
    const [id, body, tag] = bare.split('.') as [string, string, string]
    expect(id).toBe('k1')
    // The purpose, the format's version, the secret's id once, the payload.
    expect(base64UrlDecode(tag)).toEqual(await webCryptoTag(secret, `waybill-link-v2.k1.${body}`))
    const bound = sealToken(secrets, 'upload-receipt', VALUE, 'photos\napi-key:ünïcode')
    const [, boundBody, boundTag] = bound.split('.') as [string, string, string]
    expect(base64UrlDecode(boundTag)).toEqual(
      await webCryptoTag(
        secret,
        `waybill-upload-receipt-v2.k1.${boundBody}\nphotos\napi-key:ünïcode`,
      ),
    )
    expect(openToken(secrets, 'link', bare)).toEqual({ value: VALUE })
  })
})

describe('openToken', () => {
  const secrets = [
    { id: 'new', secret: 'the-new-token-secret-0123456789abcdef' },
    { id: 'old', secret: 'the-old-token-secret-0123456789abcdef' },
  ]
  const token = sealToken(secrets, 'link', VALUE)
  const [, body, tag] = token.split('.') as [string, string, string]

  it('opens a token under any listed secret, by its id', () => {
    expect(openToken(secrets, 'link', token)).toEqual({ value: VALUE })
    const old = sealToken([secrets[1]!], 'link', VALUE)
    expect(openToken(secrets, 'link', old)).toEqual({ value: VALUE })
    expect(openToken([secrets[0]!], 'link', old)).toEqual({ fault: 'unknown_secret' })
  })

  it('opens only for the purpose and binding it was sealed for', () => {
    const bound = sealToken(secrets, 'upload-handle', VALUE, 'photos\napi-key:alice\na.png')
    expect(openToken(secrets, 'upload-handle', bound, 'photos\napi-key:alice\na.png')).toEqual({
      value: VALUE,
    })
    expect(openToken(secrets, 'upload-receipt', bound, 'photos\napi-key:alice\na.png')).toEqual({
      fault: 'tampered',
    })
    for (const binding of ['photos\napi-key:bob\na.png', 'photos\napi-key:alice\nb.png', '']) {
      expect(openToken(secrets, 'upload-handle', bound, binding)).toEqual({ fault: 'tampered' })
    }
    expect(openToken(secrets, 'list-cursor', token)).toEqual({ fault: 'tampered' })
  })

  it('refuses a token with its payload, tag or secret id changed', () => {
    const other = base64UrlEncode(new TextEncoder().encode(JSON.stringify({ ...VALUE, k: 'b' })))
    expect(openToken(secrets, 'link', `new.${other}.${tag}`)).toEqual({ fault: 'tampered' })
    const flipped = `${tag.slice(0, -1)}${tag.endsWith('A') ? 'B' : 'A'}`
    expect(openToken(secrets, 'link', `new.${body}.${flipped}`)).toEqual({ fault: 'tampered' })
    expect(openToken(secrets, 'link', `old.${body}.${tag}`)).toEqual({ fault: 'tampered' })
    expect(openToken(secrets, 'link', `new.${body}x.${tag}`)).toEqual({ fault: 'tampered' })
    // Not the shape of a token at all.
    expect(openToken(secrets, 'link', `new.${body}.${tag}!`)).toEqual({ fault: 'malformed' })
  })

  it('accepts only the canonical spelling of a tag (no second text for the same token)', () => {
    // The tag's last character carries 4 bits past its 16 bytes; a lenient decoder reads the
    // next character of the alphabet as the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const last = tag.at(-1)!
    const alternate = `${tag.slice(0, -1)}${alphabet[alphabet.indexOf(last) + 1]}`
    expect(atob(alternate.replace(/-/g, '+').replace(/_/g, '/'))).toBe(
      atob(tag.replace(/-/g, '+').replace(/_/g, '/')),
    )
    expect(openToken(secrets, 'link', `new.${body}.${alternate}`)).toEqual({ fault: 'tampered' })
  })

  it('never opens under a binding whose characters share their low byte (UTF-8 is hashed)', () => {
    // 'Ł' is U+0141: a hasher taking char codes as bytes would see 'A' (0x41).
    const bindings = ['photos\napi-key:A', 'photos\napi-key:\u0141']
    for (const sealedFor of bindings) {
      const token = sealToken(secrets, 'upload-receipt', VALUE, sealedFor)
      for (const openedFor of bindings) {
        expect(openToken(secrets, 'upload-receipt', token, openedFor)).toEqual(
          sealedFor === openedFor ? { value: VALUE } : { fault: 'tampered' },
        )
      }
    }
  })

  it('calls a payload or tag with a character past ASCII malformed, whatever its low byte', () => {
    // Each character's low byte is the one it replaces: the token's bytes, read carelessly.
    const alias = (c: string) => String.fromCharCode(0x100 + c.charCodeAt(0))
    const inBody = `new.${alias(body[0]!)}${body.slice(1)}.${tag}`
    const inTag = `new.${body}.${tag.slice(0, -1)}${alias(tag.at(-1)!)}`
    for (const broken of [inBody, inTag]) {
      expect(openToken(secrets, 'link', broken)).toEqual({ fault: 'malformed' })
    }
  })

  it('calls a token with a fourth part, or a payload past 8 KiB, malformed', () => {
    expect(openToken(secrets, 'link', `${token}.`)).toEqual({ fault: 'malformed' })
    expect(openToken(secrets, 'link', `new.${body}.${tag}.${tag}`)).toEqual({ fault: 'malformed' })
    const long = sealToken(secrets, 'link', { pad: 'x'.repeat(7000) })
    expect(long.split('.')[1]!.length).toBeGreaterThan(8192)
    expect(openToken(secrets, 'link', long)).toEqual({ fault: 'malformed' })
    const fits = sealToken(secrets, 'link', { pad: 'x'.repeat(6000) })
    expect(openToken(secrets, 'link', fits)).toEqual({ value: { pad: 'x'.repeat(6000) } })
  })

  it('calls a token of the wrong shape, or a tagged payload that is not JSON, malformed', async () => {
    expect(openToken(secrets, 'link', 'new.abc')).toEqual({ fault: 'malformed' })
    expect(openToken(secrets, 'link', `${token}.x`)).toEqual({ fault: 'malformed' })
    for (const bytes of [new Uint8Array([0xff, 0xfe]), new TextEncoder().encode('{"o":')]) {
      const encoded = base64UrlEncode(bytes)
      const mac = await webCryptoTag(secrets[0]!.secret, `waybill-link-v2.new.${encoded}`)
      expect(openToken(secrets, 'link', `new.${encoded}.${base64UrlEncode(mac)}`)).toEqual({
        fault: 'malformed',
      })
    }
  })
})

describe('conceal and reveal', () => {
  const secrets = [
    { id: 'k2', secret: 'the-second-secret-0123456789abcdef' },
    { id: 'k1', secret: 'the-first-secret-0123456789abcdefg' },
  ]

  it('XOR the text with HMAC-SHA256 blocks of the label under the named secret', async () => {
    // Over one block (32 bytes), and non-ASCII: the keystream is checked against Web Crypto.
    const text = 'a key id of more than thirty-two bytes, ü'
    const hidden = conceal(secrets, 'k1', 'link-issuer.abc', text)!
    const bytes = new TextEncoder().encode(text)
    const block = async (n: number) => {
      const key = await crypto.subtle.importKey(
        'raw',
        new TextEncoder().encode(secrets[1]!.secret),
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['sign'],
      )
      const message = new TextEncoder().encode(`waybill-conceal-v1.link-issuer.abc.${n}`)
      return new Uint8Array(await crypto.subtle.sign('HMAC', key, message))
    }
    const stream = new Uint8Array([...(await block(0)), ...(await block(1))])
    expect(base64UrlDecode(hidden)).toEqual(bytes.map((b, i) => b ^ stream[i]!))
    expect(reveal(secrets, 'k1', 'link-issuer.abc', hidden)).toBe(text)
  })

  it('never reveals under another label or secret, nor for a secret no longer listed', () => {
    const hidden = conceal(secrets, 'k2', 'one', 'web')!
    expect(reveal(secrets, 'k2', 'two', hidden)).not.toBe('web')
    expect(reveal(secrets, 'k1', 'one', hidden)).not.toBe('web')
    expect(conceal(secrets, 'gone', 'one', 'web')).toBeUndefined()
    expect(reveal(secrets, 'gone', 'one', hidden)).toBeUndefined()
    expect(reveal(secrets, 'k2', 'one', 'not base64url!')).toBeUndefined()
  })
})
