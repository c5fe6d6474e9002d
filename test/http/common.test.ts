// requestOrigin: the origin a request's URL names, read off the runtime's serialized text, equals
// what the URL parser says for every shape of URL a request can have.

import { describe, expect, it } from 'vitest'
import { requestOrigin } from '../../src/http/common'

describe('requestOrigin', () => {
  it.each([
    'https://files.example.com/v1/sign',
    'http://127.0.0.1:8787/v1/redirect/photos/a.jpg?expiresIn=60',
    'http://localhost:8787/',
    'http://[::1]:8787/l/abc',
    'https://files.example.com/o/media/a%2Fb?x=1&s=2',
    'https://user:secret@files.example.com/v1/sign',
    'http://files.example.com:80/v1/sign',
  ])('is the URL parser’s origin of %s', (text) => {
    const serialized = new URL(text).href
    expect(requestOrigin(serialized)).toBe(new URL(serialized).origin)
  })
})
