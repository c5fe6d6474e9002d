// WAYBILL_ORIGINS: origin name → an S3 bucket or a CloudFront distribution (./cloudfront).
//   { "photos": { "type": "s3", "bucket": "photos", "region": "eu-west-1", "credentials": "PHOTOS",
//                 "endpoint"?: "https://<account>.r2.cloudflarestorage.com", "style"?: "virtual" | "path",
//                 "keys"?: "safe" | "any", "signingWindow"?: 3600, "postPolicy"?: true } }

import * as v from 'valibot'
import { resolveS3Endpoint } from '../core/s3/endpoint'
import type { Credentials } from '../core/s3/presign'
import { OriginName, SigningWindow } from '../schemas/fields'
import { pathTo, record, strictFields } from '../schemas/valibot'
import { cloudFrontOrigin } from './cloudfront'
import type { Env } from './env'
import { Keys, parsedString, readSecret, webUrl } from './fields'
import type { Origin } from './types'

const REGION = /^[a-z0-9][a-z0-9-]{0,62}$/
// S3 bucket naming rules (general purpose buckets), minus the legacy upper-case forms.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/
const IPV4 = /^\d+\.\d+\.\d+\.\d+$/
const CREDENTIALS_REF = /^[A-Z][A-Z0-9_]{0,63}$/

const bucketMessage = 'must be an S3 bucket name: 3-63 characters of a-z, 0-9, "." and "-"'
const Bucket = v.pipe(
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
 * for temporary credentials, PHOTOS_SESSION_TOKEN. Each name is read once, however many origins
 * share it.
 */
function credentials(env: Env) {
  const read = new Map<string, Readonly<Credentials> | undefined>()
  return v.pipe(
    v.string(credentialsMessage),
    v.regex(CREDENTIALS_REF, credentialsMessage),
    v.rawTransform(({ dataset: { value: ref }, addIssue, NEVER }) => {
      if (!read.has(ref)) {
        const id = readSecret(env, `${ref}_ACCESS_KEY_ID`, AccessKeyId, addIssue)
        const secret = readSecret(env, `${ref}_SECRET_ACCESS_KEY`, SecretAccessKey, addIssue)
        const token = readSecret(env, `${ref}_SESSION_TOKEN`, SessionToken, addIssue)
        read.set(
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
      return read.get(ref) ?? NEVER
    }),
  )
}

function s3Origin(env: Env) {
  // A variant's option: the variant has checked that the definition is an object.
  return v.pipe(
    strictFields(
      {
        type: v.literal('s3'),
        bucket: Bucket,
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
    v.rawTransform(({ dataset: { value: origin }, addIssue, NEVER }) => {
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
      return { ...origin, style, endpoint: Object.freeze(resolved) }
    }),
  )
}

/**
 * WAYBILL_ORIGINS for one `env`, which holds the secrets the origins name: a map of frozen origins.
 *
 * @example
 * const result = v.safeParse(originsSchema(env), { photos: { type: 's3', … } })
 */
export function originsSchema(env: Env) {
  const Definition = v.variant('type', [s3Origin(env), cloudFrontOrigin(env)], (issue) =>
    issue.path === undefined ? 'must be an object' : 'must be "s3" or "cloudfront"',
  )
  return v.pipe(
    record(OriginName, Definition, (input) =>
      input === undefined
        ? 'is not set; define at least one origin'
        : 'must be a JSON object of origin name to origin',
    ),
    v.check((origins) => Object.keys(origins).length > 0, 'must define at least one origin'),
    v.rawTransform(({ dataset: { value: definitions }, addIssue }): ReadonlyMap<string, Origin> => {
      const origins = new Map<string, Origin>()
      for (const [name, origin] of Object.entries(definitions)) {
        origins.set(name, Object.freeze({ ...origin, name }))
      }
      for (const origin of origins.values()) {
        if (origin.type !== 'cloudfront' || origin.listFrom === undefined) continue
        if (origins.get(origin.listFrom)?.type !== 's3') {
          addIssue({
            message: 'must name an S3 origin defined in WAYBILL_ORIGINS',
            path: pathTo(definitions, origin.name, 'listFrom'),
          })
        }
      }
      return origins
    }),
  )
}
