// A CloudFront origin:
//   { "type": "cloudfront", "baseUrl": "https://d111111abcdef8.cloudfront.net",
//     "keyPairId": "K2JCJMDEHXQW5F", "privateKey": "CDN_PRIVATE_KEY",
//     "previousKeys"?: [{ "keyPairId", "privateKey" }], "hashAlgorithm"?: "SHA1" | "SHA256",
//     "cookie"?: { "domain"?, "path"?, "secure"?, "httpOnly"?, "sameSite"? }, "keys"?: "safe" | "any",
//     "signingWindow"?: 3600, "listFrom"?: "<an S3 origin over the same bucket>" }
// `privateKey` names the secret holding the PEM. Keys are parsed and checked here; they are
// imported into Web Crypto once per isolate by ./keys.

import { parsePrivateKeyPem } from '../core/cloudfront/pem'
import { CoreError } from '../core/errors'
import type { Env } from './env'
import type { FieldError } from '../errors'
import { isRecord, rejectUnknownFields } from '../validation'
import { parseSigningWindow } from './window'
import { ORIGIN_NAME } from './names'
import type {
  CloudFrontCookieConfig,
  CloudFrontKeyConfig,
  CloudFrontOrigin,
  KeyPolicy,
} from './types'

const FIELDS = new Set([
  'type',
  'baseUrl',
  'keyPairId',
  'privateKey',
  'previousKeys',
  'hashAlgorithm',
  'cookie',
  'keys',
  'signingWindow',
  'listFrom',
])
const KEY_FIELDS = new Set(['keyPairId', 'privateKey'])
const COOKIE_FIELDS = new Set(['domain', 'path', 'secure', 'httpOnly', 'sameSite'])
const KEY_PAIR_ID = /^[A-Z0-9]{8,64}$/
const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,127}$/
const DOMAIN = /^\.?[a-z0-9-]+(\.[a-z0-9-]+)+$/i

function parseKey(
  env: Env,
  def: unknown,
  path: string,
  errors: FieldError[],
): CloudFrontKeyConfig | undefined {
  if (!isRecord(def)) {
    errors.push({ path, message: 'must be an object { "keyPairId", "privateKey" }' })
    return undefined
  }
  const before = errors.length
  if (typeof def.keyPairId !== 'string' || !KEY_PAIR_ID.test(def.keyPairId)) {
    errors.push({
      path: `${path}.keyPairId`,
      message: 'must be the public key id, such as "K2JCJMDEHXQW5F"',
    })
  }
  const secret = def.privateKey
  if (typeof secret !== 'string' || !SECRET_NAME.test(secret)) {
    errors.push({
      path: `${path}.privateKey`,
      message: 'must name the secret holding the PEM private key, such as "CDN_PRIVATE_KEY"',
    })
    return undefined
  }
  const pem = env[secret]
  if (typeof pem !== 'string' || pem.trim() === '') {
    errors.push({
      path: secret,
      message: `must be set (a secret) to the PEM private key for ${path}`,
    })
    return undefined
  }
  try {
    const parsed = parsePrivateKeyPem(pem)
    if (errors.length > before) return undefined
    return Object.freeze({ keyPairId: def.keyPairId as string, secret, parsed })
  } catch (error) {
    const reason = error instanceof CoreError ? error.message : 'could not be read'
    errors.push({ path: secret, message: `the key for ${path} ${reason}` })
    return undefined
  }
}

function parseCookie(def: unknown, path: string, errors: FieldError[]): CloudFrontCookieConfig {
  const cookie: CloudFrontCookieConfig = {
    path: '/',
    secure: true,
    httpOnly: true,
    sameSite: 'Lax',
  }
  if (def === undefined) return cookie
  if (!isRecord(def)) {
    errors.push({ path, message: 'must be an object' })
    return cookie
  }
  rejectUnknownFields(def, COOKIE_FIELDS, path, errors)
  const { domain, path: cookiePath, secure, httpOnly, sameSite } = def
  if (domain !== undefined && (typeof domain !== 'string' || !DOMAIN.test(domain))) {
    errors.push({ path: `${path}.domain`, message: 'must be a domain such as ".example.com"' })
  }
  if (
    cookiePath !== undefined &&
    (typeof cookiePath !== 'string' || !/^\/[\x21-\x3a\x3c-\x7e]*$/.test(cookiePath))
  ) {
    errors.push({ path: `${path}.path`, message: 'must be a path starting with "/"' })
  }
  for (const [name, value] of [
    ['secure', secure],
    ['httpOnly', httpOnly],
  ] as const) {
    if (value !== undefined && typeof value !== 'boolean') {
      errors.push({ path: `${path}.${name}`, message: 'must be true or false' })
    }
  }
  if (
    sameSite !== undefined &&
    sameSite !== 'Strict' &&
    sameSite !== 'Lax' &&
    sameSite !== 'None'
  ) {
    errors.push({ path: `${path}.sameSite`, message: 'must be "Strict", "Lax" or "None"' })
  }
  if (sameSite === 'None' && secure === false) {
    errors.push({ path: `${path}.secure`, message: 'must be true when sameSite is "None"' })
  }
  return {
    domain: domain as string | undefined,
    path: (cookiePath as string | undefined) ?? '/',
    secure: (secure as boolean | undefined) ?? true,
    httpOnly: (httpOnly as boolean | undefined) ?? true,
    sameSite: (sameSite as CloudFrontCookieConfig['sameSite'] | undefined) ?? 'Lax',
  }
}

export function parseCloudFrontOrigin(
  env: Env,
  name: string,
  def: Record<string, unknown>,
  path: string,
  errors: FieldError[],
): CloudFrontOrigin | undefined {
  const before = errors.length
  rejectUnknownFields(def, FIELDS, path, errors)

  let baseUrl: string | undefined
  try {
    const url = new URL(typeof def.baseUrl === 'string' ? def.baseUrl : '')
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error()
    if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
      throw new Error()
    baseUrl = url.origin + url.pathname.replace(/\/?$/, '/')
  } catch {
    errors.push({
      path: `${path}.baseUrl`,
      message:
        'must be the distribution URL, such as "https://d111111abcdef8.cloudfront.net" (an optional path, no query)',
    })
  }

  const hash = def.hashAlgorithm ?? 'SHA1'
  if (hash !== 'SHA1' && hash !== 'SHA256') {
    errors.push({
      path: `${path}.hashAlgorithm`,
      message: 'must be "SHA1" (the default) or "SHA256"',
    })
  }
  if (def.keys !== undefined && def.keys !== 'safe' && def.keys !== 'any') {
    errors.push({ path: `${path}.keys`, message: 'must be "safe" (the default) or "any"' })
  }

  const active = parseKey(
    env,
    { keyPairId: def.keyPairId, privateKey: def.privateKey },
    path,
    errors,
  )
  const signingKeys: CloudFrontKeyConfig[] = active === undefined ? [] : [active]
  if (def.previousKeys !== undefined) {
    if (!Array.isArray(def.previousKeys)) {
      errors.push({
        path: `${path}.previousKeys`,
        message: 'must be a list of { "keyPairId", "privateKey" }',
      })
    } else {
      def.previousKeys.forEach((entry: unknown, i) => {
        const keyPath = `${path}.previousKeys.${i}`
        if (isRecord(entry)) rejectUnknownFields(entry, KEY_FIELDS, keyPath, errors)
        const key = parseKey(env, entry, keyPath, errors)
        if (key !== undefined) signingKeys.push(key)
      })
    }
  }
  const cookie = parseCookie(def.cookie, `${path}.cookie`, errors)
  const signingWindow = parseSigningWindow(def.signingWindow, `${path}.signingWindow`, errors)
  const listFrom = def.listFrom
  if (listFrom !== undefined && (typeof listFrom !== 'string' || !ORIGIN_NAME.test(listFrom))) {
    errors.push({ path: `${path}.listFrom`, message: 'must name an S3 origin' })
  }
  if (errors.length > before || baseUrl === undefined) return undefined
  return Object.freeze({
    name,
    type: 'cloudfront',
    baseUrl,
    hash: hash as CloudFrontOrigin['hash'],
    signingKeys: Object.freeze(signingKeys),
    cookie: Object.freeze(cookie),
    keys: (def.keys ?? 'safe') as KeyPolicy,
    signingWindow,
    listFrom: listFrom as string | undefined,
  })
}
