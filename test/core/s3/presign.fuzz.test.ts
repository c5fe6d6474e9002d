// Differential fuzzing of the S3 presigner against @smithy/signature-v4 (the signer inside the AWS
// SDK's @aws-sdk/s3-request-presigner), with seeded fast-check properties. The fixed grid in
// ./presign.test.ts checks hand-picked keys; this file searches the space around them: keys from
// all of Unicode up to the 1024-byte limit, random stores, credentials, clocks, overrides and
// lifetimes. Seed and replay: see test/helpers/fuzz-arbitraries.ts.

import { Sha256 } from '@aws-crypto/sha256-js'
import { SignatureV4 } from '@smithy/signature-v4'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { MAX_KEY_BYTES } from '../../../src/limits'
import { resolveS3Endpoint, type AddressingStyle } from '../../../src/core/s3/endpoint'
import {
  prepareS3Presign,
  type Credentials,
  type PresignItem,
  type PresignMethod,
  type ResponseOverrides,
  type S3Presigner,
} from '../../../src/core/s3/presign'
import { utf8Length } from '../../../src/core/sigv4/encoding'
import { CoreError } from '../../../src/core/errors'
import {
  FUZZ_SEED,
  FUZZ_TIMEOUT_MS,
  charFrom,
  contentDisposition,
  expectSameUrl,
  fuzzParameters,
  invalidObjectKey,
  lowerAlnum,
  objectKey,
  printableAscii,
  utf8Bytes,
  visibleAscii,
} from '../../helpers/fuzz-arbitraries'
import { escapeUri, OVERRIDE_QUERY, SHA256_HEADER } from '../../fixtures/smithy-presign'
import { hmacSha256Hex, sha256Hex, sigV4SigningKey } from '../../helpers/hex'
import { checkObjectKey } from '../../../src/core/keys'

/** Single URLs compared with the reference. */
const SINGLE_RUNS = 10_000
/** Batches of 1 to 8 items through one presigner. */
const BATCH_RUNS = 400
const REJECT_RUNS = 2_000
const ORACLE_RUNS = 5_000

// ---------------------------------------------------------------------------------------------
// The reference: @smithy/signature-v4 configured as @aws-sdk/s3-request-presigner configures it,
// as in ./presign.test.ts (the caller escapes each key segment, the signer must not escape the
// path again; UNSIGNED-PAYLOAD travels in a header that is neither signed nor hoisted). Unlike the
// grid test, the host is worked out here from the generated parts, not by resolveS3Endpoint, so
// the endpoint resolution is under test too.

interface EndpointParts {
  protocol: 'http:' | 'https:'
  hostname: string
  port: number | undefined
  trailingSlash: boolean
}

interface Store {
  region: string
  bucket: string
  style: AddressingStyle
  endpoint: EndpointParts | undefined
  service: string | undefined
}

interface Batch {
  store: Store
  credentials: Credentials
  method: PresignMethod
  expiresIn: number
  now: Date
}

interface Case extends Batch {
  item: PresignItem
}

const DEFAULT_PORT = { 'http:': 80, 'https:': 443 } as const

function endpointString(e: EndpointParts): string {
  return `${e.protocol}//${e.hostname}${e.port === undefined ? '' : `:${e.port}`}${e.trailingSlash ? '/' : ''}`
}

/** The Host a client sends: host names are case-insensitive and a default port is left out. */
function expectedAuthority(store: Store): { protocol: string; host: string; basePath: string } {
  const e = store.endpoint
  const protocol = e?.protocol ?? 'https:'
  const server =
    e === undefined
      ? `s3.${store.region}.amazonaws.com`
      : e.hostname.toLowerCase() +
        (e.port === undefined || e.port === DEFAULT_PORT[e.protocol] ? '' : `:${e.port}`)
  return store.style === 'virtual'
    ? { protocol, host: `${store.bucket}.${server}`, basePath: '' }
    : { protocol, host: server, basePath: `/${store.bucket}` }
}

async function referenceUrl(c: Case): Promise<string> {
  const { protocol, host, basePath } = expectedAuthority(c.store)
  const query: Record<string, string> = {}
  for (const [field, name] of Object.entries(OVERRIDE_QUERY)) {
    const value = c.item.response?.[field as keyof ResponseOverrides]
    if (value !== undefined) query[name] = value
  }
  if (c.item.versionId !== undefined) query.versionId = c.item.versionId
  const path = `${basePath}/${c.item.key.split('/').map(escapeUri).join('/')}`
  const signer = new SignatureV4({
    service: c.store.service ?? 's3',
    region: c.store.region,
    credentials: c.credentials,
    sha256: Sha256,
    uriEscapePath: false,
  })
  const signed = await signer.presign(
    {
      method: c.method,
      protocol,
      hostname: c.store.endpoint?.hostname.toLowerCase() ?? host,
      port: c.store.endpoint?.port,
      path,
      query,
      headers: { host, [SHA256_HEADER]: 'UNSIGNED-PAYLOAD' },
    },
    {
      signingDate: c.now,
      expiresIn: c.expiresIn,
      unsignableHeaders: new Set([SHA256_HEADER]),
      unhoistableHeaders: new Set([SHA256_HEADER]),
    },
  )
  // As @aws-sdk/util-format-url prints it: parameters sorted by name, names and values escaped.
  const search = Object.keys(signed.query ?? {})
    .sort()
    .map((name) => `${escapeUri(name)}=${escapeUri(signed.query?.[name] as string)}`)
    .join('&')
  return `${protocol}//${host}${signed.path}?${search}`
}

function presignerFor(b: Batch): S3Presigner {
  return prepareS3Presign({
    endpoint: resolveS3Endpoint({
      bucket: b.store.bucket,
      region: b.store.region,
      endpoint: b.store.endpoint === undefined ? undefined : endpointString(b.store.endpoint),
      style: b.store.style,
    }),
    region: b.store.region,
    credentials: b.credentials,
    method: b.method,
    expiresIn: b.expiresIn,
    now: b.now,
    service: b.store.service,
  })
}

// ---------------------------------------------------------------------------------------------
// Generators.

const REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-2',
  'eu-west-1',
  'eu-central-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'sa-east-1',
  'me-south-1',
  'il-central-1',
  'us-gov-west-1',
  'cn-north-1',
  'auto',
  'us-east-005',
]

// S3's general purpose bucket rules as src/origins/s3/settings.ts enforces them: 3-63 characters of a-z,
// 0-9, '.' and '-', a letter or digit at both ends, no '..', not an IPv4 address.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/
const validBucket = (name: string) =>
  BUCKET.test(name) && !name.includes('..') && !/^\d+\.\d+\.\d+\.\d+$/.test(name)

const bucketName = fc.oneof(
  fc.constantFrom('photos', 'e2e', 'my.dotted.bucket', 'a-b', 'abc', '0bucket9', 'x'.repeat(63)),
  fc
    .tuple(
      lowerAlnum(1, 1),
      fc.string({ unit: charFrom('abcxyz0189.-'), minLength: 1, maxLength: 61 }),
      lowerAlnum(1, 1),
    )
    .map((parts) => parts.join(''))
    .filter(validBucket),
)

const IP_HOSTS = new Set(['127.0.0.1', '[::1]', '[2001:db8::1]'])
const endpointParts: fc.Arbitrary<EndpointParts> = fc.record({
  protocol: fc.constantFrom('http:', 'https:'),
  hostname: fc.constantFrom(
    'localhost',
    's3.example.com',
    'MinIO.Example.COM',
    '0123abcd.r2.cloudflarestorage.com',
    'storage.googleapis.com',
    's3.us-west-004.backblazeb2.com',
    ...IP_HOSTS,
  ),
  port: fc.option(
    fc.oneof(
      fc.constantFrom(80, 443, 7070, 8443, 9000, 1, 65535),
      fc.integer({ min: 1, max: 65535 }),
    ),
    { nil: undefined },
  ),
  trailingSlash: fc.boolean(),
})

const store: fc.Arbitrary<Store> = fc
  .record({
    region: fc.constantFrom(...REGIONS),
    bucket: bucketName,
    style: fc.constantFrom<AddressingStyle>('virtual', 'path'),
    endpoint: fc.option(endpointParts, { nil: undefined, freq: 2 }),
    service: fc.oneof(
      { weight: 8, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom('s3', 's3-outposts', 's3express') },
    ),
  })
  .map((s) => {
    // What configuration refuses, the generator does not ask for: a bucket in front of an IP
    // address, and a dotted bucket name in the host over HTTPS (the certificate cannot match).
    const https = (s.endpoint?.protocol ?? 'https:') === 'https:'
    const ipHost = s.endpoint !== undefined && IP_HOSTS.has(s.endpoint.hostname)
    if (s.style === 'virtual' && (ipHost || (https && s.bucket.includes('.')))) {
      return { ...s, style: 'path' as const }
    }
    return s
  })

const FIXED_SECRETS = [
  'test/secret+key/not+real/0123456789abcdef',
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'short',
]
const credentials: fc.Arbitrary<Credentials> = fc.record({
  accessKeyId: fc.oneof(
    fc.constantFrom('AKIDEXAMPLETESTONLY1', 'AKIAIOSFODNN7EXAMPLE'),
    fc.string({
      unit: charFrom('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'),
      minLength: 16,
      maxLength: 128,
    }),
    visibleAscii(1, 128),
  ),
  // A few fixed secrets, so cached signing keys are reused across cases; random ones, so a
  // cache keyed too loosely would hand one secret's key to another.
  secretAccessKey: fc.oneof(fc.constantFrom(...FIXED_SECRETS), visibleAscii(1, 256)),
  sessionToken: fc.option(
    fc.oneof(
      fc.string({
        unit: charFrom('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/='),
        minLength: 1,
        maxLength: 1200,
      }),
      visibleAscii(1, 300),
    ),
    { nil: undefined },
  ),
})

const FIXED_NOW = new Date('2026-11-23T12:34:56.789Z')
// The fixed clock of the grid test, days around it (cached signing keys per day), or any time.
const clock = fc.oneof(
  fc.constant(FIXED_NOW),
  fc
    .integer({ min: -3 * 86_400_000, max: 3 * 86_400_000 })
    .map((ms) => new Date(FIXED_NOW.getTime() + ms)),
  fc.date({
    min: new Date('1970-01-01T00:00:00Z'),
    max: new Date('9999-12-31T23:59:59.999Z'),
    noInvalidDate: true,
  }),
)

const expiresIn = fc.oneof(
  fc.constantFrom(1, 2, 60, 900, 3600, 86_400, 604_799, 604_800),
  fc.integer({ min: 1, max: 604_800 }),
)

const overrideValue = fc.oneof(
  { weight: 6, arbitrary: printableAscii(1, 80) },
  { weight: 1, arbitrary: printableAscii(1, 1024) },
  { weight: 1, arbitrary: fc.constant('') },
)
const responseOverrides: fc.Arbitrary<ResponseOverrides> = fc.record(
  {
    cacheControl: fc.oneof(fc.constantFrom('no-cache', 'private, max-age=0'), overrideValue),
    contentDisposition: fc.oneof(contentDisposition, overrideValue),
    contentEncoding: fc.oneof(fc.constantFrom('gzip', 'br, gzip', 'identity'), overrideValue),
    contentLanguage: fc.oneof(fc.constantFrom('en', 'fr-CA', 'zh-Hant-TW'), overrideValue),
    contentType: fc.oneof(
      fc.constantFrom('application/pdf', 'text/plain; charset=utf-8', 'image/svg+xml'),
      overrideValue,
    ),
    expires: fc.oneof(fc.constant('Thu, 01 Dec 1994 16:00:00 GMT'), overrideValue),
  },
  { requiredKeys: [] },
)

const versionId = fc.oneof(
  fc.constantFrom('null', 'v1.0+3/L4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY=', '3sL4kqtJlcpXroDTDmJ+rmSp'),
  visibleAscii(1, 200),
  fc.constant(''),
)

const METHODS: readonly PresignMethod[] = ['GET', 'HEAD', 'PUT', 'DELETE']

interface RawItem {
  key: string
  versionId: string | undefined
  response: ResponseOverrides | undefined
}

const rawItem: fc.Arbitrary<RawItem> = fc.record({
  key: objectKey(),
  versionId: fc.option(versionId, { nil: undefined, freq: 3 }),
  response: fc.option(responseOverrides, { nil: undefined, freq: 3 }),
})

/** Overrides only for GET and HEAD, a version for anything but PUT, as the sign route allows. */
function itemFor(method: PresignMethod, raw: RawItem): PresignItem {
  const item: PresignItem = { key: raw.key }
  if (method !== 'PUT' && raw.versionId !== undefined) item.versionId = raw.versionId
  if ((method === 'GET' || method === 'HEAD') && raw.response !== undefined) {
    item.response = raw.response
  }
  return item
}

const batch: fc.Arbitrary<Batch> = fc.record({
  store,
  credentials,
  method: fc.constantFrom(...METHODS),
  expiresIn,
  now: clock,
})

const singleCase: fc.Arbitrary<Case> = fc
  .tuple(batch, rawItem)
  .map(([b, raw]) => ({ ...b, item: itemFor(b.method, raw) }))

// ---------------------------------------------------------------------------------------------

/** The signature of a string to sign, with the key derived from scratch by Web Crypto. */
async function webCryptoSignature(b: Batch, stringToSign: string): Promise<string> {
  const shortDate = b.now.toISOString().slice(0, 10).replace(/-/g, '')
  const { secretAccessKey } = b.credentials
  const key = await sigV4SigningKey(secretAccessKey, shortDate, b.store.region, b.store.service)
  return hmacSha256Hex(key, stringToSign)
}

beforeAll(() => {
  console.info(`S3 presign fuzz: seed ${FUZZ_SEED} (override with VITE_FUZZ_SEED)`)
})

describe('S3 presigned URLs equal @smithy/signature-v4 on random input', () => {
  it(
    `one URL per case, ${SINGLE_RUNS} cases`,
    async () => {
      const seen = {
        runs: 0,
        astral: 0,
        nonAscii: 0,
        at1024: 0,
        over512: 0,
        slashRun: 0,
        decomposed: 0,
        composed: 0,
        session: 0,
        overrides: 0,
        versioned: 0,
        virtual: 0,
        custom: 0,
      }
      await fc.assert(
        fc.asyncProperty(singleCase, async (c) => {
          // The generator's contract: every key is one S3 stores.
          expect(checkObjectKey(c.item.key)).toBeUndefined()
          const ours = await presignerFor(c).presign(c.item)
          expectSameUrl(ours, await referenceUrl(c), 'smithy')

          const key = c.item.key
          seen.runs++
          if (/[\u{10000}-\u{10ffff}]/u.test(key)) seen.astral++
          if (/[^\x00-\x7f]/.test(key)) seen.nonAscii++
          if (utf8Bytes(key) === MAX_KEY_BYTES) seen.at1024++
          if (utf8Bytes(key) > 512) seen.over512++
          if (key.includes('//')) seen.slashRun++
          // Keys in NFD with something NFC would compose, and in NFC with something to decompose.
          const nfc = key.normalize('NFC')
          const nfd = key.normalize('NFD')
          if (key === nfd && key !== nfc) seen.decomposed++
          if (key === nfc && key !== nfd) seen.composed++
          if (c.credentials.sessionToken !== undefined) seen.session++
          if (c.item.response !== undefined) seen.overrides++
          if (c.item.versionId !== undefined) seen.versioned++
          if (c.store.style === 'virtual') seen.virtual++
          if (c.store.endpoint !== undefined) seen.custom++
        }),
        fuzzParameters(SINGLE_RUNS),
      )
      console.info('S3 single-URL cases:', JSON.stringify(seen))
      // The generator reaches what it claims to: a share of every kind of hard input.
      expect(seen.runs).toBe(SINGLE_RUNS)
      for (const [kind, count] of Object.entries(seen)) {
        expect(count, kind).toBeGreaterThanOrEqual(SINGLE_RUNS / 50)
      }
    },
    FUZZ_TIMEOUT_MS,
  )

  it(
    `presignAll over batches of 1 to 8 items, ${BATCH_RUNS} batches, each step checked`,
    async () => {
      let urls = 0
      await fc.assert(
        fc.asyncProperty(
          batch,
          fc.array(rawItem, { minLength: 1, maxLength: 8 }),
          async (b, raws) => {
            const items = raws.map((raw) => itemFor(b.method, raw))
            const presigner = presignerFor(b)
            const all = await presigner.presignAll(items)
            expect(all).toHaveLength(items.length)
            for (let i = 0; i < items.length; i++) {
              const item = items[i]!
              expectSameUrl(all[i]!, await referenceUrl({ ...b, item }), 'smithy')
              // The exposed steps describe the URL's signature: canonical request → SHA-256 →
              // string to sign → HMAC with a signing key derived independently.
              const canonical = presigner.canonicalRequest(item)
              const digest = await sha256Hex(canonical)
              const signature = await webCryptoSignature(b, presigner.stringToSign(digest))
              expect(new URL(all[i]!).searchParams.get('X-Amz-Signature')).toBe(signature)
              urls++
            }
          },
        ),
        fuzzParameters(BATCH_RUNS),
      )
      console.info(`S3 batch cases: ${BATCH_RUNS} batches, ${urls} URLs`)
      expect(urls).toBeGreaterThan(BATCH_RUNS)
    },
    FUZZ_TIMEOUT_MS,
  )
})

async function expectRefused(outcome: Promise<unknown>, message: string): Promise<void> {
  const settled = await outcome.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  )
  expect(settled.ok, 'must not produce a URL').toBe(false)
  if (settled.ok) return
  expect(settled.error).toBeInstanceOf(CoreError)
  const error = settled.error as CoreError
  expect(error.code).toBe('invalid_key')
  expect(error.message).toBe(message)
}

/** What checkObjectKey says for each kind of bad key. */
const REASON = {
  empty: /^must not be empty$/,
  'lone surrogate': /^must be valid Unicode/,
  'too long': /^must be at most 1024 bytes of UTF-8$/,
} as const

describe('keys S3 cannot store are refused, never signed', () => {
  it(
    `${REJECT_RUNS} empty, lone-surrogate and over-long keys`,
    async () => {
      const kinds: Record<string, number> = {}
      await fc.assert(
        fc.asyncProperty(
          batch,
          invalidObjectKey,
          objectKey({ maxBytes: 64 }),
          async (b, { kind, key }, good) => {
            kinds[kind] = (kinds[kind] ?? 0) + 1
            const reason = checkObjectKey(key)
            expect(reason).toMatch(REASON[kind])
            const presigner = presignerFor(b)
            await expectRefused(presigner.presign({ key }), `key ${reason}`)
            // One bad item fails the whole batch: no partial list of URLs.
            await expectRefused(presigner.presignAll([{ key: good }, { key }]), `key ${reason}`)
            expect(() => presigner.canonicalRequest({ key })).toThrow(CoreError)
          },
        ),
        fuzzParameters(REJECT_RUNS),
      )
      console.info('S3 refused keys:', JSON.stringify(kinds))
      for (const kind of Object.keys(REASON)) expect(kinds[kind], kind).toBeGreaterThan(100)
    },
    FUZZ_TIMEOUT_MS,
  )

  it(`checkObjectKey and utf8Length agree with the platform on ${ORACLE_RUNS} arbitrary strings`, () => {
    // Any UTF-16: valid keys, invalid keys, and raw code units (lone surrogates anywhere).
    const anyString = fc.oneof(
      objectKey(),
      invalidObjectKey.map((k) => k.key),
      fc
        .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 1100 })
        .map((units) => String.fromCharCode(...units)),
      fc
        .array(
          fc.oneof(
            fc.constantFrom('\ud83d', '\ude00', '😀', 'é', 'a'),
            fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)),
          ),
          { maxLength: 600 },
        )
        .map((parts) => parts.join('')),
    )
    fc.assert(
      fc.property(anyString, (value) => {
        // Independent oracles: encodeURIComponent throws on a lone surrogate, and TextEncoder
        // writes U+FFFD (3 bytes) for each one.
        let wellFormed = true
        try {
          encodeURIComponent(value)
        } catch {
          wellFormed = false
        }
        expect(utf8Length(value)).toBe(utf8Bytes(value))
        const accepted = value.length > 0 && wellFormed && utf8Bytes(value) <= MAX_KEY_BYTES
        expect(checkObjectKey(value) === undefined).toBe(accepted)
      }),
      fuzzParameters(ORACLE_RUNS),
    )
  })
})
