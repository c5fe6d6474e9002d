// CloudFront signed URLs and cookies: canned and custom policies signed with RSA (RSASSA-PKCS1-v1_5)
// or ECDSA P-256, SHA-1 or SHA-256.
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/private-content-creating-signed-url-canned-policy.html
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/private-content-creating-signed-url-custom-policy.html
//
// Pure apart from Web Crypto: the clock is an input and keys arrive imported.

import { base64Encode } from '../bytes'
import { encodeKeyPath } from '../sigv4/encoding'
import type { KeyKind } from './pem'

export type HashAlgorithm = 'SHA1' | 'SHA256'

/** An imported signing key and what CloudFront needs to know about it. */
export interface CloudFrontKey {
  keyPairId: string
  kind: KeyKind
  hash: HashAlgorithm
  key: CryptoKey
}

/** The Web Crypto algorithms for a key kind and hash (the hash is bound to an RSA key at import). */
export function importAlgorithm(kind: KeyKind, hash: HashAlgorithm) {
  const webHash = hash === 'SHA1' ? 'SHA-1' : 'SHA-256'
  return kind === 'rsa'
    ? { name: 'RSASSA-PKCS1-v1_5', hash: webHash }
    : { name: 'ECDSA', namedCurve: 'P-256' }
}

function signAlgorithm(key: CloudFrontKey) {
  return key.kind === 'rsa'
    ? { name: 'RSASSA-PKCS1-v1_5' }
    : { name: 'ECDSA', hash: key.hash === 'SHA1' ? 'SHA-1' : 'SHA-256' }
}

/** CloudFront's URL-safe base64: `+` → `-`, `=` → `_`, `/` → `~`. */
export function cloudFrontBase64(bytes: Uint8Array): string {
  return base64Encode(bytes).replace(/[+=/]/g, (c) => (c === '+' ? '-' : c === '=' ? '_' : '~'))
}

const encoder = new TextEncoder()

/** The DER form OpenSSL emits and verifies (`ECDSA-Sig-Value`, RFC 3279) of Web Crypto's r‖s. */
export function ecdsaRawToDer(raw: Uint8Array): Uint8Array {
  const half = raw.length / 2
  const integer = (bytes: Uint8Array): number[] => {
    let i = 0
    while (i < bytes.length - 1 && bytes[i] === 0) i++
    const trimmed = [...bytes.subarray(i)]
    if (trimmed[0]! & 0x80) trimmed.unshift(0)
    return [0x02, trimmed.length, ...trimmed]
  }
  const body = [...integer(raw.subarray(0, half)), ...integer(raw.subarray(half))]
  return new Uint8Array([0x30, body.length, ...body])
}

/** Signs a policy; the signature in CloudFront's base64. */
export async function signPolicy(key: CloudFrontKey, policy: string): Promise<string> {
  const signature = new Uint8Array(
    await crypto.subtle.sign(signAlgorithm(key), key.key, encoder.encode(policy)),
  )
  return cloudFrontBase64(key.kind === 'ec' ? ecdsaRawToDer(signature) : signature)
}

/** The canned policy, byte for byte as CloudFront defines it (no whitespace). */
export function cannedPolicy(resource: string, expiresEpochS: number): string {
  return `{"Statement":[{"Resource":${JSON.stringify(resource)},"Condition":{"DateLessThan":{"AWS:EpochTime":${expiresEpochS}}}}]}`
}

export interface CustomPolicyInput {
  /** The URL or a wildcard pattern (`https://d.cloudfront.net/users/alice/*`). */
  resource: string
  dateLessThan: number
  dateGreaterThan?: number | undefined
  /** IPv4 CIDR (`192.0.2.0/24`); a bare address means /32. */
  ipAddress?: string | undefined
}

/** A custom policy, conditions in the order CloudFront documents them. */
export function customPolicy(input: CustomPolicyInput): string {
  let condition = `"DateLessThan":{"AWS:EpochTime":${input.dateLessThan}}`
  if (input.dateGreaterThan !== undefined) {
    condition += `,"DateGreaterThan":{"AWS:EpochTime":${input.dateGreaterThan}}`
  }
  if (input.ipAddress !== undefined) {
    const cidr = input.ipAddress.includes('/') ? input.ipAddress : `${input.ipAddress}/32`
    condition += `,"IpAddress":{"AWS:SourceIp":${JSON.stringify(cidr)}}`
  }
  return `{"Statement":[{"Resource":${JSON.stringify(input.resource)},"Condition":{${condition}}}]}`
}

/** `Hash-Algorithm` is sent only for SHA-256; SHA-1 is CloudFront's default. */
function hashParam(key: CloudFrontKey): string {
  return key.hash === 'SHA256' ? '&Hash-Algorithm=SHA256' : ''
}

/** The object URL for a key: base URL (ending in `/`) plus the key encoded as the S3 core does. */
export function objectUrl(baseUrl: string, objectKey: string): string {
  return baseUrl + encodeKeyPath(objectKey)
}

/** A URL signed with a canned policy whose resource is exactly `url` (query string included). */
export async function signCannedUrl(
  key: CloudFrontKey,
  url: string,
  expiresEpochS: number,
): Promise<string> {
  const signature = await signPolicy(key, cannedPolicy(url, expiresEpochS))
  const join = url.includes('?') ? '&' : '?'
  return `${url}${join}Expires=${expiresEpochS}&Key-Pair-Id=${key.keyPairId}&Signature=${signature}${hashParam(key)}`
}

/** The query parameters that carry a custom policy, to append to any URL the policy covers. */
export async function customPolicyParams(key: CloudFrontKey, policy: string): Promise<string> {
  const signature = await signPolicy(key, policy)
  return `Policy=${cloudFrontBase64(encoder.encode(policy))}&Key-Pair-Id=${key.keyPairId}&Signature=${signature}${hashParam(key)}`
}

/** Appends signed parameters to a URL. */
export function withParams(url: string, params: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${params}`
}

export type SignedCookies = {
  'CloudFront-Policy': string
  'CloudFront-Signature': string
  'CloudFront-Key-Pair-Id': string
  'CloudFront-Hash-Algorithm'?: 'SHA256'
}

/** Signed cookies for a custom policy. */
export async function signCookies(key: CloudFrontKey, policy: string): Promise<SignedCookies> {
  const cookies: SignedCookies = {
    'CloudFront-Policy': cloudFrontBase64(encoder.encode(policy)),
    'CloudFront-Signature': await signPolicy(key, policy),
    'CloudFront-Key-Pair-Id': key.keyPairId,
  }
  if (key.hash === 'SHA256') cookies['CloudFront-Hash-Algorithm'] = 'SHA256'
  return cookies
}
