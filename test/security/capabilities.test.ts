// What the signing routes let a caller do, by capability: uploads stay inside their grant,
// signatures last and cost what it allows, who is calling, what an answer tells, untrusted input,
// what the bucket serves. Each test reproduces a finding of issue #14 as it was reported (the
// comment above it says which), against a running waybill and versitygw where the finding was end
// to end, and failed on the code before its fix.

import { beforeAll, describe, expect, it, vi } from 'vitest'
import type { Env } from '../../src/env'
import { HS256_SECRET, sign } from '../fixtures/auth'
import { form, postForm } from '../helpers/forms'
import { sha256Hex } from '../helpers/hex'
import { objectUrl, store } from '../helpers/worker-env'
import {
  call,
  MIB,
  problem,
  ROOT,
  securityEnv,
  WILDCARD_MAX_EXPIRES_S,
} from '../helpers/security-world'

let env: Env
const hs256 = { alg: 'HS256' as const, secret: new TextEncoder().encode(HS256_SECRET) }
const now = () => Math.floor(Date.now() / 1000)
const token = (claims: Record<string, unknown>) =>
  sign(hs256, claims, { iat: now(), exp: now() + 600 })
const stored = async (key: string) => (await store.fetch(objectUrl(key))).status

beforeAll(async () => {
  const base = await securityEnv()
  const origins = JSON.parse(base.WAYBILL_ORIGINS as string) as Record<string, object>
  env = await securityEnv(
    {
      WAYBILL_ORIGINS: JSON.stringify({
        ...origins,
        r2: { ...origins.s3, postPolicy: false },
      }),
      // The default budget: finding 11 is about what one small request may cost by default.
      WAYBILL_MAX_RSA_SIGNATURES: undefined,
    },
    [
      {
        to: 'apiKey:alice',
        origin: 's3',
        prefix: `${ROOT}/inbox/alice/`,
        actions: ['write'],
        contentTypes: ['image/png'],
        maxContentLength: 1000,
        // POST forms cannot refuse to replace an object.
        overwrite: true,
      },
      {
        to: 'apiKey:alice',
        origin: 's3',
        prefix: `${ROOT}/big/`,
        actions: ['write'],
        maxContentLength: 12 * MIB,
      },
      { to: 'apiKey:alice', origin: 'r2', actions: ['write'] },
      { to: 'apiKey:alice', origin: 'cdn', prefix: 'gallery/', actions: ['read'] },
      {
        to: 'apiKey:alice',
        origin: 'cdn',
        prefix: 'gallery/',
        actions: ['read'],
        wildcard: true,
        maxExpiresIn: WILDCARD_MAX_EXPIRES_S,
      },
      { to: 'apiKey:alice', origin: 'cdn', prefix: 'many/', actions: ['read'], maxBatch: 10_000 },
    ],
  )
})
describe('uploads stay inside their grant', () => {
  // Issue #14, finding 1.
  it('a PUT URL from /v1/sign no longer ignores the grant’s upload limits', async () => {
    const response = await call(env, 'POST', '/v1/sign', {
      origin: 's3',
      method: 'PUT',
      keys: [`${ROOT}/inbox/alice/evil.html`],
    })
    // Before: 200 with a URL that signed only `host`, through which 200,000 bytes of HTML landed.
    expect((await problem(response)).status).toBe(403)
    expect(await stored(`${ROOT}/inbox/alice/evil.html`)).toBe(404)

    // The way that enforces the limits: a URL that signs the type and the length.
    const upload = await call(env, 'POST', '/v1/uploads', {
      origin: 's3',
      key: `${ROOT}/inbox/alice/ok.png`,
      contentType: 'image/png',
      contentLength: 1000,
    })
    const { url, headers } = await upload.json<{
      url: string
      headers: Record<string, string>
    }>()
    const big = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': headers['content-type']! },
      body: new Uint8Array(200_000),
    })
    expect(big.status).toBe(403)
    expect(await stored(`${ROOT}/inbox/alice/ok.png`)).toBe(404)
  })

  // Issue #14, finding 2.
  it('a POST policy never admits a key outside the grant', async () => {
    const prefix = await call(env, 'POST', '/v1/uploads', {
      origin: 's3',
      mode: 'post',
      overwrite: true,
      keyPrefix: `${ROOT}/inbox/alice/`,
      contentType: 'image/png',
    })
    // Before: ["starts-with", "$key", "…/inbox/alice/"], which admitted "…/inbox/alice/../../x".
    expect((await problem(prefix)).errors?.map((e) => e.path)).toEqual(['keyPrefix'])

    const exact = await call(env, 'POST', '/v1/uploads', {
      origin: 's3',
      mode: 'post',
      overwrite: true,
      key: `${ROOT}/inbox/alice/photo.png`,
      contentType: 'image/png',
    })
    const { url, fields } = await exact.json<{
      url: string
      fields: Record<string, string>
    }>()
    const png = new Blob([new Uint8Array(100)], { type: 'image/png' })
    const escape = `${ROOT}/inbox/alice/../../users/bob/pwned.png`
    expect((await postForm(url, form(fields, png, { key: escape }))).status).toBe(403)
    expect(await stored(`${ROOT}/users/bob/pwned.png`)).toBe(404)
  })

  // Issue #14, finding 3.
  it('a multipart upload cannot grow past its declared size or the grant', async () => {
    const key = `${ROOT}/big/movie.bin`
    const created = await call(env, 'POST', '/v1/uploads', {
      origin: 's3',
      mode: 'multipart',
      key,
      contentType: 'application/octet-stream',
      contentLength: 12 * MIB,
    })
    const upload = await created.json<{
      uploadId: string
      partSize: number
      parts: { partNumber: number; url: string }[]
    }>()
    // Before: the follow-up trusted the sizes it was sent (partSize 12582911 for part 1).
    const resized = await call(env, 'POST', '/v1/uploads/multipart/parts', {
      origin: 's3',
      key,
      uploadId: upload.uploadId,
      partNumbers: [1],
      partSize: 12 * MIB - 1,
    })
    expect((await problem(resized)).errors?.map((e) => e.path)).toContain('partSize')
    // Each part URL pins its part's size: a larger part is refused by the store.
    const oversized = await fetch(upload.parts[0]!.url, {
      method: 'PUT',
      body: new Uint8Array(12 * MIB - 1),
    })
    expect(oversized.ok, await oversized.text()).toBe(false)
    // Completion checks what the store holds first: one part is not the declared size.
    const first = await fetch(upload.parts[0]!.url, {
      method: 'PUT',
      body: new Uint8Array(upload.partSize),
    })
    expect(first.status).toBe(200)
    const partial = await call(env, 'POST', '/v1/uploads/multipart/complete', {
      origin: 's3',
      key,
      uploadId: upload.uploadId,
      parts: [{ partNumber: 1, etag: first.headers.get('etag') }],
    })
    expect((await problem(partial)).detail).toMatch(/add up to 5242880 bytes/)
    expect(await stored(key)).toBe(404)
    const aborted = await call(env, 'POST', '/v1/uploads/multipart/abort', {
      origin: 's3',
      key,
      uploadId: upload.uploadId,
    })
    expect(aborted.status).toBe(204)
  })
})

describe('signatures last and cost only what the grant allows', () => {
  // Issue #14, finding 4.
  it('a wildcard policy obeys the wildcard grant’s maxExpiresIn', async () => {
    const keys = ['gallery/g1.jpg', 'gallery/g2.jpg']
    const week = await call(env, 'POST', '/v1/sign', {
      origin: 'cdn',
      policy: 'wildcard',
      expiresIn: 604_800,
      keys,
    })
    expect((await problem(week)).errors).toEqual([
      { path: 'expiresIn', message: `must be at most ${WILDCARD_MAX_EXPIRES_S} for this caller` },
    ])
    // Without expiresIn the default (900 s) is capped by the wildcard grant, not the other one.
    const byDefault = await call(env, 'POST', '/v1/sign', {
      origin: 'cdn',
      policy: 'wildcard',
      keys,
    })
    const { expiresAt } = await byDefault.json<{ expiresAt: string }>()
    expect(Date.parse(expiresAt) / 1000 - now()).toBeLessThanOrEqual(WILDCARD_MAX_EXPIRES_S)
  })

  // Issue #14, finding 11.
  it('one small request cannot buy seconds of RSA signing', async () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => `many/${i}.jpg`)
    const signing = vi.spyOn(crypto.subtle, 'sign')
    const response = await call(env, 'POST', '/v1/sign', { origin: 'cdn', keys })
    const body = await problem(response)
    expect(body.errors?.[0]?.path).toBe('keys')
    expect(body.detail).toMatch(/RSA signature.*wildcard.*ECDSA/)
    expect(signing).not.toHaveBeenCalled()
    signing.mockRestore()
  })
})

describe('who is calling', () => {
  // Issue #14, finding 5.
  it('email grants honour verified addresses only', async () => {
    const ask = async (claims: Record<string, unknown>) =>
      (
        await call(
          env,
          'POST',
          '/v1/sign',
          { origin: 's3', keys: [`${ROOT}/ops/runbook.pdf`] },
          { token: await token({ sub: 'eve', email: 'ops@example.com', ...claims }) },
        )
      ).status
    expect(await ask({ email_verified: false })).toBe(403)
    expect(await ask({})).toBe(403)
    expect(await ask({ email_verified: 'no' })).toBe(403)
    expect(await ask({ email_verified: true })).toBe(200)
  })

  // Issue #14, finding 7.
  it('a token whose sub is not a string is a 401, never a 500', async () => {
    for (const sub of [{ toString: 'bob' }, ['bob'], 42, '']) {
      const response = await call(
        env,
        'POST',
        '/v1/sign',
        { origin: 's3', keys: [`${ROOT}/jwt/bob/a`] },
        { token: await token({ sub }) },
      )
      expect((await problem(response)).status, JSON.stringify(sub)).toBe(401)
    }
  })

  // Issue #14, decided by design.
  it('an API key id never stands in for a token sub, nor the reverse', async () => {
    // An API key "alice" and a token with sub "alice" reach different folders.
    const asToken = await call(
      env,
      'POST',
      '/v1/sign',
      { origin: 's3', keys: [`${ROOT}/alice/a.png`] },
      { token: await token({ sub: 'alice' }) },
    )
    expect(asToken.status).toBe(403)
    const asKey = await call(env, 'POST', '/v1/sign', {
      origin: 's3',
      keys: [`${ROOT}/jwt/alice/a.png`],
    })
    expect(asKey.status).toBe(403)
  })
})

describe('what an answer tells, and to whom', () => {
  // Issue #14, finding 8.
  it('an origin without a grant for the caller answers as an unknown one', async () => {
    const ask = async (origin: string, body: Record<string, unknown>) => {
      const response = await call(
        env,
        'POST',
        '/v1/uploads',
        { origin, contentType: 'image/png', ...body },
        'bob',
      )
      return { status: response.status, text: (await response.text()).replaceAll(origin, 'X') }
    }
    const unknown = await ask('nowhere', { key: 'a//b' })
    expect(unknown.status).toBe(403)
    // Before: 400 about the key policy, and 400 about postPolicy: false.
    expect(await ask('r2', { key: 'a//b' })).toEqual(unknown)
    expect(await ask('r2', { key: 'a.png', mode: 'post', overwrite: true })).toEqual(
      await ask('nowhere', { key: 'a.png', mode: 'post', overwrite: true }),
    )
  })

  // Issue #14, finding 9.
  it('a streamed listing varies by caller, as the JSON one does', async () => {
    const response = await call(
      env,
      'GET',
      `/v1/list/s3?limit=5&prefix=${encodeURIComponent(`${ROOT}/alice/`)}`,
      undefined,
      'alice',
      { accept: 'application/x-ndjson' },
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('vary')).toBe('Authorization, Cookie')
    await response.text()
  })
})

describe('untrusted input and configuration', () => {
  // Issue #14, finding 6.
  it('a crafted listing cursor is a 400, never a 500', async () => {
    // The old cursor: base64url JSON whose fingerprint anyone could compute, here with a lone
    // surrogate as the key to resume after.
    const prefix = `${ROOT}/alice/`
    const f = (await sha256Hex(JSON.stringify([[prefix], null]))).slice(0, 12)
    const old = btoa(JSON.stringify({ i: 0, a: '\ud800', f }))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '')
    const forged = `${old}.AAAAAAAAAAAAAAAAAAAAAA`
    for (const cursor of [old, forged]) {
      const query = new URLSearchParams({ prefix, limit: '5', cursor })
      const response = await call(env, 'GET', `/v1/list/s3?${query.toString()}`)
      expect((await problem(response)).errors?.map((e) => e.path)).toEqual(['cursor'])
    }
  })

  // Issue #14, finding 12.
  it('a body of a million unknown fields is refused before it is parsed', async () => {
    // As reported: 16 MiB of `"f<n>":1` members, about 1.3 million of them.
    const fields: string[] = []
    for (let i = 0, size = 32; size < 16 * MIB - 64; i++) {
      fields.push(`"f${i}":1`)
      size += fields[i]!.length + 1
    }
    const text = `{"origin":"s3","keys":["a"],${fields.join(',')}}`
    expect(fields.length).toBeGreaterThan(1_000_000)
    const response = await call(env, 'POST', '/v1/sign', text)
    expect((await problem(response)).errors).toEqual([
      { path: 'body', message: expect.stringMatching(/holds more than \d+ values/) as string },
    ])
  })

  // Issue #14, finding 10.
  it('a prefix grant on an origin with keys "any" is a configuration error', async () => {
    const bad = await securityEnv({}, [
      { to: 'apiKey:alice', origin: 'loose', prefix: 'public/', actions: ['read'] },
    ])
    const response = await call(bad, 'GET', '/healthz')
    expect(response.status).toBe(503)
    expect((await problem(response)).errors?.[0]?.path).toMatch(/^WAYBILL_GRANTS\.\d+\.prefix$/)
    // On a safe origin the escape is refused outright.
    const escape = await call(env, 'POST', '/v1/sign', {
      origin: 's3',
      keys: [`${ROOT}/alice/../private/secret.txt`],
    })
    expect((await problem(escape)).errors?.map((e) => e.path)).toEqual(['keys.0'])
  })
})

describe('what the bucket serves', () => {
  // Issue #14, decided by design.
  it('a reader cannot make the bucket serve an object as a web page', async () => {
    const override = (contentType: string) =>
      call(env, 'POST', '/v1/sign', {
        origin: 's3',
        items: [{ key: `${ROOT}/alice/a.png`, response: { contentType } }],
      })
    for (const type of ['text/html', 'TEXT/HTML; charset=utf-8', 'image/svg+xml', 'text/xml']) {
      const errors = (await problem(await override(type))).errors
      expect(
        errors?.map((e) => e.path),
        type,
      ).toEqual(['items.0.response.contentType'])
    }
    expect((await override('application/pdf')).status).toBe(200)
  })
})
