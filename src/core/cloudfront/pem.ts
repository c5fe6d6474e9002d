// Private keys as people have them: PKCS#1 (`BEGIN RSA PRIVATE KEY`, what OpenSSL and the AWS guides
// produce), PKCS#8 (`BEGIN PRIVATE KEY`) and SEC1 (`BEGIN EC PRIVATE KEY`), often mangled on the way
// into an environment variable. Web Crypto imports only PKCS#8, so PKCS#1 and SEC1 are wrapped here.
// RFC 8017 (PKCS#1) A.1.2, RFC 5208 (PKCS#8), RFC 5915 (SEC1 ECPrivateKey), RFC 5480 (curve OIDs).

import { CoreError } from '../errors'
import { base64Decode } from '../bytes'
import {
  INTEGER,
  NULL,
  OCTET_STRING,
  OID,
  SEQUENCE,
  children,
  equalBytes,
  readTlv,
  tlv,
} from './der'

export type KeyKind = 'rsa' | 'ec'

export interface ParsedKey {
  kind: KeyKind
  /** PKCS#8 DER, ready for `crypto.subtle.importKey('pkcs8', …)`. */
  pkcs8: Uint8Array
  /** RSA modulus size in bits. */
  modulusBits?: number
}

const RSA_ENCRYPTION = new Uint8Array([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01])
const EC_PUBLIC_KEY = new Uint8Array([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01])
const PRIME256V1 = new Uint8Array([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07])
const VERSION_0 = new Uint8Array([0x02, 0x01, 0x00])

/** Undoes what environment variables do to PEM text: quotes, literal `\n`, CRLF, lost line breaks. */
function pemBody(text: string): { label: string; der: Uint8Array } {
  let pem = text.trim()
  if (/^(['"]).*\1$/s.test(pem)) pem = pem.slice(1, -1)
  pem = pem.replace(/\\r/g, '').replace(/\\n/g, '\n').replace(/\r/g, '')
  const match = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/.exec(pem)
  if (match === null)
    throw new CoreError('invalid_key_material', 'is not a PEM private key (no BEGIN/END lines)')
  const label = match[1]!
  const body = match[2]!
  if (label.includes('ENCRYPTED') || /Proc-Type:\s*4,ENCRYPTED/.test(body)) {
    throw new CoreError(
      'invalid_key_material',
      'is an encrypted key; store the decrypted key as the secret',
    )
  }
  const base64 = body.replace(/\s+/g, '')
  const der = base64Decode(base64)
  if (der === undefined) {
    throw new CoreError('invalid_key_material', 'has a body that is not valid base64')
  }
  return { label, der }
}

function bitLength(bytes: Uint8Array): number {
  let i = 0
  while (i < bytes.length && bytes[i] === 0) i++
  if (i === bytes.length) return 0
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i]!))
}

/** The modulus size of a PKCS#1 RSAPrivateKey. */
function rsaModulusBits(der: Uint8Array): number {
  const [version, modulus] = children(der, readTlv(der, 0))
  if (version?.tag !== INTEGER || modulus?.tag !== INTEGER)
    throw new CoreError('invalid_key_material', 'is not an RSA private key')
  return bitLength(der.subarray(modulus.start, modulus.end))
}

/** Checks a SEC1 ECPrivateKey: P-256 when it names its curve, a 32-byte private key. */
function checkSec1(der: Uint8Array): void {
  const parts = children(der, readTlv(der, 0))
  const privateKey = parts[1]
  if (parts[0]?.tag !== INTEGER || privateKey?.tag !== OCTET_STRING)
    throw new CoreError('invalid_key_material', 'is not an EC private key')
  const params = parts.find((p) => p.tag === 0xa0)
  if (params !== undefined) {
    const curve = readTlv(der, params.start, params.end)
    if (curve.tag !== OID || !equalBytes(der.subarray(curve.start, curve.end), PRIME256V1)) {
      throw new CoreError(
        'invalid_key_material',
        'uses a curve other than P-256 (CloudFront accepts ECDSA P-256 only)',
      )
    }
  } else if (privateKey.end - privateKey.start !== 32) {
    throw new CoreError('invalid_key_material', 'is not a P-256 key')
  }
}

function wrapPkcs8(algorithm: Uint8Array, key: Uint8Array): Uint8Array {
  return tlv(SEQUENCE, VERSION_0, algorithm, tlv(OCTET_STRING, key))
}

const RSA_ALGORITHM = tlv(SEQUENCE, tlv(OID, RSA_ENCRYPTION), tlv(NULL))
const EC_ALGORITHM = tlv(SEQUENCE, tlv(OID, EC_PUBLIC_KEY), tlv(OID, PRIME256V1))

function fromPkcs8(der: Uint8Array): ParsedKey {
  const [version, algorithm, privateKey] = children(der, readTlv(der, 0))
  if (version?.tag !== INTEGER || algorithm?.tag !== SEQUENCE || privateKey?.tag !== OCTET_STRING) {
    throw new CoreError('invalid_key_material', 'is not a PKCS#8 private key')
  }
  const [oid, params] = children(der, algorithm)
  if (oid?.tag !== OID) throw new CoreError('invalid_key_material', 'is not a PKCS#8 private key')
  const oidBytes = der.subarray(oid.start, oid.end)
  const inner = der.subarray(privateKey.start, privateKey.end)
  if (equalBytes(oidBytes, RSA_ENCRYPTION)) {
    return { kind: 'rsa', pkcs8: der, modulusBits: rsaModulusBits(inner) }
  }
  if (equalBytes(oidBytes, EC_PUBLIC_KEY)) {
    if (params?.tag !== OID || !equalBytes(der.subarray(params.start, params.end), PRIME256V1)) {
      throw new CoreError(
        'invalid_key_material',
        'uses a curve other than P-256 (CloudFront accepts ECDSA P-256 only)',
      )
    }
    checkSec1(inner)
    return { kind: 'ec', pkcs8: der }
  }
  throw new CoreError('invalid_key_material', 'is neither an RSA nor an EC key')
}

/**
 * Parses a PEM private key into PKCS#8, checking what CloudFront accepts: RSA of 2048 bits or more,
 * or ECDSA P-256. Throws an Error whose message completes "the key …".
 *
 * @example
 * const { kind, pkcs8 } = parsePrivateKeyPem(env.CDN_PRIVATE_KEY)
 * await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-1' }, false, ['sign'])
 */
export function parsePrivateKeyPem(text: string): ParsedKey {
  const { label, der } = pemBody(text)
  let key: ParsedKey
  try {
    switch (label) {
      case 'RSA PRIVATE KEY':
        key = {
          kind: 'rsa',
          pkcs8: wrapPkcs8(RSA_ALGORITHM, der),
          modulusBits: rsaModulusBits(der),
        }
        break
      case 'EC PRIVATE KEY':
        checkSec1(der)
        key = { kind: 'ec', pkcs8: wrapPkcs8(EC_ALGORITHM, der) }
        break
      case 'PRIVATE KEY':
        key = fromPkcs8(der)
        break
      default:
        throw new CoreError('invalid_key_material', `is a "${label}", not a private key`)
    }
  } catch (error) {
    // Our own verdicts pass through; a DER parse failure says only that the key is malformed.
    if (error instanceof CoreError) throw error
    throw new CoreError('invalid_key_material', 'is not a well-formed private key')
  }
  if (key.kind === 'rsa' && (key.modulusBits ?? 0) < 2048) {
    throw new CoreError(
      'invalid_key_material',
      `is RSA-${key.modulusBits}; CloudFront needs 2048 bits or more`,
    )
  }
  return key
}
