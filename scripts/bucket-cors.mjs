// The bucket CORS rules a browser needs to upload straight to an S3 bucket with waybill's signed
// URLs, and a command that applies them with PutBucketCors:
//
//   AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… node scripts/bucket-cors.mjs \
//     --endpoint http://127.0.0.1:7070 --bucket demo --region us-east-1 \
//     --origin http://127.0.0.1:8787 [--origin https://app.example.com …] [--style path|virtual]
//
// Credentials come from the environment only (AWS_SESSION_TOKEN too, when set), never from the
// command line, where `ps` and shell history would keep them. PutBucketCors replaces the bucket's
// whole CORS configuration.

import { createHash } from 'node:crypto'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { AwsClient } from 'aws4fetch'

export const CORS_MAX_AGE_S = 3000
const REQUEST_TIMEOUT_MS = 15_000

/** What the page sends to a bucket: GET/HEAD to read, PUT (object or part) and POST (form). */
export const CORS_ALLOWED_METHODS = Object.freeze(['GET', 'HEAD', 'PUT', 'POST'])
/**
 * Request headers a presigned PUT may carry. The signature already pins which headers must be sent
 * and with which values; this list only lets the browser send them cross-origin.
 */
export const CORS_ALLOWED_HEADERS = Object.freeze([
  'content-type',
  'content-md5',
  'content-disposition',
  'content-encoding',
  'cache-control',
  'if-none-match',
  'if-match',
  'x-amz-*',
])
/** ETag is how a browser learns each multipart part's ETag for CompleteMultipartUpload. */
export const CORS_EXPOSE_HEADERS = Object.freeze(['ETag', 'x-amz-version-id'])

// An origin as a browser sends it in `Origin`: scheme, host and an optional port, nothing else.
const ORIGIN =
  /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/

/**
 * The CORS rules for browser uploads from `allowedOrigins`.
 *
 * @example
 * corsRules(['http://127.0.0.1:8787'])
 * // [{ allowedOrigins: ['http://127.0.0.1:8787'], allowedMethods: ['GET', …], … }]
 */
export function corsRules(allowedOrigins) {
  if (!Array.isArray(allowedOrigins) || allowedOrigins.length === 0) {
    throw new TypeError('allowedOrigins: give at least one origin, e.g. http://127.0.0.1:8787')
  }
  for (const origin of allowedOrigins) {
    if (typeof origin !== 'string' || (origin !== '*' && !ORIGIN.test(origin))) {
      throw new TypeError(
        `allowedOrigins: ${JSON.stringify(origin)} is not an origin (scheme://host[:port], no path)`,
      )
    }
  }
  return [
    {
      id: 'waybill-browser-uploads',
      allowedOrigins: [...allowedOrigins],
      allowedMethods: [...CORS_ALLOWED_METHODS],
      allowedHeaders: [...CORS_ALLOWED_HEADERS],
      exposeHeaders: [...CORS_EXPOSE_HEADERS],
      maxAgeSeconds: CORS_MAX_AGE_S,
    },
  ]
}

const escapeXml = (text) =>
  String(text).replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c],
  )

/**
 * The PutBucketCors request body for `rules`.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketCors.html
 */
export function corsConfigurationXml(rules) {
  const element = (name, values) =>
    values.map((value) => `<${name}>${escapeXml(value)}</${name}>`).join('')
  const body = rules
    .map(
      (rule) =>
        '<CORSRule>' +
        (rule.id ? element('ID', [rule.id]) : '') +
        element('AllowedOrigin', rule.allowedOrigins) +
        element('AllowedMethod', rule.allowedMethods) +
        element('AllowedHeader', rule.allowedHeaders ?? []) +
        element('ExposeHeader', rule.exposeHeaders ?? []) +
        (rule.maxAgeSeconds === undefined ? '' : element('MaxAgeSeconds', [rule.maxAgeSeconds])) +
        '</CORSRule>',
    )
    .join('')
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${body}</CORSConfiguration>`
  )
}

function bucketCorsUrl(endpoint, bucket, style) {
  const base = new URL(endpoint)
  if (base.pathname !== '/' || base.search !== '' || base.hash !== '') {
    throw new TypeError(`endpoint: ${endpoint} must be scheme://host[:port] without a path`)
  }
  if (style === 'virtual') return `${base.protocol}//${bucket}.${base.host}/?cors`
  if (style === 'path') return `${base.origin}/${encodeURIComponent(bucket)}?cors`
  throw new TypeError(`style: ${JSON.stringify(style)} is neither "path" nor "virtual"`)
}

/**
 * Replaces `bucket`'s CORS configuration with {@link corsRules} for `allowedOrigins`, signed with
 * SigV4. S3 requires Content-MD5 (or an x-amz-checksum-*) on PutBucketCors; it is computed here.
 *
 * @example
 * await applyBucketCors({
 *   endpoint: 'http://127.0.0.1:7070', bucket: 'demo', region: 'us-east-1',
 *   accessKeyId, secretAccessKey, allowedOrigins: ['http://127.0.0.1:8787'],
 * })
 */
export async function applyBucketCors({
  endpoint,
  bucket,
  region,
  accessKeyId,
  secretAccessKey,
  sessionToken,
  allowedOrigins,
  style = 'path',
}) {
  if (!endpoint)
    throw new TypeError('endpoint is required, e.g. https://s3.eu-west-1.amazonaws.com')
  if (!bucket) throw new TypeError('bucket is required')
  if (!region) throw new TypeError('region is required')
  if (!accessKeyId || !secretAccessKey) {
    throw new TypeError('accessKeyId and secretAccessKey are required')
  }
  const body = corsConfigurationXml(corsRules(allowedOrigins))
  const client = new AwsClient({
    accessKeyId,
    secretAccessKey,
    sessionToken,
    service: 's3',
    region,
    retries: 2,
  })
  const url = bucketCorsUrl(endpoint, bucket, style)
  const response = await client.fetch(url, {
    method: 'PUT',
    headers: {
      'content-type': 'application/xml',
      'content-md5': createHash('md5').update(body).digest('base64'),
      'x-amz-content-sha256': createHash('sha256').update(body).digest('hex'),
    },
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  })
  if (!response.ok) {
    const text = await response.text()
    const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? 'no S3 error code'
    const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? ''
    throw new Error(
      `PutBucketCors on ${bucket} answered ${response.status} (${code}${message ? `: ${message}` : ''})`,
    )
  }
  await response.body?.cancel()
  return { bucket, allowedOrigins: [...allowedOrigins] }
}

async function main() {
  const usage =
    'usage: AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… node scripts/bucket-cors.mjs ' +
    '--endpoint <url> --bucket <name> --region <region> --origin <origin> [--origin …] ' +
    '[--style path|virtual]'
  let values
  try {
    ;({ values } = parseArgs({
      options: {
        endpoint: { type: 'string' },
        bucket: { type: 'string' },
        region: { type: 'string', default: 'us-east-1' },
        origin: { type: 'string', multiple: true },
        style: { type: 'string', default: 'path' },
        help: { type: 'boolean', short: 'h' },
      },
    }))
  } catch (error) {
    console.error(`${error.message}\n${usage}`)
    return 2
  }
  if (values.help) {
    console.log(usage)
    return 0
  }
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = process.env
  if (!values.endpoint || !values.bucket || !values.origin?.length) {
    console.error(usage)
    return 2
  }
  if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) {
    console.error('Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment.')
    return 2
  }
  await applyBucketCors({
    endpoint: values.endpoint,
    bucket: values.bucket,
    region: values.region,
    style: values.style,
    accessKeyId: AWS_ACCESS_KEY_ID,
    secretAccessKey: AWS_SECRET_ACCESS_KEY,
    sessionToken: AWS_SESSION_TOKEN || undefined,
    allowedOrigins: values.origin,
  })
  console.log(`Bucket ${values.bucket}: CORS allows ${values.origin.join(', ')}`)
  return 0
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error.message)
      process.exit(1)
    },
  )
}
