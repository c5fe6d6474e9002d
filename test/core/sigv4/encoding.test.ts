import { describe, expect, it } from 'vitest'
import {
  encodeKeyPath,
  encodeRfc3986,
  isWellFormedKey,
  utf8Length,
} from '../../../src/core/sigv4/encoding'

describe('encodeRfc3986', () => {
  it('keeps only unreserved characters', () => {
    expect(encodeRfc3986('AZaz09-._~')).toBe('AZaz09-._~')
    expect(encodeRfc3986(' !"#$%&\'()*+,/:;=?@[]')).toBe(
      '%20%21%22%23%24%25%26%27%28%29%2A%2B%2C%2F%3A%3B%3D%3F%40%5B%5D',
    )
  })

  it('encodes a space as %20, never +', () => {
    expect(encodeRfc3986('a b+c')).toBe('a%20b%2Bc')
  })

  it('encodes UTF-8 bytes in upper-case hex', () => {
    expect(encodeRfc3986('é')).toBe('%C3%A9')
    expect(encodeRfc3986('e\u0301')).toBe('e%CC%81')
    expect(encodeRfc3986('😀')).toBe('%F0%9F%98%80')
    expect(encodeRfc3986('猫')).toBe('%E7%8C%AB')
  })
})

describe('encodeKeyPath', () => {
  it('keeps slashes, including leading, trailing and doubled ones', () => {
    expect(encodeKeyPath('/a//b c/')).toBe('/a//b%20c/')
  })

  it('does not double-encode a literal percent sign', () => {
    expect(encodeKeyPath('100%/%2F')).toBe('100%25/%252F')
  })
})

describe('utf8Length', () => {
  it('counts bytes as TextEncoder does', () => {
    for (const value of ['', 'a', 'é', '猫', '😀', 'a😀b猫é', 'x'.repeat(1024)]) {
      expect(utf8Length(value)).toBe(new TextEncoder().encode(value).length)
    }
  })
})

describe('isWellFormedKey', () => {
  it('rejects lone surrogates', () => {
    expect(isWellFormedKey('ok😀')).toBe(true)
    expect(isWellFormedKey('\ud800')).toBe(false)
    expect(isWellFormedKey('a\udc00b')).toBe(false)
  })
})
