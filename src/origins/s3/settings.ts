// An S3 origin in WAYBILL_ORIGINS (AWS S3 or any S3-compatible store: R2 through its S3 API,
// MinIO, versitygw):
//   { "photos": { "type": "s3", "bucket": "photos", "region": "eu-west-1", "credentials": "PHOTOS",
//                 "endpoint"?: "https://<account>.r2.cloudflarestorage.com", "style"?: "virtual" | "path",
//                 "keys"?: "safe" | "any", "signingWindow"?: 3600, "postPolicy"?: true } }

import * as v from 'valibot'
import { resolveS3Endpoint, type AddressingStyle, type S3Endpoint } from '../../core/s3/endpoint'
import type { Credentials } from '../../core/s3/presign'
import type { Env } from '../../env'
import { Keys, parsedString, readSecret, webUrl, type KeyPolicy } from '../../schemas/config'
import { SigningWindow } from '../../schemas/fields'
import { pathTo, strictFields } from '../../schemas/valibot'

/** The bucket the Worker's own S3 calls go to, and the URLs it signs name. */
export interface Bucket {
  readonly bucket: string
  readonly region: string
  readonly style: AddressingStyle
  readonly endpoint: S3Endpoint
  readonly credentials: Readonly<Credentials>
}

/** An S3 origin's settings, as its entry of WAYBILL_ORIGINS says them (secrets read). */
export interface S3Settings extends Bucket {
  readonly type: 's3'
  readonly keys: KeyPolicy
  readonly signingWindow: number
  /** Whether the store accepts browser POST uploads (R2 does not). */
  readonly postPolicy: boolean
}

const REGION = /^[a-z0-9][a-z0-9-]{0,62}$/
// S3 bucket naming rules (general purpose buckets), minus the legacy upper-case forms.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/
const IPV4 = /^\d+\.\d+\.\d+\.\d+$/
const CREDENTIALS_REF = /^[A-Z][A-Z0-9_]{0,63}$/

const bucketMessage = 'must be an S3 bucket name: 3-63 characters of a-z, 0-9, "." and "-"'
const BucketName = v.pipe(
  v.string(bucketMessage),
  v.regex(BUCKET, bucketMessage),
  v.check((bucket) => !bucket.includes('..') && !IPV4.test(bucket), bucketMessage),
)

const regionMessage = 'must be a region such as "us-east-1" or "auto"'
const Region = v.pipe(v.string(regionMessage), v.regex(REGION, regionMessage))

const endpointMessage =
  'must be an http(s) origin such as "https://<account>.r2.cloudflarestorage.com" or "http://127.0.0.1:7070" (no path, query or credentials)'
/** A custom endpoint: an origin and nothing more. */
const Endpoint = parsedString(endpointMessage, (text) => {
  const url = webUrl(text)
  return url === undefined || url.href !== `${url.origin}/` ? undefined : url.origin
})

const accessKeyIdMessage = 'must be set (a secret) to an access key id'
const AccessKeyId = v.pipe(
  v.string(accessKeyIdMessage),
  v.regex(/^[\x21-\x7e]{1,128}$/, accessKeyIdMessage),
)
const secretAccessKeyMessage = 'must be set (a secret) to a secret access key'
const SecretAccessKey = v.pipe(
  v.string(secretAccessKeyMessage),
  v.regex(/^[\x21-\x7e]{1,256}$/, secretAccessKeyMessage),
)
const SessionToken = v.optional(
  v.pipe(
    v.string('must be a session token when set'),
    v.regex(/^[\x21-\x7e]+$/, 'must be a session token when set'),
  ),
)

const credentialsMessage =
  'must name the secrets to use, in upper case: "PHOTOS" reads PHOTOS_ACCESS_KEY_ID and PHOTOS_SECRET_ACCESS_KEY'

/**
 * `credentials`: `"PHOTOS"` reads the secrets PHOTOS_ACCESS_KEY_ID, PHOTOS_SECRET_ACCESS_KEY and,
 * for temporary credentials, PHOTOS_SESSION_TOKEN. Each name is read once per parse, however many
 * origins share it.
 */
function credentials(env: Env) {
  const known = new Map<string, Readonly<Credentials> | undefined>()
  return v.pipe(
    v.string(credentialsMessage),
    v.regex(CREDENTIALS_REF, credentialsMessage),
    v.rawTransform(({ dataset: { value: ref }, addIssue, NEVER }) => {
      if (!known.has(ref)) {
        const id = readSecret(env, `${ref}_ACCESS_KEY_ID`, AccessKeyId, addIssue)
        const secret = readSecret(env, `${ref}_SECRET_ACCESS_KEY`, SecretAccessKey, addIssue)
        const token = readSecret(env, `${ref}_SESSION_TOKEN`, SessionToken, addIssue)
        known.set(
          ref,
          id.success && secret.success && token.success
            ? Object.freeze({
                accessKeyId: id.output,
                secretAccessKey: secret.output,
                sessionToken: token.output,
              })
            : undefined,
        )
      }
      // Unreadable secrets were reported where the name first came up, failing this same parse.
      return known.get(ref) ?? NEVER
    }),
  )
}

/** One S3 entry of WAYBILL_ORIGINS, for an env that holds the secrets it names. */
export function s3Settings(env: Env) {
  return v.pipe(
    strictFields(
      {
        type: v.literal('s3'),
        bucket: BucketName,
        region: Region,
        endpoint: v.optional(Endpoint),
        style: v.optional(v.picklist(['virtual', 'path'], 'must be "virtual" or "path"')),
        credentials: credentials(env),
        keys: Keys,
        signingWindow: v.optional(SigningWindow, 0),
        postPolicy: v.optional(v.boolean('must be true or false'), true),
      },
      { type: 'must be an object' },
    ),
    v.rawTransform(({ dataset: { value: origin }, addIssue, NEVER }): S3Settings => {
      const { bucket, region, endpoint } = origin
      const style = origin.style ?? (endpoint === undefined ? 'virtual' : 'path')
      // A dotted bucket name adds a subdomain level the store's wildcard TLS certificate does not cover.
      if (style === 'virtual' && bucket.includes('.') && !endpoint?.startsWith('http:')) {
        addIssue({
          message:
            'must be "path" for a bucket name with dots over HTTPS (the TLS certificate will not match)',
          path: pathTo(origin, 'style'),
        })
        return NEVER
      }
      const resolved = resolveS3Endpoint({ bucket, region, endpoint, style })
      return Object.freeze({ ...origin, style, endpoint: Object.freeze(resolved) })
    }),
  )
}
