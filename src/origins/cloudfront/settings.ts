// A CloudFront origin in WAYBILL_ORIGINS:
//   { "type": "cloudfront", "baseUrl": "https://d111111abcdef8.cloudfront.net",
//     "keyPairId": "K2JCJMDEHXQW5F", "privateKey": "CDN_PRIVATE_KEY",
//     "previousKeys"?: [{ "keyPairId", "privateKey" }], "hashAlgorithm"?: "SHA1" | "SHA256",
//     "cookie"?: { "domain"?, "path"?, "secure"?, "httpOnly"?, "sameSite"? }, "keys"?: "safe" | "any",
//     "signingWindow"?: 3600, "listFrom"?: "<an S3 origin over the same bucket>",
//     "responseOverrides"?: false }
// `privateKey` names the secret holding the PEM. Keys are parsed and checked here; they are
// imported into Web Crypto once per isolate by ./keys.ts.

import * as v from 'valibot'
import { parsePrivateKeyPem, type ParsedKey } from '../../core/cloudfront/pem'
import type { HashAlgorithm } from '../../core/cloudfront/sign'
import type { CookieSettings } from '../types'
import { CoreError } from '../../core/errors'
import { OriginName, SigningWindow } from '../../schemas/fields'
import { list, pathTo, strict, strictFields } from '../../schemas/valibot'
import type { Env } from '../../env'
import { Keys, parsedString, readSecret, webUrl, type KeyPolicy } from '../../schemas/config'

const KEY_PAIR_ID = /^[A-Z0-9]{8,64}$/
const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,127}$/
const DOMAIN = /^\.?[a-z0-9-]+(\.[a-z0-9-]+)+$/i
const COOKIE_PATH = /^\/[\x21-\x3a\x3c-\x7e]*$/

const baseUrlMessage =
  'must be the distribution URL, such as "https://d111111abcdef8.cloudfront.net" (an optional path, no query)'
/** The distribution URL, ending in `/`. */
const BaseUrl = parsedString(baseUrlMessage, (text) => {
  const url = webUrl(text)
  if (url === undefined || url.search !== '' || url.hash !== '') return undefined
  return url.origin + url.pathname.replace(/\/?$/, '/')
})

const keyPairIdMessage = 'must be the public key id, such as "K2JCJMDEHXQW5F"'
const KeyPairId = v.pipe(v.string(keyPairIdMessage), v.regex(KEY_PAIR_ID, keyPairIdMessage))

const pemMessage = 'must be set (a secret) to a PEM private key'
/** A PEM private key of a kind CloudFront accepts: RSA of 2048 bits or more, or ECDSA P-256. */
const Pem = v.pipe(
  v.string(pemMessage),
  v.check((pem) => pem.trim() !== '', pemMessage),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      return parsePrivateKeyPem(dataset.value)
    } catch (error) {
      // Its messages complete "the key …" and never quote the key.
      const reason = error instanceof CoreError ? error.message : 'could not be read'
      addIssue({ message: `the key ${reason}` })
      return NEVER
    }
  }),
)

const secretNameMessage =
  'must name the secret holding the PEM private key, such as "CDN_PRIVATE_KEY"'
/** `privateKey`: the name of the secret holding the PEM; becomes the parsed key. */
function privateKey(env: Env) {
  return v.pipe(
    v.string(secretNameMessage),
    v.regex(SECRET_NAME, secretNameMessage),
    v.rawTransform(({ dataset: { value: secret }, addIssue, NEVER }) => {
      const pem = readSecret(env, secret, Pem, addIssue)
      return pem.success ? { secret, parsed: pem.output } : NEVER
    }),
  )
}

const Cookie = v.pipe(
  strict(
    {
      domain: v.optional(
        v.pipe(
          v.string('must be a domain such as ".example.com"'),
          v.regex(DOMAIN, 'must be a domain such as ".example.com"'),
        ),
      ),
      path: v.optional(
        v.pipe(
          v.string('must be a path starting with "/"'),
          v.regex(COOKIE_PATH, 'must be a path starting with "/"'),
        ),
        '/',
      ),
      secure: v.optional(v.boolean('must be true or false'), true),
      httpOnly: v.optional(v.boolean('must be true or false'), true),
      sameSite: v.optional(
        v.picklist(['Strict', 'Lax', 'None'], 'must be "Strict", "Lax" or "None"'),
        'Lax',
      ),
    },
    { type: 'must be an object' },
  ),
  v.rawTransform(({ dataset: { value: cookie }, addIssue, NEVER }): CookieSettings => {
    // Browsers drop a SameSite=None cookie that is not Secure.
    if (cookie.sameSite === 'None' && !cookie.secure) {
      addIssue({ message: 'must be true when sameSite is "None"', path: pathTo(cookie, 'secure') })
      return NEVER
    }
    return Object.freeze(cookie)
  }),
)

/** A key the distribution's key group holds: its id, and the secret that held its PEM. */
export interface CloudFrontKeyConfig {
  readonly keyPairId: string
  /** The secret that held the PEM, for error messages. */
  readonly secret: string
  readonly parsed: ParsedKey
}

/** A CloudFront origin's settings, as its entry of WAYBILL_ORIGINS says them (keys read). */
export interface CloudFrontSettings {
  readonly type: 'cloudfront'
  /** Distribution URL ending in `/`, e.g. `https://d111111abcdef8.cloudfront.net/`. */
  readonly baseUrl: string
  readonly hash: HashAlgorithm
  /** The first key signs; the others are listed (rotation) and imported too, so a bad one shows. */
  readonly signingKeys: readonly CloudFrontKeyConfig[]
  readonly cookie: CookieSettings
  readonly keys: KeyPolicy
  readonly signingWindow: number
  /** An S3 origin whose bucket backs the distribution: `GET /v1/list` lists it. */
  readonly listFrom?: string | undefined
  /**
   * The distribution forwards `response-*` query strings to its bucket, so URLs may carry
   * download, inline and response overrides. A wildcard policy cannot pin them (its `*` matches
   * any query string), so such an origin takes no wildcard grant.
   */
  readonly responseOverrides: boolean
}

/** One CloudFront entry of WAYBILL_ORIGINS, for an env that holds the secrets its keys name. */
export function cloudFrontSettings(env: Env) {
  const PrivateKey = privateKey(env)
  // A variant's option (../index.ts): the variant has checked that it is an object.
  return v.pipe(
    strictFields(
      {
        type: v.literal('cloudfront'),
        baseUrl: BaseUrl,
        keyPairId: KeyPairId,
        privateKey: PrivateKey,
        previousKeys: v.optional(
          list(
            strict(
              { keyPairId: KeyPairId, privateKey: PrivateKey },
              { type: 'must be an object { "keyPairId", "privateKey" }' },
            ),
            () => 'must be a list of { "keyPairId", "privateKey" }',
          ),
          [],
        ),
        hashAlgorithm: v.optional(
          v.picklist(['SHA1', 'SHA256'], 'must be "SHA1" (the default) or "SHA256"'),
          'SHA1',
        ),
        cookie: v.optional(Cookie, {}),
        keys: Keys,
        signingWindow: v.optional(SigningWindow, 0),
        listFrom: v.optional(OriginName),
        responseOverrides: v.optional(v.boolean('must be true or false'), false),
      },
      { type: 'must be an object' },
    ),
    v.transform(
      ({ keyPairId, privateKey, previousKeys, hashAlgorithm, ...origin }): CloudFrontSettings =>
        Object.freeze({
          ...origin,
          hash: hashAlgorithm,
          signingKeys: Object.freeze(
            [{ keyPairId, privateKey }, ...previousKeys].map((key) =>
              Object.freeze({ keyPairId: key.keyPairId, ...key.privateKey }),
            ),
          ),
        }),
    ),
  )
}
