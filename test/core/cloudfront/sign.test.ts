import { describe, expect, inject, it } from 'vitest'
import { parsePrivateKeyPem } from '../../../src/core/cloudfront/pem'
import {
  cannedPolicy,
  cloudFrontBase64,
  customPolicy,
  customPolicyParams,
  ecdsaRawToDer,
  importAlgorithm,
  objectUrl,
  signCannedUrl,
  signCookies,
  signPolicy,
  withParams,
  type CloudFrontKey,
  type HashAlgorithm,
} from '../../../src/core/cloudfront/sign'
import {
  nodeVerifies,
  opensslVerifies,
  policyOfUrl,
  sdkSignedCookies,
  sdkSignedUrl,
} from '../../helpers/cloudfront'
import { commonKeyPrefix } from '../../../src/core/keys'

const keys = inject('testKeys')
const BASE = 'https://d111111abcdef8.cloudfront.net/'
const KEY_PAIR_ID = 'K2JCJMDEHXQW5F'
const EXPIRES = 1_795_000_000

async function importKey(pem: string, hash: HashAlgorithm): Promise<CloudFrontKey> {
  const parsed = parsePrivateKeyPem(pem)
  const key = await crypto.subtle.importKey(
    'pkcs8',
    parsed.pkcs8,
    importAlgorithm(parsed.kind, hash),
    false,
    ['sign'],
  )
  return { keyPairId: KEY_PAIR_ID, kind: parsed.kind, hash, key }
}

describe('policies and encodings', () => {
  it('writes the canned policy byte for byte as CloudFront defines it', () => {
    expect(cannedPolicy('https://d111111abcdef8.cloudfront.net/a.jpg', 1357034400)).toBe(
      '{"Statement":[{"Resource":"https://d111111abcdef8.cloudfront.net/a.jpg","Condition":{"DateLessThan":{"AWS:EpochTime":1357034400}}}]}',
    )
  })

  it('writes custom policies with conditions in order, a bare IP as /32', () => {
    expect(
      customPolicy({
        resource: 'https://d.example/*',
        dateLessThan: 2,
        dateGreaterThan: 1,
        ipAddress: '192.0.2.10',
      }),
    ).toBe(
      '{"Statement":[{"Resource":"https://d.example/*","Condition":{"DateLessThan":{"AWS:EpochTime":2},"DateGreaterThan":{"AWS:EpochTime":1},"IpAddress":{"AWS:SourceIp":"192.0.2.10/32"}}}]}',
    )
  })

  it("uses CloudFront's URL-safe base64", () => {
    expect(cloudFrontBase64(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe('-~-~')
    expect(cloudFrontBase64(new Uint8Array([0xff]))).toBe('~w__')
  })

  it('turns a raw ECDSA signature into DER, padding high bits and trimming zeros', () => {
    const raw = new Uint8Array(64)
    raw[0] = 0x80 // r needs a 0x00 pad
    raw[32] = 0x00
    raw[33] = 0x01 // s has a leading zero to drop
    const der = ecdsaRawToDer(raw)
    expect(der[0]).toBe(0x30)
    expect([der[2], der[3], der[4], der[5]]).toEqual([0x02, 33, 0x00, 0x80])
    expect([der[der.length - 33], der[der.length - 32]]).toEqual([0x02, 31])
  })

  it('finds the longest common key prefix on whole code points', () => {
    expect(commonKeyPrefix(['users/alice/a.jpg', 'users/alice/b.jpg'])).toBe('users/alice/')
    expect(commonKeyPrefix(['a😀x', 'a😁x'])).toBe('a')
    expect(commonKeyPrefix(['one'])).toBe('one')
    expect(commonKeyPrefix(['x', 'y'])).toBe('')
  })
})

describe('byte-for-byte equality with @aws-sdk/cloudfront-signer (RSA)', () => {
  for (const [form, pem] of [
    ['PKCS#1', keys.rsaPkcs1],
    ['PKCS#8', keys.rsaPkcs8],
  ] as const) {
    for (const hash of ['SHA1', 'SHA256'] as const) {
      it(`canned and custom URLs and cookies, ${form}, ${hash}`, async () => {
        const key = await importKey(pem, hash)
        for (const objectKey of ['images/cat.jpg', 'a/b/c d.png', 'ünïcødé/画像.jpg']) {
          const url = objectUrl(BASE, objectKey)
          const ours = await signCannedUrl(key, url, EXPIRES)
          const theirs = await sdkSignedUrl({
            url,
            keyPairId: KEY_PAIR_ID,
            privateKey: pem,
            dateLessThan: EXPIRES,
            algorithm: hash,
          })
          expect(ours).toBe(theirs)
        }
        const withQuery = `${objectUrl(BASE, 'video.mp4')}?quality=high`
        expect(await signCannedUrl(key, withQuery, EXPIRES)).toBe(
          await sdkSignedUrl({
            url: withQuery,
            keyPairId: KEY_PAIR_ID,
            privateKey: pem,
            dateLessThan: EXPIRES,
            algorithm: hash,
          }),
        )

        const policy = customPolicy({
          resource: `${BASE}users/alice/*`,
          dateLessThan: EXPIRES,
          dateGreaterThan: EXPIRES - 3600,
          ipAddress: '192.0.2.0/24',
        })
        const ours = withParams(
          objectUrl(BASE, 'users/alice/a.jpg'),
          await customPolicyParams(key, policy),
        )
        const theirs = await sdkSignedUrl({
          url: objectUrl(BASE, 'users/alice/a.jpg'),
          policy,
          keyPairId: KEY_PAIR_ID,
          privateKey: pem,
          algorithm: hash,
        })
        expect(ours).toBe(theirs)

        expect(await signCookies(key, policy)).toEqual(
          await sdkSignedCookies({
            policy,
            keyPairId: KEY_PAIR_ID,
            privateKey: pem,
            algorithm: hash,
          }),
        )
      })
    }
  }

  it("differs from the SDK only where the SDK leaves !'()* unencoded, and still verifies", async () => {
    const key = await importKey(keys.rsaPkcs1, 'SHA1')
    const url = objectUrl(BASE, "it's (a)*!.jpg")
    expect(url).toBe(`${BASE}it%27s%20%28a%29%2A%21.jpg`)
    const ours = await signCannedUrl(key, url, EXPIRES)
    const theirs = await sdkSignedUrl({
      url,
      keyPairId: KEY_PAIR_ID,
      privateKey: keys.rsaPkcs1,
      dateLessThan: EXPIRES,
    })
    // The SDK decodes and re-encodes the path with encodeURIComponent: ( ) * ! ' come back raw.
    expect(theirs.startsWith(`${BASE}it's%20(a)*!.jpg?`)).toBe(true)
    expect(ours).not.toBe(theirs)
    const { policy, signature } = policyOfUrl(ours)
    expect(await nodeVerifies(keys.rsaPublic, policy, signature, 'SHA1')).toBe(true)
  })
})

describe('every signature verifies with node:crypto; any change breaks it', () => {
  for (const kind of ['rsa', 'ec'] as const) {
    for (const hash of ['SHA1', 'SHA256'] as const) {
      it(`${kind.toUpperCase()} ${hash}`, async () => {
        const pem = kind === 'rsa' ? keys.rsaPkcs1 : keys.ecSec1
        const publicKey = kind === 'rsa' ? keys.rsaPublic : keys.ecPublic
        const key = await importKey(pem, hash)
        const signed = await signCannedUrl(key, objectUrl(BASE, 'docs/report.pdf'), EXPIRES)
        if (hash === 'SHA256') expect(signed.endsWith('&Hash-Algorithm=SHA256')).toBe(true)
        const { policy, signature } = policyOfUrl(signed)
        expect(await nodeVerifies(publicKey, policy, signature, hash)).toBe(true)
        const tampered = [
          policy.replace(String(EXPIRES), String(EXPIRES + 1)),
          policy.replace('report.pdf', 'report.pdg'),
          policy.replace('"Resource"', '"Resourcf"'),
        ]
        for (const changed of tampered) {
          expect(changed).not.toBe(policy)
          expect(await nodeVerifies(publicKey, changed, signature, hash)).toBe(false)
        }
        const other = await signPolicy(key, policy.replace('docs/', 'doc5/'))
        expect(await nodeVerifies(publicKey, policy, other, hash)).toBe(false)
      })
    }
  }

  it('OpenSSL verifies the DER ECDSA and the RSA signatures as CloudFront documents', async () => {
    for (const [pem, publicKey, hash] of [
      [keys.ecSec1, keys.ecPublic, 'SHA1'],
      [keys.ecPkcs8, keys.ecPublic, 'SHA256'],
      [keys.rsaPkcs1, keys.rsaPublic, 'SHA1'],
    ] as const) {
      const key = await importKey(pem, hash)
      const policy = cannedPolicy(objectUrl(BASE, 'a.jpg'), EXPIRES)
      const signature = await signPolicy(key, policy)
      expect(await opensslVerifies(publicKey, policy, signature, hash)).toEqual({
        ok: true,
        output: 'Verified OK',
      })
      const bad = await opensslVerifies(
        publicKey,
        policy.replace('a.jpg', 'b.jpg'),
        signature,
        hash,
      )
      expect(bad.ok).toBe(false)
    }
  })
})
