// The debug view: what was signed, per URL, for callers with a `debug` grant. Never key material.

import { describe, expect, it } from 'vitest'
import { hmacSha256Hex, sha256Hex, sigV4SigningKey } from '../helpers/hex'
import { NOW, PHOTOS_KEY, SECRET, postSign, problemOf, testEnv } from '../helpers/routes'

async function signatureOf(stringToSign: string): Promise<string> {
  return hmacSha256Hex(await sigV4SigningKey(SECRET, '20261123', 'eu-west-1'), stringToSign)
}

const debugEnv = () =>
  testEnv({
    WAYBILL_GRANTS: JSON.stringify([
      { to: 'apiKey:all', origin: 'photos', actions: ['read', 'write'], overwrite: true },
      { to: 'apiKey:all', origin: 'photos', prefix: 'debuggable/', actions: ['debug'] },
      { to: 'apiKey:photos-only', origin: 'photos', actions: ['read'] },
    ]),
  })

interface DebugBody {
  urls: { key: string; url: string; debug?: { canonicalRequest: string; stringToSign: string } }[]
}

describe('POST /v1/sign with "debug": true', () => {
  it('returns the canonical request and string to sign that produced each signature', async () => {
    const keys = ['debuggable/a b.jpg', 'debuggable/ü/🎉.png']
    const response = await postSign(
      { origin: 'photos', keys, debug: true },
      { env: await debugEnv() },
    )
    expect(response.status).toBe(200)
    const text = await response.text()
    expect(text).not.toContain(SECRET)
    const body = JSON.parse(text) as DebugBody
    for (const { key, url, debug } of body.urls) {
      const signed = new URL(url)
      const lines = debug!.canonicalRequest.split('\n')
      expect(lines[0]).toBe('GET')
      expect(lines[1]).toBe(signed.pathname)
      expect(decodeURIComponent(lines[1]!.slice(1))).toBe(key)
      expect(debug!.stringToSign).toBe(
        `AWS4-HMAC-SHA256\n${NOW.toISOString().replace(/[-:]|\.\d{3}/g, '')}\n20261123/eu-west-1/s3/aws4_request\n${await sha256Hex(debug!.canonicalRequest)}`,
      )
      // The signature in the URL is the HMAC of exactly this string to sign.
      expect(signed.searchParams.get('X-Amz-Signature')).toBe(
        await signatureOf(debug!.stringToSign),
      )
    }
  })

  it('works for PUT with items and in NDJSON too', async () => {
    const response = await postSign(
      { origin: 'photos', method: 'PUT', items: [{ key: 'debuggable/x' }], debug: true },
      { env: await debugEnv(), headers: { accept: 'application/x-ndjson' } },
    )
    const line = JSON.parse((await response.text()).trim()) as DebugBody['urls'][number]
    expect(line.debug!.canonicalRequest.startsWith('PUT\n/debuggable/x\n')).toBe(true)
  })

  it('needs a debug grant covering every key: deny by default', async () => {
    const env = await debugEnv()
    const outside = await postSign(
      { origin: 'photos', keys: ['debuggable/a', 'other/b'], debug: true },
      { env },
    )
    expect(outside.status).toBe(403)
    expect((await problemOf(outside)).errors?.map((e) => e.path)).toEqual(['keys.1'])
    const noGrant = await postSign(
      { origin: 'photos', keys: ['debuggable/a'], debug: true },
      { env, key: PHOTOS_KEY },
    )
    expect(noGrant.status).toBe(403)
    const plain = await postSign({ origin: 'photos', keys: ['other/b'] }, { env })
    expect((await plain.json<DebugBody>()).urls[0]!.debug).toBeUndefined()
  })

  it('refuses a debug flag that is not a boolean', async () => {
    const response = await postSign(
      { origin: 'photos', keys: ['debuggable/a'], debug: 'yes' },
      { env: await debugEnv() },
    )
    expect(response.status).toBe(400)
    expect((await problemOf(response)).errors?.[0]?.path).toBe('debug')
  })
})
