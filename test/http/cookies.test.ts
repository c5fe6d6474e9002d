// readCookie and setCookieText replaced hono/cookie (to keep the bundle small): each is checked
// against hono's own parse and serialize, on the cookies waybill reads and writes and on headers
// a generator writes.

import fc from 'fast-check'
import { parse, serialize } from 'hono/utils/cookie'
import { describe, expect, it } from 'vitest'
import { readCookie, setCookieText, type CookieOptions } from '../../src/http/cookies'

describe('readCookie', () => {
  it.each([
    ['CF_Authorization=eyJ.a.b', 'eyJ.a.b'],
    ['a=1; CF_Authorization=eyJ.a.b; b=2', 'eyJ.a.b'],
    ['CF_Authorization="quoted"', 'quoted'],
    ['CF_Authorization=a%20b', 'a b'],
    ['CF_Authorization=%E0%A4%A', '%E0%A4%A'],
    ['CF_Authorization=bad"value; CF_Authorization=good', 'good'],
    ['XCF_Authorization=x', undefined],
    ['', undefined],
  ])('reads %j as %j', (header, value) => {
    expect(readCookie(header, 'CF_Authorization')).toBe(value)
    expect(parse(header, 'CF_Authorization').CF_Authorization).toBe(value)
  })

  it('reads as hono’s parse did, for any header of these pairs', () => {
    const name = fc.constantFrom('session', 'Session', 'sessions', ' session', 'other', 'session ')
    const value = fc.constantFrom(
      '',
      'abc',
      '"abc"',
      'a%2Fb',
      '%zz',
      'a b',
      'a,b',
      'a"b',
      '=x',
      'eyJ.x-y_z~',
    )
    const separator = fc.constantFrom(';', '; ', ' ;')
    const header = fc
      .array(fc.tuple(name, value, separator), { maxLength: 5 })
      .map((pairs) => pairs.map(([n, v, end]) => `${n}=${v}${end}`).join(''))
    fc.assert(
      fc.property(header, (text) => {
        expect(readCookie(text, 'session')).toBe(parse(text, 'session').session)
      }),
      { numRuns: 2000 },
    )
  })
})

describe('setCookieText', () => {
  const options: CookieOptions = {
    maxAge: 300,
    path: '/',
    secure: true,
    httpOnly: true,
    sameSite: 'Lax',
  }

  it.each([
    ['CloudFront-Policy', 'eyJTdGF0ZW1lbnQi~-_', options],
    ['CloudFront-Signature', 'a/b+c=', { ...options, domain: '.example.com', path: '/media/' }],
    [
      'CloudFront-Key-Pair-Id',
      'K2JCJMDEHXQW5F',
      { ...options, secure: false, httpOnly: false, sameSite: 'Strict' as const },
    ],
    ['c', 'v', { ...options, maxAge: 299.9, sameSite: 'None' as const, path: undefined }],
  ])('writes %s as hono’s serialize did', (name, value, cookie) => {
    expect(setCookieText(name, value, cookie)).toBe(serialize(name, value, cookie))
  })

  it('refuses what would split the header', () => {
    expect(() => setCookieText('a;b', 'v', options)).toThrow()
    expect(() => setCookieText('a', 'v', { ...options, path: '/x;Secure' })).toThrow()
    expect(() => setCookieText('a', 'v', { ...options, domain: 'a.com\r\nX: y' })).toThrow()
  })
})
