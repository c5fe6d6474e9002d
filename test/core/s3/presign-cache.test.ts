// The per-isolate presigner cache: a URL signed from the cache equals one signed fresh, whatever
// the clock does between requests (a new second, a new day, a new signing window), and nothing
// is shared that must not be (other credentials, another lifetime, signed headers).

import { describe, expect, it } from 'vitest'
import { CoreError } from '../../../src/core/errors'
import { PRESIGNER_CACHE_ENTRIES } from '../../../src/core/limits'
import { resolveS3Endpoint } from '../../../src/core/s3/endpoint'
import {
  prepareS3Presign,
  type Credentials,
  type PresignBatchInput,
  type PresignItem,
} from '../../../src/core/s3/presign'
import { cachedS3Presign } from '../../../src/core/s3/presign-cache'
import { signingTime } from '../../../src/core/window'
import { AWS_EXAMPLE } from '../../fixtures/aws-presign-example'
import { HARD_KEYS } from '../../fixtures/keys'

const endpoint = resolveS3Endpoint({ bucket: 'photos', region: 'eu-west-1', style: 'virtual' })
const ITEMS: PresignItem[] = [
  { key: 'gallery/2026/img-000123.jpg' },
  { key: 'a b/ü+?.txt', versionId: 'v1+/=' },
  {
    key: 'reports/2026.pdf',
    response: {
      contentDisposition: `attachment; filename="r.pdf"`,
      contentType: 'application/pdf',
    },
  },
  ...HARD_KEYS.slice(0, 8).map((key) => ({ key })),
]

/** Fresh credentials per test: the cache is per credentials object, so tests never share it. */
function credentials(secretAccessKey = 'cache/test/secret+not+real'): Credentials {
  return Object.freeze({ accessKeyId: 'AKIDCACHETEST', secretAccessKey })
}

function input(creds: Credentials, at: string, overrides: Partial<PresignBatchInput> = {}) {
  return {
    endpoint,
    region: 'eu-west-1',
    credentials: creds,
    method: 'GET' as const,
    expiresIn: 900,
    now: new Date(at),
    ...overrides,
  }
}

/** The cached presigner's URLs, checked against a fresh presigner's for the same input. */
async function cachedEqualsFresh(batch: PresignBatchInput): Promise<string[]> {
  const cached = await cachedS3Presign(batch).presignAll(ITEMS)
  expect(cached).toEqual(await prepareS3Presign(batch).presignAll(ITEMS))
  // One at a time (the redirect's path) as well as in SIMD lanes.
  expect(await cachedS3Presign(batch).presign(ITEMS[1]!)).toBe(cached[1])
  return cached
}

describe('cachedS3Presign', () => {
  it('reproduces the AWS documentation example from the cache', async () => {
    const batch = {
      endpoint: resolveS3Endpoint({
        bucket: AWS_EXAMPLE.bucket,
        region: AWS_EXAMPLE.region,
        endpoint: 'https://s3.amazonaws.com',
        style: 'virtual' as const,
      }),
      region: AWS_EXAMPLE.region,
      credentials: { ...AWS_EXAMPLE },
      method: 'GET' as const,
      expiresIn: AWS_EXAMPLE.expiresIn,
      now: AWS_EXAMPLE.now,
    }
    for (let i = 0; i < 2; i++) {
      const url = new URL(await cachedS3Presign(batch).presign({ key: AWS_EXAMPLE.key }))
      expect(url.searchParams.get('X-Amz-Signature')).toBe(AWS_EXAMPLE.signature)
    }
  })

  it('keeps one presigner per signing second', async () => {
    const creds = credentials()
    const first = cachedS3Presign(input(creds, '2026-11-23T12:00:00.000Z'))
    expect(cachedS3Presign(input(creds, '2026-11-23T12:00:00.999Z'))).toBe(first)
    const next = cachedS3Presign(input(creds, '2026-11-23T12:00:01.000Z'))
    expect(next).not.toBe(first)
    const [a, b] = await Promise.all([
      cachedEqualsFresh(input(creds, '2026-11-23T12:00:00.500Z')),
      cachedEqualsFresh(input(creds, '2026-11-23T12:00:01.000Z')),
    ])
    expect(a).not.toEqual(b)
    expect(new URL(b[0]!).searchParams.get('X-Amz-Date')).toBe('20261123T120001Z')
  })

  it('equals fresh signing across a day boundary (a new signing key and scope)', async () => {
    const creds = credentials()
    const before = await cachedEqualsFresh(input(creds, '2026-11-23T23:59:59.999Z'))
    const after = await cachedEqualsFresh(input(creds, '2026-11-24T00:00:00.000Z'))
    expect(new URL(before[0]!).searchParams.get('X-Amz-Credential')).toContain('/20261123/')
    expect(new URL(after[0]!).searchParams.get('X-Amz-Credential')).toContain('/20261124/')
    // And back: the earlier day's presigner is still the right one for its second.
    expect(await cachedEqualsFresh(input(creds, '2026-11-23T23:59:59.000Z'))).toEqual(before)
  })

  it('keeps lifetimes, methods, regions and endpoints apart (each expiry its own URL)', async () => {
    const creds = credentials()
    const at = '2026-11-23T12:00:00Z'
    const variants: Partial<PresignBatchInput>[] = [
      {},
      { expiresIn: 901 },
      { expiresIn: 604_800 },
      { method: 'HEAD' },
      { method: 'DELETE' },
      { region: 'us-east-1' },
      { endpoint: resolveS3Endpoint({ bucket: 'other', region: 'eu-west-1', style: 'virtual' }) },
      { endpoint: resolveS3Endpoint({ bucket: 'photos', region: 'eu-west-1', style: 'path' }) },
      { service: 's3express' },
    ]
    const urls = await Promise.all(variants.map((v) => cachedEqualsFresh(input(creds, at, v))))
    expect(new Set(urls.map((u) => u[0])).size).toBe(variants.length)
    expect(new URL(urls[1]![0]!).searchParams.get('X-Amz-Expires')).toBe('901')
  })

  it('equals fresh signing across signing-window boundaries', async () => {
    const creds = credentials()
    const windowed = (at: string) => {
      const time = signingTime(new Date(at), 900, 3600)
      return input(creds, time.signedAt.toISOString(), { expiresIn: time.lifetime })
    }
    const early = cachedS3Presign(windowed('2026-11-23T10:00:00Z'))
    expect(cachedS3Presign(windowed('2026-11-23T10:17:42.123Z'))).toBe(early)
    expect(cachedS3Presign(windowed('2026-11-23T10:59:59.999Z'))).toBe(early)
    expect(cachedS3Presign(windowed('2026-11-23T11:00:00Z'))).not.toBe(early)
    const inWindow = await cachedEqualsFresh(windowed('2026-11-23T10:59:59Z'))
    // The window's start and lifetime, worked out by hand: 10:00:00 and 3600 + 900 seconds.
    expect(inWindow).toEqual(
      await prepareS3Presign(input(creds, '2026-11-23T10:00:00Z', { expiresIn: 4500 })).presignAll(
        ITEMS,
      ),
    )
    const nextWindow = await cachedEqualsFresh(windowed('2026-11-23T11:00:00Z'))
    expect(nextWindow).not.toEqual(inWindow)
    // A window across midnight: signed on the earlier day, valid into the next.
    const midnight = await cachedEqualsFresh(windowed('2026-11-23T23:59:59Z'))
    expect(new URL(midnight[0]!).searchParams.get('X-Amz-Date')).toBe('20261123T230000Z')
  })

  it('never shares a presigner between credentials, even with the same access key id', async () => {
    const at = '2026-11-23T12:00:00Z'
    const one = credentials('first/secret/not+real')
    const two = credentials('second/secret/not+real')
    expect(cachedS3Presign(input(one, at))).not.toBe(cachedS3Presign(input(two, at)))
    const [a, b] = await Promise.all([
      cachedEqualsFresh(input(one, at)),
      cachedEqualsFresh(input(two, at)),
    ])
    expect(a[0]).not.toBe(b[0])
  })

  it('does not keep presigners that sign request headers', () => {
    const creds = credentials()
    const upload = input(creds, '2026-11-23T12:00:00Z', {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
    })
    expect(cachedS3Presign(upload)).not.toBe(cachedS3Presign(upload))
  })

  it('is bounded: the oldest presigner goes first', () => {
    const creds = credentials()
    const at = (s: number) => input(creds, new Date(Date.UTC(2026, 10, 23, 12, 0, s)).toISOString())
    const first = cachedS3Presign(at(0))
    const second = cachedS3Presign(at(1))
    for (let s = 2; s <= PRESIGNER_CACHE_ENTRIES; s++) cachedS3Presign(at(s))
    expect(cachedS3Presign(at(1))).toBe(second)
    expect(cachedS3Presign(at(0))).not.toBe(first)
  })

  it('keeps nothing for a refused input', () => {
    const creds = credentials()
    const bad = input(creds, '2026-11-23T12:00:00Z', { expiresIn: 604_801 })
    expect(() => cachedS3Presign(bad)).toThrow(CoreError)
    expect(() => cachedS3Presign(bad)).toThrow(CoreError)
  })
})
