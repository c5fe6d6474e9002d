// base64 and base64url encodings checked against RFC 4648's vectors and an independent reference
// (btoa over a binary string), for both the runtime's own encoder (workerd: bytes.test.ts) and the
// fallback where a runtime lacks it (Node 24: bytes.node.test.ts).

import { describe, expect, it } from 'vitest'
import { base64Encode, base64UrlDecode, base64UrlEncode } from '../../src/core/bytes'

const text = (value: string) => new TextEncoder().encode(value)

function reference(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
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

    it('encodes a view by its own bytes, not its buffer', () => {
      const buffer = Uint8Array.from({ length: 16 }, (_, i) => i)
      expect(base64UrlEncode(buffer.subarray(3, 6))).toBe(
        base64UrlEncode(new Uint8Array([3, 4, 5])),
      )
      expect(base64Encode(buffer.subarray(3, 6))).toBe(reference(new Uint8Array([3, 4, 5])))
    })
  })
}
