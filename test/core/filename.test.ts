// File names from browsers and requests, made fit for a key's last segment or a download's name.

import { describe, expect, it } from 'vitest'
import { unsafeKeyReason } from '../../src/core/key-safety'
import { sanitizeFilename } from '../../src/core/filename'

const utf8 = (text: string) => new TextEncoder().encode(text).length

describe('sanitizeFilename', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['C:\\fakepath\\photo.jpg', 'photo.jpg'],
    ['a/b/../c.txt', 'c.txt'],
    ['My "Report" #1?.txt', 'My _Report_ _1_.txt'],
    ['tab\there\nnew.txt', 'tab_here_new.txt'],
    ['\u202egpj.exe', '_gpj.exe'],
    ['zero\u200bwidth.txt', 'zero_width.txt'],
    ['  spaced   out  .png ', 'spaced out .png'],
    ['..', '__'],
    ['.hidden', '_hidden'],
    ['...', '___'],
    ['', 'file'],
    ['/', 'file'],
    ['100%<>|*:{}[]^`.bin', '100____________.bin'],
    // NFD "é" becomes NFC.
    ['cafe\u0301.txt', 'café.txt'],
    ['日本語 😀.txt', '日本語 😀.txt'],
  ])('%j → %j', (name, expected) => {
    expect(sanitizeFilename(name, 200)).toBe(expected)
  })

  it('keeps the extension and whole characters when shortening to the byte limit', () => {
    const long = `${'😀'.repeat(100)}.jpeg`
    const short = sanitizeFilename(long, 50)
    expect(short.endsWith('.jpeg')).toBe(true)
    expect(utf8(short)).toBeLessThanOrEqual(50)
    expect(short.isWellFormed()).toBe(true)
    expect(short).toBe(`${'😀'.repeat(11)}.jpeg`)
    expect(sanitizeFilename('x'.repeat(300), 200)).toBe('x'.repeat(200))
  })

  it('never yields a segment the safe key policy refuses', () => {
    const names = ['..', '.', '%2e%2e', 'a\\b', '\u0000x', ' . ', '../..', 'a//b', '\u202e.exe']
    for (const name of names) {
      const clean = sanitizeFilename(name, 200)
      expect(unsafeKeyReason(`users/alice/${clean}`), `${name} → ${clean}`).toBeUndefined()
      expect(clean).not.toMatch(/[/\\\x00-\x1f]/)
    }
  })
})
