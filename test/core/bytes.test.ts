import { describe, expect, it } from 'vitest'
import {
  base64UrlDecode,
  base64UrlEncode,
  constantTimeEqual,
  constantTimeEqualText,
} from '../../src/core/bytes'
import { describeBase64 } from './base64-vectors'

describeBase64('workerd')

it("workerd has the runtime's encoder, so the tests above test it", () => {
  expect(typeof (Uint8Array.prototype as { toBase64?: unknown }).toBase64).toBe('function')
})

describe('base64url', () => {
  it('round-trips every length, without padding', () => {
    for (let n = 0; n <= 40; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 151 + n) & 0xff)
      const text = base64UrlEncode(bytes)
      expect(text).toMatch(/^[A-Za-z0-9_-]*$/)
      expect(base64UrlDecode(text)).toEqual(bytes)
    }
  })
})

describe('constantTimeEqual', () => {
  it('is true only for the same bytes', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true)
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false)
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2]))).toBe(false)
    expect(constantTimeEqual(new Uint8Array(), new Uint8Array())).toBe(true)
  })

  it('is false for a longer array even when its extra bytes are zero', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2, 0]), new Uint8Array([1, 2]))).toBe(false)
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 0]))).toBe(false)
  })
})

describe('constantTimeEqualText', () => {
  it('is true for the same text only', () => {
    expect(constantTimeEqualText('0a1b', '0a1b')).toBe(true)
    expect(constantTimeEqualText('0a1b', '0a1c')).toBe(false)
    expect(constantTimeEqualText('0a1b', '0a1')).toBe(false)
    expect(constantTimeEqualText('', '')).toBe(true)
  })
})
