import { describe, expect, it } from 'vitest'
import { ndjsonLines } from '../helpers/requests'
import {
  ALL_KEY,
  NOW,
  PHOTOS_KEY,
  SECRET,
  app,
  postSign,
  problemOf,
  testEnv,
} from '../helpers/routes'

interface SignBody {
  origin: string
  method: string
  expiresAt: string
  urls: { key: string; url: string }[]
}

describe('POST /v1/sign', () => {
  it('signs keys in input order with the configured origin', async () => {
    const keys = ['b.jpg', 'a b/ç.jpg', 'a.jpg']
    const response = await postSign({ origin: 'photos', keys, expiresIn: 600 })
    expect(response.status).toBe(200)
    // A POST answer: never cached, so no ETag either (src/http/answer.ts).
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('etag')).toBeNull()
    const body = await response.json<SignBody>()
    expect(body.origin).toBe('photos')
    expect(body.method).toBe('GET')
    expect(body.expiresAt).toBe(new Date(NOW.getTime() + 600_000).toISOString())
    expect(body.urls.map((u) => u.key)).toEqual(keys)
    expect(body.urls[1]!.url).toMatch(
      /^https:\/\/photos\.s3\.eu-west-1\.amazonaws\.com\/a%20b\/%C3%A7\.jpg\?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDROUTETEST%2F20261123%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20261123T100000Z&X-Amz-Expires=600&X-Amz-Signature=[0-9a-f]{64}&X-Amz-SignedHeaders=host$/,
    )
  })

  it('uses the default expiry and a path-style custom endpoint', async () => {
    const response = await postSign({ origin: 'docs', method: 'PUT', items: [{ key: 'x' }] })
    const body = await response.json<SignBody>()
    expect(body.method).toBe('PUT')
    expect(body.urls[0]!.url).toMatch(/^http:\/\/127\.0\.0\.1:7070\/docs\/x\?.*X-Amz-Expires=900&/)
  })

  it('carries response overrides and versionId in the URL', async () => {
    const response = await postSign({
      origin: 'photos',
      items: [
        {
          key: 'r.pdf',
          versionId: 'v1',
          response: { contentDisposition: "attachment; filename*=UTF-8''r%C3%A9.pdf" },
        },
      ],
    })
    const { urls } = await response.json<SignBody>()
    const url = new URL(urls[0]!.url)
    expect(url.searchParams.get('response-content-disposition')).toBe(
      "attachment; filename*=UTF-8''r%C3%A9.pdf",
    )
    expect(url.searchParams.get('versionId')).toBe('v1')
  })

  it('streams NDJSON when asked', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`)
    const response = await postSign(
      { origin: 'photos', keys },
      { headers: { accept: 'application/x-ndjson' } },
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('waybill-expires-at')).toBe(
      new Date(NOW.getTime() + 900_000).toISOString(),
    )
    const lines = await ndjsonLines<{ key: string }>(response)
    expect(lines.map((line) => line.key)).toEqual(keys)
  })

  it('never returns the secret', async () => {
    const response = await postSign({ origin: 'photos', keys: ['a'] })
    expect(await response.text()).not.toContain(SECRET)
  })
})

describe('POST /v1/sign authentication', () => {
  it('401 without a key, with a malformed header, or with an unknown key', async () => {
    for (const key of [null, 'wrong-key']) {
      const response = await postSign({ origin: 'photos', keys: ['a'] }, { key })
      expect(response.status).toBe(401)
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/)
      expect((await problemOf(response)).type).toBe('urn:waybill:problem:unauthorized')
    }
    const response = await postSign(
      { origin: 'photos', keys: ['a'] },
      { key: null, headers: { authorization: `Basic ${btoa('a:b')}` } },
    )
    expect(response.status).toBe(401)
  })

  it('401 for everyone when no API keys are configured', async () => {
    const env = await testEnv({ WAYBILL_API_KEYS: undefined })
    const response = await postSign({ origin: 'photos', keys: ['a'] }, { env })
    expect(response.status).toBe(401)
  })

  it('403 naming the origin when no grant covers it, configured or not', async () => {
    for (const origin of ['docs', 'nowhere']) {
      const response = await postSign({ origin, keys: ['a'] }, { key: PHOTOS_KEY })
      expect(response.status).toBe(403)
      expect((await problemOf(response)).errors).toEqual([
        { path: 'origin', message: 'no grant to read on this origin' },
      ])
    }
    expect((await postSign({ origin: 'photos', keys: ['a'] }, { key: PHOTOS_KEY })).status).toBe(
      200,
    )
  })

  it('403 for an action the grant does not include', async () => {
    const response = await postSign(
      { origin: 'photos', method: 'PUT', keys: ['a'] },
      { key: PHOTOS_KEY },
    )
    expect(response.status).toBe(403)
    expect((await problemOf(response)).detail).toMatch(/write on origin "photos"/)
  })
})

describe('POST /v1/sign bad input', () => {
  const long = 'é'.repeat(512) + 'x'
  const cases: Array<[string, unknown, number, string]> = [
    ['malformed JSON', '{"origin": "photos", ', 400, 'body'],
    ['an empty body', '', 400, 'body'],
    ['a JSON array body', [], 400, 'body'],
    ['a JSON string body', '"photos"', 400, 'body'],
    ['missing origin', { keys: ['a'] }, 400, 'origin'],
    ['origin of the wrong type', { origin: 7, keys: ['a'] }, 400, 'origin'],
    ['an origin name with bad characters', { origin: '../x', keys: ['a'] }, 400, 'origin'],
    ['neither keys nor items', { origin: 'photos' }, 400, 'keys'],
    ['both keys and items', { origin: 'photos', keys: ['a'], items: [{ key: 'a' }] }, 400, 'items'],
    ['keys not an array', { origin: 'photos', keys: 'a' }, 400, 'keys'],
    ['an empty batch', { origin: 'photos', keys: [] }, 400, 'keys'],
    ['a batch over the limit', { origin: 'photos', keys: Array(51).fill('a') }, 400, 'keys'],
    ['a key of the wrong type', { origin: 'photos', keys: ['a', 5] }, 400, 'keys.1'],
    ['an empty key', { origin: 'photos', keys: ['a', ''] }, 400, 'keys.1'],
    ['a key over 1024 bytes', { origin: 'photos', keys: [long] }, 400, 'keys.0'],
    ['a lone surrogate in a key', '{"origin":"photos","keys":["a\\ud800"]}', 400, 'keys.0'],
    ['an item without key', { origin: 'photos', items: [{}] }, 400, 'items.0.key'],
    ['an item that is a string', { origin: 'photos', items: ['a'] }, 400, 'items.0'],
    [
      'an unknown item field',
      { origin: 'photos', items: [{ key: 'a', ttl: 1 }] },
      400,
      'items.0.ttl',
    ],
    ['an unknown top-level field', { origin: 'photos', keys: ['a'], bucket: 'x' }, 400, 'bucket'],
    ['an unknown method', { origin: 'photos', method: 'POST', keys: ['a'] }, 400, 'method'],
    ['a lower-case method', { origin: 'photos', method: 'get', keys: ['a'] }, 400, 'method'],
    ['expiresIn 0', { origin: 'photos', expiresIn: 0, keys: ['a'] }, 400, 'expiresIn'],
    ['expiresIn negative', { origin: 'photos', expiresIn: -5, keys: ['a'] }, 400, 'expiresIn'],
    ['expiresIn fractional', { origin: 'photos', expiresIn: 1.5, keys: ['a'] }, 400, 'expiresIn'],
    [
      'expiresIn over 7 days',
      { origin: 'photos', expiresIn: 604801, keys: ['a'] },
      400,
      'expiresIn',
    ],
    ['expiresIn as a string', { origin: 'photos', expiresIn: '60', keys: ['a'] }, 400, 'expiresIn'],
    [
      'CR/LF in a response override',
      {
        origin: 'photos',
        items: [{ key: 'a', response: { contentDisposition: 'a\r\nSet-Cookie: x' } }],
      },
      400,
      'items.0.response.contentDisposition',
    ],
    [
      'non-ASCII in a response override',
      { origin: 'photos', items: [{ key: 'a', response: { contentDisposition: 'filename="é"' } }] },
      400,
      'items.0.response.contentDisposition',
    ],
    [
      'an unknown response override',
      { origin: 'photos', items: [{ key: 'a', response: { contentMd5: 'x' } }] },
      400,
      'items.0.response.contentMd5',
    ],
    [
      'a response override of the wrong type',
      { origin: 'photos', items: [{ key: 'a', response: { contentType: 1 } }] },
      400,
      'items.0.response.contentType',
    ],
    [
      'response overrides on PUT',
      { origin: 'photos', method: 'PUT', items: [{ key: 'a', response: { contentType: 'x' } }] },
      400,
      'items.0.response',
    ],
    [
      'versionId on PUT',
      { origin: 'photos', method: 'PUT', items: [{ key: 'a', versionId: 'v' }] },
      400,
      'items.0.versionId',
    ],
    [
      'an empty versionId',
      { origin: 'photos', items: [{ key: 'a', versionId: '' }] },
      400,
      'items.0.versionId',
    ],
  ]

  for (const [name, body, status, path] of cases) {
    it(`${name} → ${status} naming ${path}`, async () => {
      const response = await postSign(body)
      expect(response.status).toBe(status)
      const problem = await problemOf(response)
      expect(problem.status).toBe(status)
      expect(problem.type).toBe('urn:waybill:problem:invalid_request')
      expect(problem.errors?.map((e) => e.path)).toContain(path)
      expect(problem.detail).toContain(path)
    })
  }

  it('lists every bad item of a batch, not only the first', async () => {
    const response = await postSign({ origin: 'photos', keys: ['', 'ok', 7, ''] })
    const problem = await problemOf(response)
    expect(problem.errors?.map((e) => e.path)).toEqual(['keys.0', 'keys.2', 'keys.3'])
  })

  it('415 for a body that is not declared JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const response = await postSign(
        { origin: 'photos', keys: ['a'] },
        { headers: { 'content-type': type } },
      )
      expect(response.status).toBe(415)
      expect((await problemOf(response)).errors?.[0]?.path).toBe('Content-Type')
    }
    const ok = await postSign(
      { origin: 'photos', keys: ['a'] },
      { headers: { 'content-type': 'application/json; charset=utf-8' } },
    )
    expect(ok.status).toBe(200)
  })

  it('413 for a body over 16 MiB, declared or streamed', async () => {
    const big = JSON.stringify({ origin: 'photos', keys: ['x'.repeat(17 * 1024 * 1024)] })
    const declared = await postSign(big)
    expect(declared.status).toBe(413)
    expect((await problemOf(declared)).errors?.[0]?.path).toBe('body')

    const bytes = new TextEncoder().encode(big)
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 1 << 20)
          controller.enqueue(bytes.slice(i, i + (1 << 20)))
        controller.close()
      },
    })
    const response = await app.request(
      '/v1/sign',
      {
        method: 'POST',
        headers: { authorization: `Bearer ${ALL_KEY}`, 'content-type': 'application/json' },
        body: stream,
      },
      await testEnv(),
    )
    expect(response.status).toBe(413)
  })

  it('400 for bytes that are not UTF-8', async () => {
    const response = await app.request(
      '/v1/sign',
      {
        method: 'POST',
        headers: { authorization: `Bearer ${ALL_KEY}`, 'content-type': 'application/json' },
        body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
      },
      await testEnv(),
    )
    expect(response.status).toBe(400)
    expect((await problemOf(response)).errors?.[0]).toEqual({
      path: 'body',
      message: 'is not valid UTF-8',
    })
  })
})
