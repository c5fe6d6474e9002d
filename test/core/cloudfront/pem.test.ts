import { describe, expect, inject, it } from 'vitest'
import { parsePrivateKeyPem } from '../../../src/core/cloudfront/pem'
import { importAlgorithm, signPolicy } from '../../../src/core/cloudfront/sign'
import { nodeVerifies } from '../../helpers/cloudfront'

const keys = inject('testKeys')

async function signsAndVerifies(pem: string, publicKey: string): Promise<boolean> {
  const parsed = parsePrivateKeyPem(pem)
  const key = await crypto.subtle.importKey(
    'pkcs8',
    parsed.pkcs8,
    importAlgorithm(parsed.kind, 'SHA1'),
    false,
    ['sign'],
  )
  const policy = '{"Statement":[]}'
  const signature = await signPolicy(
    { keyPairId: 'K1', kind: parsed.kind, hash: 'SHA1', key },
    policy,
  )
  return nodeVerifies(publicKey, policy, signature, 'SHA1')
}

describe('parsePrivateKeyPem', () => {
  it('reads PKCS#1, PKCS#8 and SEC1 keys into importable PKCS#8', async () => {
    expect(parsePrivateKeyPem(keys.rsaPkcs1)).toMatchObject({ kind: 'rsa', modulusBits: 2048 })
    expect(parsePrivateKeyPem(keys.rsaPkcs8)).toMatchObject({ kind: 'rsa', modulusBits: 2048 })
    expect(parsePrivateKeyPem(keys.ecSec1).kind).toBe('ec')
    expect(parsePrivateKeyPem(keys.ecPkcs8).kind).toBe('ec')
    expect(await signsAndVerifies(keys.rsaPkcs1, keys.rsaPublic)).toBe(true)
    expect(await signsAndVerifies(keys.rsaPkcs8, keys.rsaPublic)).toBe(true)
    expect(await signsAndVerifies(keys.ecSec1, keys.ecPublic)).toBe(true)
    expect(await signsAndVerifies(keys.ecPkcs8, keys.ecPublic)).toBe(true)
  })

  it('wraps PKCS#1 into the same PKCS#8 OpenSSL writes', () => {
    expect(parsePrivateKeyPem(keys.rsaPkcs1).pkcs8).toEqual(parsePrivateKeyPem(keys.rsaPkcs8).pkcs8)
  })

  it('tolerates what environment variables do to PEM text', async () => {
    const mangled = (pem: string) => [
      pem.replace(/\n/g, '\\n'),
      pem.replace(/\n/g, '\r\n'),
      `"${pem.replace(/\n/g, '\\n')}"`,
      `'${pem}'`,
      `  ${pem}  \n\n`,
      pem.replace(/\n(?!-----END)/g, ' ').replace(/\n/g, ''),
      pem.replace(/\n/g, ''),
    ]
    for (const [pem, publicKey] of [
      [keys.rsaPkcs1, keys.rsaPublic],
      [keys.ecSec1, keys.ecPublic],
    ] as const) {
      for (const variant of mangled(pem)) {
        expect(
          await signsAndVerifies(variant, publicKey),
          JSON.stringify(variant.slice(0, 60)),
        ).toBe(true)
      }
    }
  })

  it('refuses keys CloudFront cannot use, saying why', () => {
    expect(() => parsePrivateKeyPem(keys.rsa1024)).toThrow(/RSA-1024; CloudFront needs 2048/)
    expect(() => parsePrivateKeyPem(keys.ecP384)).toThrow(/P-256/)
    expect(() => parsePrivateKeyPem(keys.rsaPublic)).toThrow(/not a private key/)
    expect(() => parsePrivateKeyPem('hello')).toThrow(/not a PEM private key/)
    expect(() =>
      parsePrivateKeyPem(
        '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----',
      ),
    ).toThrow(/encrypted/)
    expect(() =>
      parsePrivateKeyPem('-----BEGIN RSA PRIVATE KEY-----\n!!!\n-----END RSA PRIVATE KEY-----'),
    ).toThrow(/base64/)
    expect(() =>
      parsePrivateKeyPem(
        '-----BEGIN RSA PRIVATE KEY-----\nMAMCAQA=\n-----END RSA PRIVATE KEY-----',
      ),
    ).toThrow(/well-formed|not an RSA/)
  })
})
