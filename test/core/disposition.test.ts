// Content-Disposition values worked out by hand from RFC 6266 and RFC 8187, and what a browser's
// parser makes of them.

import { describe, expect, it } from 'vitest'
import { contentDisposition, lastSegment } from '../../src/core/disposition'

describe('contentDisposition', () => {
  it.each([
    ['report.pdf', `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`],
    [
      'Q3 report (final).pdf',
      `attachment; filename="Q3 report (final).pdf"; filename*=UTF-8''Q3%20report%20%28final%29.pdf`,
    ],
    ['résumé.pdf', `attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`],
    ['say "hi".txt', `attachment; filename="say _hi_.txt"; filename*=UTF-8''say%20%22hi%22.txt`],
    ['back\\slash.txt', `attachment; filename="back_slash.txt"; filename*=UTF-8''back%5Cslash.txt`],
    ['a;b=c,d.txt', `attachment; filename="a;b=c,d.txt"; filename*=UTF-8''a%3Bb%3Dc%2Cd.txt`],
    ["it's 100%.txt", `attachment; filename="it's 100%.txt"; filename*=UTF-8''it%27s%20100%25.txt`],
    // One "_" per character, not per UTF-16 unit.
    ['😀.png', `attachment; filename="_.png"; filename*=UTF-8''%F0%9F%98%80.png`],
    [
      '日本語.txt',
      `attachment; filename="___.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E.txt`,
    ],
    ['!#$&+-.^_`|~', 'attachment; filename="!#$&+-.^_`|~"; filename*=UTF-8\'\'!#$&+-.^_`|~'],
  ])('attachment %j', (name, header) => {
    expect(contentDisposition('attachment', name)).toBe(header)
  })

  it('inline', () => {
    expect(contentDisposition('inline', 'a b.png')).toBe(
      `inline; filename="a b.png"; filename*=UTF-8''a%20b.png`,
    )
  })

  it('the ext-value decodes back to the name, and the fallback is printable ASCII', () => {
    const names = ['résumé "final".pdf', '😀 / 😃', 'tab\there', 'ｚ\u200b.txt', "x'y'z", '%41']
    for (const name of names) {
      const header = contentDisposition('attachment', name)
      const ext = /filename\*=UTF-8''(.*)$/.exec(header)![1]!
      expect(ext).toMatch(/^[A-Za-z0-9!#$&+\-.^_`|~%]*$/)
      expect(decodeURIComponent(ext)).toBe(name)
      const fallback = /filename="([^"]*)"/.exec(header)![1]!
      expect(fallback).toMatch(/^[\x20-\x7e]*$/)
      expect(fallback).not.toMatch(/["\\]/)
    }
  })
})

describe('lastSegment', () => {
  it.each([
    ['a/b/c.txt', 'c.txt'],
    ['c.txt', 'c.txt'],
    ['folder/', ''],
  ])('%j → %j', (key, segment) => {
    expect(lastSegment(key)).toBe(segment)
  })
})
