import { Sha256 } from '@aws-crypto/sha256-js'
import { SignatureV4 } from '@smithy/signature-v4'
import { describe, expect, it } from 'vitest'
import { resolveS3Endpoint, type AddressingStyle } from '../../../src/core/s3/endpoint'
import {
  checkExpiresIn,
  prepareS3Presign,
  type Credentials,
  type PresignItem,
  type PresignMethod,
  type ResponseOverrides,
} from '../../../src/core/s3/presign'
import { CoreError } from '../../../src/core/errors'
import { AWS_EXAMPLE } from '../../fixtures/aws-presign-example'
import { HARD_KEYS } from '../../fixtures/keys'
import { escapeUri, OVERRIDE_QUERY, SHA256_HEADER } from '../../fixtures/smithy-presign'
import { sha256Hex } from '../../helpers/hex'
import { checkObjectKey } from '../../../src/core/keys'

describe('the AWS documentation example', () => {
  const presigner = prepareS3Presign({
    endpoint: resolveS3Endpoint({
      bucket: AWS_EXAMPLE.bucket,
      region: AWS_EXAMPLE.region,
      endpoint: 'https://s3.amazonaws.com',
      style: 'virtual',
    }),
    region: AWS_EXAMPLE.region,
    credentials: AWS_EXAMPLE,
    method: 'GET',
    expiresIn: AWS_EXAMPLE.expiresIn,
    now: AWS_EXAMPLE.now,
  })

  it('builds the documented canonical request and string to sign', async () => {
    const canonical = presigner.canonicalRequest({ key: AWS_EXAMPLE.key })
    expect(canonical).toBe(AWS_EXAMPLE.canonicalRequest)
    expect(presigner.stringToSign(await sha256Hex(canonical))).toBe(AWS_EXAMPLE.stringToSign)
  })

  it('reproduces the documented signature', async () => {
    const url = new URL(await presigner.presign({ key: AWS_EXAMPLE.key }))
    expect(url.origin).toBe('https://examplebucket.s3.amazonaws.com')
    expect(url.pathname).toBe('/test.txt')
    expect(url.searchParams.get('X-Amz-Signature')).toBe(AWS_EXAMPLE.signature)
  })

  it('reports when the URL stops working', () => {
    expect(presigner.expiresAt.toISOString()).toBe('2013-05-25T00:00:00.000Z')
  })
})

// The reference: @smithy/signature-v4, configured as @aws-sdk/s3-request-presigner configures it
// (S3 keys are escaped by the caller, so the signer must not escape the path again; the payload is
// UNSIGNED-PAYLOAD through a header that is neither signed nor hoisted into the query).

interface Case {
  region: string
  bucket: string
  style: AddressingStyle
  endpoint?: string
  credentials: Credentials
  method: PresignMethod
  expiresIn: number
  item: PresignItem
  headers?: Record<string, string>
}

async function referenceUrl(c: Case, now: Date): Promise<string> {
  const location = resolveS3Endpoint(c)
  const url = new URL(`${location.protocol}//${location.host}`)
  const query: Record<string, string> = {}
  for (const [field, name] of Object.entries(OVERRIDE_QUERY)) {
    const value = c.item.response?.[field as keyof ResponseOverrides]
    if (value !== undefined) query[name] = value
  }
  if (c.item.versionId !== undefined) query.versionId = c.item.versionId
  if (c.item.partNumber !== undefined) query.partNumber = String(c.item.partNumber)
  if (c.item.uploadId !== undefined) query.uploadId = c.item.uploadId
  const extraHeaders = c.headers ?? {}
  const path = `${location.basePath}/${c.item.key.split('/').map(escapeUri).join('/')}`
  const signer = new SignatureV4({
    service: 's3',
    region: c.region,
    credentials: c.credentials,
    sha256: Sha256,
    uriEscapePath: false,
  })
  const signed = await signer.presign(
    {
      method: c.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path,
      query,
      headers: { ...extraHeaders, host: location.host, [SHA256_HEADER]: 'UNSIGNED-PAYLOAD' },
    },
    {
      signingDate: now,
      expiresIn: c.expiresIn,
      unsignableHeaders: new Set([SHA256_HEADER]),
      // Upload headers stay headers: the browser sends them, none is moved into the query.
      unhoistableHeaders: new Set([SHA256_HEADER, ...Object.keys(extraHeaders)]),
    },
  )
  // As @aws-sdk/util-format-url prints it: parameters sorted by name, names and values escaped.
  const search = Object.keys(signed.query ?? {})
    .sort()
    .map((name) => `${escapeUri(name)}=${escapeUri(signed.query?.[name] as string)}`)
    .join('&')
  return `${location.protocol}//${location.host}${signed.path}?${search}`
}

const NOW = new Date('2026-11-23T12:34:56.789Z')

/** Our presigner for a case, at the fixed clock. */
function presignerFor(c: Case) {
  return prepareS3Presign({
    endpoint: resolveS3Endpoint(c),
    region: c.region,
    credentials: c.credentials,
    method: c.method,
    expiresIn: c.expiresIn,
    now: NOW,
    headers: c.headers,
  })
}
const CREDENTIALS: Credentials = {
  accessKeyId: 'AKIDEXAMPLETESTONLY1',
  secretAccessKey: 'test/secret+key/not+real/0123456789abcdef',
}
const SESSION: Credentials = {
  ...CREDENTIALS,
  sessionToken: 'IQoJb3JpZ2luX2VjEPr//////////test+token/with=padding==',
}

const LOCATIONS: ReadonlyArray<Pick<Case, 'region' | 'bucket' | 'style' | 'endpoint'>> = [
  { region: 'us-east-1', bucket: 'photos', style: 'virtual' },
  { region: 'us-east-1', bucket: 'photos', style: 'path' },
  { region: 'eu-west-1', bucket: 'photos-eu', style: 'virtual' },
  { region: 'ap-southeast-2', bucket: 'my.dotted.bucket', style: 'path' },
  { region: 'us-east-1', bucket: 'e2e', style: 'path', endpoint: 'http://127.0.0.1:7070' },
  { region: 'us-east-1', bucket: 'e2e', style: 'virtual', endpoint: 'http://localhost:7070' },
  {
    region: 'auto',
    bucket: 'assets',
    style: 'path',
    endpoint: 'https://0123abcd.r2.cloudflarestorage.com',
  },
  {
    region: 'auto',
    bucket: 'assets',
    style: 'virtual',
    endpoint: 'https://0123abcd.r2.cloudflarestorage.com:8443',
  },
]

const OPTIONS: ReadonlyArray<
  Pick<Case, 'credentials' | 'method' | 'expiresIn'> & { item?: Partial<PresignItem> }
> = [
  { credentials: CREDENTIALS, method: 'GET', expiresIn: 900 },
  { credentials: SESSION, method: 'GET', expiresIn: 1 },
  { credentials: CREDENTIALS, method: 'HEAD', expiresIn: 604800 },
  { credentials: SESSION, method: 'PUT', expiresIn: 3600 },
  { credentials: CREDENTIALS, method: 'DELETE', expiresIn: 60 },
  {
    credentials: CREDENTIALS,
    method: 'GET',
    expiresIn: 300,
    item: {
      versionId: 'v1.0+3/L4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY=',
      response: {
        contentDisposition: `attachment; filename="report (final).pdf"; filename*=UTF-8''${escapeUri('résumé 😀.pdf')}`,
        contentType: 'application/pdf; charset=utf-8',
        cacheControl: 'private, max-age=0',
        contentLanguage: 'fr-CA',
        contentEncoding: 'gzip',
        expires: 'Thu, 01 Dec 1994 16:00:00 GMT',
      },
    },
  },
]

describe('agreement with @smithy/signature-v4 at a fixed clock', () => {
  const cases: Case[] = []
  for (const location of LOCATIONS) {
    for (const options of OPTIONS) {
      for (const key of HARD_KEYS) {
        cases.push({ ...location, ...options, item: { ...options.item, key } })
      }
    }
  }

  it(`gives the same URL for ${cases.length} cases (keys × locations × options)`, async () => {
    expect(cases.length).toBeGreaterThan(1000)
    for (const c of cases) {
      const ours = await presignerFor(c).presign(c.item)
      expect(ours, JSON.stringify(c)).toBe(await referenceUrl(c, NOW))
    }
  })

  it('presignAll keeps input order and equals presign item by item', async () => {
    const presigner = prepareS3Presign({
      endpoint: resolveS3Endpoint({ bucket: 'photos', region: 'us-east-1', style: 'virtual' }),
      region: 'us-east-1',
      credentials: CREDENTIALS,
      method: 'GET',
      expiresIn: 900,
      now: NOW,
    })
    const items = HARD_KEYS.map((key) => ({ key }))
    const all = await presigner.presignAll(items)
    expect(all).toHaveLength(items.length)
    for (let i = 0; i < items.length; i++) {
      expect(all[i]).toBe(await presigner.presign(items[i]!))
    }
  })
})

describe('signed headers and multipart parameters', () => {
  const UPLOAD_HEADERS = {
    'content-type': 'image/png',
    'content-length': '12582912',
    'if-none-match': '*',
    'x-amz-checksum-sha256': 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    'x-amz-meta-caption': '  a   spaced  caption ',
  }
  const cases: Case[] = []
  for (const location of LOCATIONS) {
    for (const key of HARD_KEYS) {
      cases.push({
        ...location,
        credentials: SESSION,
        method: 'PUT',
        expiresIn: 600,
        item: { key },
        headers: UPLOAD_HEADERS,
      })
      cases.push({
        ...location,
        credentials: CREDENTIALS,
        method: 'PUT',
        expiresIn: 3600,
        item: {
          key,
          partNumber: 10000,
          uploadId: 'VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA+/=',
        },
      })
      cases.push({
        ...location,
        credentials: CREDENTIALS,
        method: 'PUT',
        expiresIn: 60,
        item: { key },
        headers: { 'content-type': 'text/plain' },
      })
    }
  }

  it(`gives the same URL as @smithy/signature-v4 for ${cases.length} upload cases`, async () => {
    for (const c of cases) {
      const ours = await presignerFor(c).presign(c.item)
      expect(ours, JSON.stringify(c)).toBe(await referenceUrl(c, NOW))
    }
  })

  it('lists every signed header, host included, in the canonical request', () => {
    const presigner = prepareS3Presign({
      endpoint: resolveS3Endpoint({ bucket: 'photos', region: 'us-east-1', style: 'path' }),
      region: 'us-east-1',
      credentials: CREDENTIALS,
      method: 'PUT',
      expiresIn: 60,
      now: NOW,
      headers: UPLOAD_HEADERS,
    })
    const lines = presigner.canonicalRequest({ key: 'a.png' }).split('\n')
    expect(lines.slice(3, 9)).toEqual([
      'content-length:12582912',
      'content-type:image/png',
      'host:s3.us-east-1.amazonaws.com',
      'if-none-match:*',
      'x-amz-checksum-sha256:n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
      'x-amz-meta-caption:a spaced caption',
    ])
    expect(lines[10]).toBe(
      'content-length;content-type;host;if-none-match;x-amz-checksum-sha256;x-amz-meta-caption',
    )
  })

  it('refuses headers that cannot be signed', () => {
    const base = {
      endpoint: resolveS3Endpoint({ bucket: 'photos', region: 'us-east-1', style: 'path' }),
      region: 'us-east-1',
      credentials: CREDENTIALS,
      method: 'PUT' as const,
      expiresIn: 60,
      now: NOW,
    }
    const refused: Record<string, string>[] = [
      { Host: 'x' },
      { host: 'x' },
      { 'content-type': 'é' },
      { 'x-a': 'a\nb' },
    ]
    for (const headers of refused) {
      expect(() => prepareS3Presign({ ...base, headers })).toThrow(CoreError)
    }
  })
})

describe('validation', () => {
  const base = {
    endpoint: resolveS3Endpoint({ bucket: 'photos', region: 'us-east-1', style: 'virtual' }),
    region: 'us-east-1',
    credentials: CREDENTIALS,
    method: 'GET' as const,
    now: NOW,
  }

  it('refuses expiries outside 1 to 604800 seconds instead of clamping', () => {
    for (const expiresIn of [0, -1, 1.5, 604801, Number.NaN, Infinity]) {
      expect(checkExpiresIn(expiresIn)).toMatch(/1 to 604800/)
      expect(() => prepareS3Presign({ ...base, expiresIn })).toThrow(CoreError)
    }
    expect(checkExpiresIn(1)).toBeUndefined()
    expect(checkExpiresIn(604800)).toBeUndefined()
  })

  it('refuses keys S3 cannot store', async () => {
    expect(checkObjectKey('')).toMatch(/empty/)
    expect(checkObjectKey('a\ud800b')).toMatch(/surrogate/)
    expect(checkObjectKey('é'.repeat(512))).toBeUndefined() // 1024 bytes
    expect(checkObjectKey('é'.repeat(512) + 'x')).toMatch(/1024 bytes/)
    // Around the length below which no key is counted (341 code units of 3 bytes: 1023).
    expect(checkObjectKey('€'.repeat(341))).toBeUndefined()
    expect(checkObjectKey('€'.repeat(341) + 'a')).toBeUndefined() // 1024 bytes
    expect(checkObjectKey('€'.repeat(341) + 'ab')).toMatch(/1024 bytes/)
    expect(checkObjectKey('€'.repeat(342))).toMatch(/1024 bytes/)
    expect(checkObjectKey('😀'.repeat(256))).toBeUndefined() // 512 units, 1024 bytes
    expect(checkObjectKey('😀'.repeat(256) + 'a')).toMatch(/1024 bytes/)
    const presigner = prepareS3Presign({ ...base, expiresIn: 60 })
    await expect(presigner.presign({ key: '' })).rejects.toThrow(CoreError)
  })
})
