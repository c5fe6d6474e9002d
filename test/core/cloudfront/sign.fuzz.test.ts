// Differential fuzzing of the CloudFront signer against @aws-sdk/cloudfront-signer (which needs
// node:crypto, so it runs in the Node-side crypto service: test/helpers/crypto-service.ts), with seeded
// fast-check properties. Seed and replay: see test/helpers/fuzz-arbitraries.ts.
//
// Where the two disagree, and why (checked exactly below, not just tolerated):
// The SDK re-encodes every path segment of the URL it is given as
// encodeURIComponent(decodeURIComponent(segment)) and signs and returns that form. waybill signs
// exactly the URL it returns. So the two URLs differ, for the same object, precisely when
//   1. the object key contains one of ! ' ( ) * : waybill sends %21 %27 %28 %29 %2A (RFC 3986, as
//      for S3), the SDK decodes them and leaves them raw, because encodeURIComponent does; or
//   2. the distribution's base path (config `baseUrl`, normalized by the URL parser) holds a raw
//      character outside the unreserved set and ! ' ( ) *, such as : @ $ & + , ; = [ ] |, which the
//      URL parser leaves alone and encodeURIComponent escapes.
// Both URLs then name the same object (their segments decode to the same text), each is signed over
// its own form, and waybill's signature verifies with node:crypto. Everywhere else the URLs, the
// custom-policy parameters and the cookies are byte-identical (RSA PKCS#1 v1.5 is deterministic).
// Base paths with literal percent escapes are out of scope: the SDK normalizes those too.

import fc from 'fast-check'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { parsePrivateKeyPem } from '../../../src/core/cloudfront/pem'
import {
  cannedPolicy,
  customPolicy,
  customPolicyParams,
  ecdsaRawToDer,
  importAlgorithm,
  objectUrl,
  signCannedUrl,
  signCookies,
  withParams,
  type CloudFrontKey,
  type HashAlgorithm,
} from '../../../src/core/cloudfront/sign'
import { encodeKeyPath } from '../../../src/core/sigv4/encoding'
import { nodeVerifies, sdkSignedCookies, sdkSignedUrl } from '../../helpers/cloudfront'
import {
  FUZZ_SEED,
  FUZZ_TIMEOUT_MS,
  anyCodePoint,
  charFrom,
  expectSameUrl,
  fuzzParameters,
  lowerAlnum,
  objectKey,
} from '../../helpers/fuzz-arbitraries'
import { commonKeyPrefix } from '../../../src/core/keys'

const CANNED_RUNS = 300
const CUSTOM_RUNS = 120
const EC_RUNS = 100
const DER_RUNS = 3_000

const keys = inject('testKeys')

type Form = 'PKCS#1' | 'PKCS#8'
const PEM: Record<Form, string> = { 'PKCS#1': keys.rsaPkcs1, 'PKCS#8': keys.rsaPkcs8 }

async function importKey(pem: string, hash: HashAlgorithm): Promise<CloudFrontKey> {
  const parsed = parsePrivateKeyPem(pem)
  const key = await crypto.subtle.importKey(
    'pkcs8',
    new Uint8Array(parsed.pkcs8),
    importAlgorithm(parsed.kind, hash),
    false,
    ['sign'],
  )
  return { keyPairId: 'UNSET', kind: parsed.kind, hash, key }
}

// Imported once: by key form and hash for RSA, by hash for EC.
const rsaKeys = new Map<string, CloudFrontKey>()
const ecKeys = new Map<HashAlgorithm, CloudFrontKey>()

beforeAll(async () => {
  console.info(`CloudFront sign fuzz: seed ${FUZZ_SEED} (override with VITE_FUZZ_SEED)`)
  for (const form of ['PKCS#1', 'PKCS#8'] as const) {
    for (const hash of ['SHA1', 'SHA256'] as const) {
      rsaKeys.set(`${form} ${hash}`, await importKey(PEM[form], hash))
    }
  }
  for (const hash of ['SHA1', 'SHA256'] as const)
    ecKeys.set(hash, await importKey(keys.ecSec1, hash))
})

function rsaKey(form: Form, hash: HashAlgorithm, keyPairId: string): CloudFrontKey {
  return { ...rsaKeys.get(`${form} ${hash}`)!, keyPairId }
}

// ---------------------------------------------------------------------------------------------
// Generators.

// Characters for base path segments: everything a distribution URL may carry in its path except
// '/', '?', '#', '\' (structure), '%' (escapes, out of scope) and control characters (the URL
// parser strips or rejects them).
const basePathChar = fc.oneof(
  { weight: 6, arbitrary: charFrom('abcdefghijklmnopqrstuvwxyzABCZ0129-._~') },
  { weight: 2, arbitrary: charFrom("!'()*") },
  { weight: 2, arbitrary: charFrom(' "<>`{}^|[]:@$&+,;=') },
  {
    weight: 2,
    arbitrary: anyCodePoint.filter((ch) => !/[\x00-\x20\x7f/?#\\%]/.test(ch)),
  },
)

/** A distribution's base URL, normalized as src/origins/cloudfront/settings.ts does (origin, path, '/'). */
const baseUrl = fc
  .record({
    protocol: fc.constantFrom('https:', 'http:'),
    host: fc.oneof(
      lowerAlnum(13, 13).map((id) => `d${id}.cloudfront.net`),
      fc.constantFrom(
        'cdn.example.com',
        'CDN.Example.COM',
        'media.example.org:8443',
        'bücher.example',
        'localhost:8787',
        '127.0.0.1:8080',
      ),
    ),
    segments: fc.array(fc.string({ unit: basePathChar, minLength: 1, maxLength: 12 }), {
      maxLength: 3,
    }),
    trailingSlash: fc.boolean(),
  })
  .map(({ protocol, host, segments, trailingSlash }) => {
    const url = new URL(`${protocol}//${host}/${segments.join('/')}${trailingSlash ? '/' : ''}`)
    return url.origin + url.pathname.replace(/\/?$/, '/')
  })

const keyPairId = fc.oneof(
  fc.constant('K2JCJMDEHXQW5F'),
  fc.string({
    unit: charFrom('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
    minLength: 8,
    maxLength: 64,
  }),
)

// Epoch seconds: from 1 (the SDK treats 0 as "no date") to past 2038 and 2106.
const epochSeconds = fc.oneof(
  fc.constantFrom(1, 1_795_000_000, 2_147_483_647, 2_147_483_648, 4_294_967_296),
  fc.integer({ min: 1, max: 8_000_000_000 }),
)

const hash = fc.constantFrom<HashAlgorithm>('SHA1', 'SHA256')
const form = fc.constantFrom<Form>('PKCS#1', 'PKCS#8')

// ---------------------------------------------------------------------------------------------
// The documented difference, and what "the same object" means.

const RAW_IN_SDK_ONLY = /[!'()*]/
const ESCAPED_BY_SDK_ONLY = /[^A-Za-z0-9\-._~!'()*/%]/

/** Whether the SDK's form of `objectUrl(base, key)` differs from waybill's (see the top). */
function encodingsDiffer(base: string, key: string): boolean {
  return RAW_IN_SDK_ONLY.test(key) || ESCAPED_BY_SDK_ONLY.test(new URL(base).pathname)
}

/** The origin as written, and the text each path segment names (percent-decoded). The string is
 * cut by hand: a URL parser would resolve '.' and '..' segments and hide differences. */
function decodedPath(url: string): { origin: string; segments: string[] } {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2)
  return {
    origin: url.slice(0, pathStart),
    segments: url.slice(pathStart).split('/').map(decodeURIComponent),
  }
}

function splitSigned(signed: string): { resource: string; params: string } {
  const at = signed.indexOf('?')
  return { resource: signed.slice(0, at), params: signed.slice(at + 1) }
}

/** A policy built from an object by JSON.stringify: independent of the template in src/. */
function policyJson(
  resource: string,
  dateLessThan: number,
  dateGreaterThan?: number,
  ipAddress?: string,
): string {
  const condition: Record<string, unknown> = { DateLessThan: { 'AWS:EpochTime': dateLessThan } }
  if (dateGreaterThan !== undefined) {
    condition.DateGreaterThan = { 'AWS:EpochTime': dateGreaterThan }
  }
  if (ipAddress !== undefined) {
    condition.IpAddress = {
      'AWS:SourceIp': ipAddress.includes('/') ? ipAddress : `${ipAddress}/32`,
    }
  }
  return JSON.stringify({ Statement: [{ Resource: resource, Condition: condition }] })
}

function signatureOf(signed: string): string {
  return new URL(signed).searchParams.get('Signature')!
}

// ---------------------------------------------------------------------------------------------

describe('canned-policy URLs against @aws-sdk/cloudfront-signer (RSA)', () => {
  it(
    `${CANNED_RUNS} random URLs: identical where encodings agree, verified where they differ`,
    async () => {
      const seen = { identical: 0, differKey: 0, differBase: 0 }
      await fc.assert(
        fc.asyncProperty(
          baseUrl,
          objectKey(),
          epochSeconds,
          hash,
          form,
          keyPairId,
          async (base, objectKeyValue, expires, hashName, formName, kpid) => {
            const url = objectUrl(base, objectKeyValue)
            expect(cannedPolicy(url, expires)).toBe(policyJson(url, expires))
            const ours = await signCannedUrl(rsaKey(formName, hashName, kpid), url, expires)
            const theirs = await sdkSignedUrl({
              url,
              keyPairId: kpid,
              privateKey: PEM[formName],
              dateLessThan: expires,
              algorithm: hashName,
            })
            if (!encodingsDiffer(base, objectKeyValue)) {
              expectSameUrl(ours, theirs, 'cloudfront-signer')
              seen.identical++
              return
            }
            if (RAW_IN_SDK_ONLY.test(objectKeyValue)) seen.differKey++
            else seen.differBase++
            const mine = splitSigned(ours)
            const sdk = splitSigned(theirs)
            expect(mine.resource).toBe(url)
            expect(sdk.resource).not.toBe(url)
            expect(decodedPath(sdk.resource)).toEqual(decodedPath(url))
            // Same parameter names and order; only the signature differs, over a different text.
            expect(mine.params.replace(/Signature=[^&]*/, '')).toBe(
              sdk.params.replace(/Signature=[^&]*/, ''),
            )
            expect(
              await nodeVerifies(
                keys.rsaPublic,
                policyJson(url, expires),
                signatureOf(ours),
                hashName,
              ),
            ).toBe(true)
          },
        ),
        fuzzParameters(CANNED_RUNS),
      )
      console.info('CloudFront canned URLs:', JSON.stringify(seen))
      expect(seen.identical + seen.differKey + seen.differBase).toBe(CANNED_RUNS)
      for (const [kind, count] of Object.entries(seen)) expect(count, kind).toBeGreaterThan(20)
    },
    FUZZ_TIMEOUT_MS,
  )
})

/** Longest common prefix on code points, computed independently of commonKeyPrefix. */
function commonPrefixByCodePoints(values: readonly string[]): string {
  const split = values.map((value) => [...value])
  const first = split[0]!
  let n = 0
  while (n < first.length && split.every((points) => points[n] === first[n])) n++
  return first.slice(0, n).join('')
}

describe('wildcard custom policies, signed URLs and cookies against the SDK (RSA)', () => {
  it(
    `${CUSTOM_RUNS} random batches of keys under one policy`,
    async () => {
      let urls = 0
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            base: baseUrl,
            prefix: objectKey({ maxBytes: 200, maxPieces: 8 }),
            suffixes: fc.array(objectKey({ maxBytes: 200, maxPieces: 8 }), {
              minLength: 1,
              maxLength: 4,
            }),
            dateLessThan: epochSeconds,
            dateGreaterThan: fc.option(fc.integer({ min: 0, max: 8_000_000_000 }), {
              nil: undefined,
            }),
            ipAddress: fc.option(
              fc.tuple(fc.ipV4(), fc.option(fc.integer({ min: 0, max: 32 }), { nil: undefined })),
              { nil: undefined },
            ),
            hash,
            form,
            keyPairId,
          }),
          async (c) => {
            const objectKeys = c.suffixes.map((suffix) => c.prefix + suffix)
            const prefix = commonKeyPrefix(objectKeys)
            expect(prefix).toBe(commonPrefixByCodePoints(objectKeys))

            // As src/services/signers.ts builds a wildcard resource.
            const resource = `${c.base}${encodeKeyPath(prefix)}*`
            const ip =
              c.ipAddress === undefined
                ? undefined
                : c.ipAddress[1] === undefined
                  ? c.ipAddress[0]
                  : `${c.ipAddress[0]}/${c.ipAddress[1]}`
            const policy = customPolicy({
              resource,
              dateLessThan: c.dateLessThan,
              dateGreaterThan: c.dateGreaterThan,
              ipAddress: ip,
            })
            expect(policy).toBe(policyJson(resource, c.dateLessThan, c.dateGreaterThan, ip))

            const key = rsaKey(c.form, c.hash, c.keyPairId)
            const params = await customPolicyParams(key, policy)
            for (const objectKeyValue of objectKeys) {
              const url = objectUrl(c.base, objectKeyValue)
              // The policy covers every URL of the batch.
              expect(url.startsWith(resource.slice(0, -1))).toBe(true)
              const ours = withParams(url, params)
              const theirs = await sdkSignedUrl({
                url,
                policy,
                keyPairId: c.keyPairId,
                privateKey: PEM[c.form],
                algorithm: c.hash,
              })
              if (!encodingsDiffer(c.base, objectKeyValue)) {
                expectSameUrl(ours, theirs, 'cloudfront-signer')
              } else {
                // The policy is the same text, so the parameters (signature included) are too.
                expect(splitSigned(theirs).params).toBe(params)
                expect(decodedPath(splitSigned(theirs).resource)).toEqual(decodedPath(url))
              }
              urls++
            }
            expect(await signCookies(key, policy)).toEqual(
              await sdkSignedCookies({
                policy,
                keyPairId: c.keyPairId,
                privateKey: PEM[c.form],
                algorithm: c.hash,
              }),
            )
            const signature = new URLSearchParams(params).get('Signature')!
            expect(await nodeVerifies(keys.rsaPublic, policy, signature, c.hash)).toBe(true)
          },
        ),
        fuzzParameters(CUSTOM_RUNS),
      )
      console.info(`CloudFront custom policies: ${CUSTOM_RUNS} policies, ${urls} URLs`)
      expect(urls).toBeGreaterThan(CUSTOM_RUNS)
    },
    FUZZ_TIMEOUT_MS,
  )
})

describe('ECDSA P-256 (not in the SDK; randomized, so verified instead of compared)', () => {
  it(
    `${EC_RUNS} random canned URLs verify with node:crypto, and fail once the policy changes`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          baseUrl,
          objectKey({ maxPieces: 10 }),
          epochSeconds,
          hash,
          async (base, objectKeyValue, expires, hashName) => {
            const url = objectUrl(base, objectKeyValue)
            const key = { ...ecKeys.get(hashName)!, keyPairId: 'K2JCJMDEHXQW5F' }
            const signature = signatureOf(await signCannedUrl(key, url, expires))
            const policy = policyJson(url, expires)
            expect(await nodeVerifies(keys.ecPublic, policy, signature, hashName)).toBe(true)
            const later = policyJson(url, expires + 1)
            expect(await nodeVerifies(keys.ecPublic, later, signature, hashName)).toBe(false)
          },
        ),
        fuzzParameters(EC_RUNS),
      )
    },
    FUZZ_TIMEOUT_MS,
  )

  it(`ecdsaRawToDer gives minimal DER with the same integers, ${DER_RUNS} cases`, () => {
    // r and s with leading zero bytes (trimmed in DER) and high bits (padded with 0x00).
    const half = fc
      .record({
        bytes: fc.uint8Array({ minLength: 32, maxLength: 32 }),
        zeros: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 32 })),
        highBit: fc.boolean(),
      })
      .map(({ bytes, zeros, highBit }) => {
        const out = Uint8Array.from(bytes)
        out.fill(0, 0, zeros)
        if (zeros < 32) out[zeros] = highBit ? out[zeros]! | 0x80 : out[zeros]! & 0x7f
        return out
      })
    const toBigInt = (bytes: Uint8Array) =>
      bytes.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n)

    fc.assert(
      fc.property(half, half, (r, s) => {
        const raw = new Uint8Array(64)
        raw.set(r, 0)
        raw.set(s, 32)
        const der = ecdsaRawToDer(raw)
        // SEQUENCE { INTEGER r, INTEGER s }, short-form lengths (at most 2 × 35 bytes).
        expect(der[0]).toBe(0x30)
        expect(der[1]).toBe(der.length - 2)
        let at = 2
        for (const expected of [r, s]) {
          expect(der[at]).toBe(0x02)
          const length = der[at + 1]!
          const body = der.subarray(at + 2, at + 2 + length)
          expect(body.length).toBe(length)
          expect(length).toBeGreaterThanOrEqual(1)
          // Non-negative, and minimal: a leading 0x00 only in front of a high bit.
          expect(body[0]! & 0x80).toBe(0)
          if (length > 1 && body[0] === 0) expect(body[1]! & 0x80).toBe(0x80)
          expect(toBigInt(body)).toBe(toBigInt(expected))
          at += 2 + length
        }
        expect(at).toBe(der.length)
      }),
      fuzzParameters(DER_RUNS),
    )
  })
})
