// S3 browser-based uploads: a POST policy signed with SigV4.
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html
//
// Pure: `now` is an input. The policy is a JSON document listing every condition the upload form
// must meet; its base64 is the string to sign, with the same derived signing key as a presigned URL.

import { base64Encode } from '../bytes'
import { signingKey } from '../sigv4/crypto'
import { toAmzDate } from '../sigv4/time'
import type { S3Endpoint } from './endpoint'
import type { Credentials } from './presign'

const ALGORITHM = 'AWS4-HMAC-SHA256'

/** A form field's condition: exactly this value, or starting with this value. */
type FieldCondition = { eq: string } | { startsWith: string }

export interface PostPolicyInput {
  endpoint: S3Endpoint
  bucket: string
  region: string
  credentials: Credentials
  now: Date
  /** Seconds until the policy expires. */
  expiresIn: number
  key: FieldCondition
  /** The exact Content-Type (a POST policy never signs a type family: browsers and stores read
   * a comma-separated value as several types, and `starts-with` admits `image/png,text/html`). */
  contentType: string
  /** Inclusive byte range of the file. */
  contentLength: { min: number; max: number }
  /** The file's SHA-256 (base64): the store refuses any other bytes. */
  checksumSha256?: string | undefined
  /** `x-amz-meta-<name>` fields, exact. */
  metadata?: Readonly<Record<string, string>> | undefined
  /** 200, 201 or 204 (S3's default when absent is 204). */
  successActionStatus?: 200 | 201 | 204 | undefined
}

export interface PostPolicy {
  /** Where the form posts: the bucket's URL. */
  url: string
  /** Form fields in the order they must be sent, before the file. */
  fields: Record<string, string>
  /** The policy document (before base64), for tests and debugging. */
  document: string
  expiresAt: Date
}

function condition(field: string, rule: FieldCondition): unknown {
  return 'eq' in rule ? ['eq', `$${field}`, rule.eq] : ['starts-with', `$${field}`, rule.startsWith]
}

/**
 * Builds and signs a POST policy. The form must send `fields` (a `key` ending in `${filename}` is
 * filled in by S3 from the file's name) and then the file as the last field.
 *
 * @example
 * const post = await signPostPolicy({ endpoint, bucket: 'photos', region: 'us-east-1', credentials,
 *   now: new Date(), expiresIn: 600, key: { eq: 'uploads/cat.png' },
 *   contentType: 'image/png', contentLength: { min: 0, max: 10_485_760 } })
 * // <form action={post.url} method="post" enctype="multipart/form-data"> …post.fields…, file
 */
export async function signPostPolicy(input: PostPolicyInput): Promise<PostPolicy> {
  const { longDate, shortDate } = toAmzDate(input.now)
  const credential = `${input.credentials.accessKeyId}/${shortDate}/${input.region}/s3/aws4_request`
  const expiresAt = new Date(Math.floor(input.now.getTime() / 1000) * 1000 + input.expiresIn * 1000)
  const fields: Record<string, string> = {}
  const conditions: unknown[] = [{ bucket: input.bucket }]

  fields.key = 'eq' in input.key ? input.key.eq : `${input.key.startsWith}\${filename}`
  conditions.push(condition('key', input.key))
  fields['Content-Type'] = input.contentType
  conditions.push(condition('Content-Type', { eq: input.contentType }))
  conditions.push(['content-length-range', input.contentLength.min, input.contentLength.max])
  if (input.checksumSha256 !== undefined) {
    fields['x-amz-checksum-algorithm'] = 'SHA256'
    conditions.push({ 'x-amz-checksum-algorithm': 'SHA256' })
    fields['x-amz-checksum-sha256'] = input.checksumSha256
    conditions.push({ 'x-amz-checksum-sha256': input.checksumSha256 })
  }
  if (input.successActionStatus !== undefined) {
    fields.success_action_status = String(input.successActionStatus)
    conditions.push({ success_action_status: fields.success_action_status })
  }
  for (const [name, value] of Object.entries(input.metadata ?? {})) {
    fields[`x-amz-meta-${name}`] = value
    conditions.push({ [`x-amz-meta-${name}`]: value })
  }
  const sigv4: Record<string, string> = {
    'x-amz-algorithm': ALGORITHM,
    'x-amz-credential': credential,
    'x-amz-date': longDate,
  }
  if (input.credentials.sessionToken !== undefined) {
    sigv4['x-amz-security-token'] = input.credentials.sessionToken
  }
  for (const [name, value] of Object.entries(sigv4)) {
    fields[name] = value
    conditions.push({ [name]: value })
  }

  const document = JSON.stringify({ expiration: expiresAt.toISOString(), conditions })
  const policy = base64Encode(new TextEncoder().encode(document))
  const key = await signingKey(input.credentials.secretAccessKey, shortDate, input.region, 's3')
  fields.policy = policy
  fields['x-amz-signature'] = key.signAsciiHex(policy)
  const { protocol, host, basePath } = input.endpoint
  return { url: `${protocol}//${host}${basePath}/`, fields, document, expiresAt }
}
