// base64 and base64url encodings checked against RFC 4648's vectors and an independent reference
// (btoa over a binary string), for both the runtime's own encoder (workerd: bytes.test.ts) and the
// fallback where a runtime lacks it (Node 24: bytes.node.test.ts); and the one base64url decoder,
// strict, against a reference that accepts a text only when re-encoding gives it back.

import { describe, expect, it } from 'vitest'
import { base64Encode, base64UrlDecode, base64UrlEncode } from '../../src/core/bytes'

const text = (value: string) => new TextEncoder().encode(value)

function reference(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/**
 * The bytes of `text` when it is the canonical base64url of some bytes: atob (which also takes
 * whitespace, padding and stray bits), then accepted only if btoa's text, made url-safe and
 * unpadded, is `text` again.
 */
function referenceDecode(text: string): Uint8Array | undefined {
  if (/[+/=]/.test(text)) return undefined
  let binary: string
  try {
    binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'))
  } catch {
    return undefined
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0))
  const again = reference(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
  return again === text ? bytes : undefined
}

export function describeBase64(runtime: string) {
  describe(`base64 encoding (${runtime})`, () => {
    it("writes RFC 4648's vectors", () => {
      const vectors: [string, string, string][] = [
        ['', '', ''],
        ['f', 'Zg==', 'Zg'],
        ['fo', 'Zm8=', 'Zm8'],
        ['foo', 'Zm9v', 'Zm9v'],
        ['foob', 'Zm9vYg==', 'Zm9vYg'],
        ['fooba', 'Zm9vYmE=', 'Zm9vYmE'],
        ['foobar', 'Zm9vYmFy', 'Zm9vYmFy'],
      ]
      for (const [plain, padded, url] of vectors) {
        expect(base64Encode(text(plain)), plain).toBe(padded)
        expect(base64UrlEncode(text(plain)), plain).toBe(url)
      }
      // The two characters the alphabets differ in, and padding.
      expect(base64Encode(new Uint8Array([0xfb, 0xff]))).toBe('+/8=')
      expect(base64UrlEncode(new Uint8Array([0xfb, 0xff]))).toBe('-_8')
    })

    it('agrees with btoa for every length and byte value', () => {
      for (let n = 0; n <= 300; n++) {
        const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 151 + n * 7) & 0xff)
        const padded = reference(bytes)
        expect(base64Encode(bytes)).toBe(padded)
        const url = padded.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
        expect(base64UrlEncode(bytes)).toBe(url)
        expect(base64UrlDecode(url)).toEqual(bytes)
      }
    })

    it('decodes only the canonical spelling', () => {
      // [1] is "AQ"; "AR" to "AZ" carry the same first byte with stray low bits.
      expect(base64UrlDecode('AQ')).toEqual(new Uint8Array([1]))
      for (const text of ['AR', 'AB', 'AQ=', 'A', 'A+Q', 'A/Q', 'AQ.', ' AQ', 'A Q', 'AQ\n']) {
        expect(base64UrlDecode(text), text).toBeUndefined()
      }
      // Three characters: two bytes and two stray bits, which must be zero.
      expect(base64UrlDecode('AQE')).toEqual(new Uint8Array([1, 1]))
      expect(base64UrlDecode('AQF')).toBeUndefined()
      // A character past ASCII whose low byte (or low seven bits) is a letter of the alphabet.
      for (const text of ['A\u0151', 'A\u00d1', '\u0141Q', 'AQ\u4151', 'AAAA\u{1F600}']) {
        expect(base64UrlDecode(text), text).toBeUndefined()
      }
    })

    it('decodes as the reference does, for every text of up to five characters from a mixed set', () => {
      // The alphabet's edges and neighbours, padding, space, and characters past ASCII.
      const chars = [...'AQw_-9/=. ', '\u0141', '\u00c1']
      const texts = ['']
      for (let length = 1; length <= 5; length++) {
        for (const head of texts.filter((t) => t.length === length - 1)) {
          for (const c of chars) texts.push(head + c)
        }
      }
      let accepted = 0
      const disagreements: string[] = []
      for (const text of texts) {
        const expected = referenceDecode(text)
        const got = base64UrlDecode(text)
        const same =
          expected === undefined
            ? got === undefined
            : got !== undefined && got.join() === expected.join()
        if (!same) disagreements.push(JSON.stringify(text))
        if (expected !== undefined) accepted++
      }
      expect(disagreements).toEqual([])
      // The check could not pass by refusing everything.
      expect(accepted).toBeGreaterThan(1_000)
    })

    it('encodes a view by its own bytes, not its buffer', () => {
      const buffer = Uint8Array.from({ length: 16 }, (_, i) => i)
      expect(base64UrlEncode(buffer.subarray(3, 6))).toBe(
        base64UrlEncode(new Uint8Array([3, 4, 5])),
      )
      expect(base64Encode(buffer.subarray(3, 6))).toBe(reference(new Uint8Array([3, 4, 5])))
    })
  })
}
