import { describe, expect, it } from 'vitest'
import { HmacSha256, sha256AsciiHex } from '../../../src/core/sigv4/sha256'

const toHex = (buffer: ArrayBuffer) =>
  [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('')

async function webSha256(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))
}

async function webHmac(key: Uint8Array, text: string): Promise<string> {
  const imported = await crypto.subtle.importKey(
    'raw',
    key,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  return toHex(await crypto.subtle.sign('HMAC', imported, new TextEncoder().encode(text)))
}

/** Deterministic printable ASCII of a given length. */
function ascii(length: number, seed: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += String.fromCharCode(32 + ((i * 31 + seed * 17) % 95))
  return out
}

describe('sha256AsciiHex', () => {
  it('matches the FIPS 180-4 examples', () => {
    expect(sha256AsciiHex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
    expect(sha256AsciiHex('')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    )
    expect(sha256AsciiHex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    )
  })

  it('equals Web Crypto for every length across block and padding boundaries', async () => {
    for (let length = 0; length <= 300; length++) {
      const text = ascii(length, length)
      expect(sha256AsciiHex(text), `length ${length}`).toBe(await webSha256(text))
    }
  })
})

describe('HmacSha256', () => {
  it('matches RFC 4231 test cases 1 and 2', () => {
    expect(new HmacSha256(new Uint8Array(20).fill(0x0b)).signAsciiHex('Hi There')).toBe(
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    )
    expect(
      new HmacSha256(new TextEncoder().encode('Jefe')).signAsciiHex('what do ya want for nothing?'),
    ).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')
  })

  it('equals Web Crypto for keys of 8 to 64 bytes, with and without prefixes', async () => {
    for (let keyLength = 8; keyLength <= 64; keyLength += 8) {
      const key = Uint8Array.from({ length: keyLength }, (_, i) => (i * 37 + keyLength) & 0xff)
      const mac = new HmacSha256(key)
      for (const [prefixLength, messageLength] of [
        [0, 0],
        [0, 55],
        [0, 56],
        [0, 64],
        [66, 64],
        [64, 1],
        [127, 200],
      ] as const) {
        const prefix = ascii(prefixLength, 1)
        const message = ascii(messageLength, 2)
        const expected = await webHmac(key, prefix + message)
        expect(mac.withPrefix(prefix).signAsciiHex(message)).toBe(expected)
        expect(mac.signAsciiHex(prefix + message)).toBe(expected)
      }
    }
  })

  it('refuses keys longer than a block (SigV4 keys are 32 bytes)', () => {
    expect(() => new HmacSha256(new Uint8Array(65))).toThrow(RangeError)
  })
})
