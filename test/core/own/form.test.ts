// Upload forms as waybill reads them: a FormData as a browser sends it parses into its fields and
// the file's offset, however it is split; every other shape is refused with its reason.

import { describe, expect, it } from 'vitest'
import { boundaryOf, formTrailer, parseFormHead } from '../../../src/core/own/form'

async function encoded(form: FormData) {
  const request = new Request('https://w.example/', { method: 'POST', body: form })
  const boundary = boundaryOf(request.headers.get('content-type'))!
  return { boundary, bytes: new Uint8Array(await request.arrayBuffer()) }
}
const text = (parts: string[], boundary = 'B') =>
  new TextEncoder().encode(parts.join('\r\n').replaceAll('{B}', boundary))

describe('boundaryOf', () => {
  it.each([
    ['multipart/form-data; boundary=abc', 'abc'],
    ['multipart/form-data; boundary="a b"', 'a b'],
    ['Multipart/Form-Data;boundary=x-1', 'x-1'],
    ['multipart/mixed; boundary=abc', undefined],
    ['multipart/form-data', undefined],
    [null, undefined],
  ])('%j → %j', (header, boundary) => {
    expect(boundaryOf(header)).toBe(boundary)
  })
})

describe('parseFormHead', () => {
  it('reads a FormData: its fields, the filename, and where the file starts and ends', async () => {
    const form = new FormData()
    form.set('key', 'up/ü.txt')
    form.set('Content-Type', 'text/plain')
    form.set('file', new File(['hello'], 'ü.txt', { type: 'text/plain' }))
    const { boundary, bytes } = await encoded(form)
    const parsed = parseFormHead(bytes, boundary)
    expect(parsed).toMatchObject({ head: { filename: 'ü.txt' } })
    if (!('head' in parsed)) throw new Error('no head')
    expect([...parsed.head.fields]).toEqual([
      ['key', 'up/ü.txt'],
      ['Content-Type', 'text/plain'],
    ])
    // workerd's FormData ends at the closing delimiter; browsers add a CRLF: formTrailer's.
    const close = new TextDecoder('latin1').decode(bytes).lastIndexOf(`\r\n--${boundary}--`)
    const file = bytes.subarray(parsed.head.fileStart, close)
    expect(new TextDecoder().decode(file)).toBe('hello')
    expect(new TextDecoder().decode(formTrailer(boundary))).toBe(`\r\n--${boundary}--\r\n`)
  })

  it('asks for more until the head has arrived, whatever the split', async () => {
    const form = new FormData()
    form.set('key', 'a')
    form.set('file', new File(['x'], 'a'))
    const { boundary, bytes } = await encoded(form)
    const whole = parseFormHead(bytes, boundary)
    if (!('head' in whole)) throw new Error('no head')
    for (let cut = 0; cut < whole.head.fileStart; cut++) {
      expect(parseFormHead(bytes.subarray(0, cut), boundary)).toEqual({ more: true })
    }
  })

  it.each([
    [
      'a preamble',
      ['preamble', '--{B}', 'Content-Disposition: form-data; name="file"', '', 'x'],
      'no preamble',
    ],
    [
      'no file',
      ['--{B}', 'Content-Disposition: form-data; name="key"', '', 'a', '--{B}--'],
      'no part named "file"',
    ],
    [
      'a field twice',
      [
        '--{B}',
        'Content-Disposition: form-data; name="a"',
        '',
        '1',
        '--{B}',
        'Content-Disposition: form-data; name="a"',
        '',
        '2',
        '--{B}',
        '',
      ],
      'the field "a" twice',
    ],
    [
      'a file in another field',
      ['--{B}', 'Content-Disposition: form-data; name="doc"; filename="x"', '', 'x', '--{B}', ''],
      'file in the field "doc"',
    ],
    [
      'a part without its disposition',
      ['--{B}', 'Content-Type: text/plain', '', 'x', '--{B}', ''],
      'no Content-Disposition',
    ],
    [
      'an attachment part',
      ['--{B}', 'Content-Disposition: attachment; name="a"', '', 'x', '--{B}', ''],
      'other than form-data',
    ],
  ])('refuses a form with %s', (_, lines, fault) => {
    const parsed = parseFormHead(text(lines), 'B')
    expect(parsed).toHaveProperty('fault')
    expect((parsed as { fault: string }).fault).toContain(fault)
  })
})
