// The benchmark Worker: each route signs `n` URLs with one implementation inside workerd and returns
// the first and last URL. bench/run.mjs times whole requests from outside (Date.now() does not
// advance during pure CPU work inside a Worker) and subtracts an empty request.

import { Sha256 } from '@aws-crypto/sha256-js'
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl as sdkCloudFrontUrl } from '@aws-sdk/cloudfront-signer'
import { getSignedUrl as sdkPresignedUrl, S3RequestPresigner } from '@aws-sdk/s3-request-presigner'
import { SignatureV4 } from '@smithy/signature-v4'
import { getSignedUrl as awsCloudFrontSign } from 'aws-cloudfront-sign'
import { AwsClient } from 'aws4fetch'
import { parsePrivateKeyPem } from '../../src/core/cloudfront/pem'
import {
  cannedPolicy,
  customPolicy,
  customPolicyParams,
  importAlgorithm,
  objectUrl,
  signCannedUrl,
  withParams,
  type CloudFrontKey,
} from '../../src/core/cloudfront/sign'
import { canonicalMediaType } from '../../src/core/media-type'
import { prepareOwnSigner, verifyOwnUrl } from '../../src/core/own/url'
import { resolveS3Endpoint } from '../../src/core/s3/endpoint'
import { prepareS3Presign } from '../../src/core/s3/presign'
import { cachedS3Presign } from '../../src/core/s3/presign-cache'
import {
  HmacSha256,
  messageAscii,
  messageBytes,
  messageNext,
  messageStart,
  sha256AsciiHex,
  SIGN_LANES,
} from '../../src/core/sigv4/sha256'

interface Env {
  RSA_PEM: string
  EC_PEM: string
}

export const NOW = new Date('2026-11-23T12:00:00Z')
const AMZ_DATE = '20261123T120000Z'
const REGION = 'eu-west-1'
const BUCKET = 'photos'
const HOST = `${BUCKET}.s3.${REGION}.amazonaws.com`
const CREDENTIALS = { accessKeyId: 'AKIDBENCHMARK', secretAccessKey: 'bench/secret/not+real' }
const EXPIRES_S = 900
const CF_BASE = 'https://d111111abcdef8.cloudfront.net/'
const CF_EXPIRES = 1_900_000_000
const KEY_PAIR_ID = 'KBENCH000001'
const encoder = new TextEncoder()
const OWN_SECRETS = [{ id: 'b1', secret: 'bench-own-url-secret-not-a-secret' }]

/** A batch of N of an R2 origin's own URLs, as `r2-waybill` signs them. */
function signOwn(n: number): string[] {
  return prepareOwnSigner({
    secrets: OWN_SECRETS,
    base: 'https://files.example.com',
    origin: 'media',
    method: 'GET',
    expires: Math.floor(NOW.getTime() / 1000) + EXPIRES_S,
    issuer: 'bench',
  }).signAll(keys(n).map((key) => ({ key })))
}

/** `signOwn(n)`, signed once per isolate and N (what r2-verify verifies, not timed). */
const ownBatches = new Map<number, string[]>()
function ownUrls(n: number): string[] {
  let urls = ownBatches.get(n)
  if (urls === undefined) ownBatches.set(n, (urls = signOwn(n)))
  return urls
}

const MEDIA_TYPES = [
  'image/png',
  'application/pdf',
  'text/plain; charset=utf-8',
  'Text/Plain ; Charset="UTF-8"',
  'video/mp4',
  'application/octet-stream',
]
const keyAt = (i: number) => `gallery/2026/img-${String(i).padStart(6, '0')}.jpg`
const keys = (n: number) => Array.from({ length: n }, (_, i) => keyAt(i))

// Everything a real deployment does once per isolate is done once here too.
const endpoint = resolveS3Endpoint({ bucket: BUCKET, region: REGION, style: 'virtual' })
const aws4 = new AwsClient({ ...CREDENTIALS, service: 's3', region: REGION })
const smithy = new SignatureV4({
  credentials: CREDENTIALS,
  region: REGION,
  service: 's3',
  sha256: Sha256,
  uriEscapePath: false,
})
const s3Client = new S3Client({ region: REGION, credentials: CREDENTIALS })
const requestPresigner = new S3RequestPresigner({
  credentials: CREDENTIALS,
  region: REGION,
  sha256: Sha256,
})
let floorKey: Promise<CryptoKey> | undefined
const cfKeys = new Map<string, Promise<CloudFrontKey>>()

function cloudFrontKey(pem: string): Promise<CloudFrontKey> {
  let key = cfKeys.get(pem)
  if (key === undefined) {
    const parsed = parsePrivateKeyPem(pem)
    key = crypto.subtle
      .importKey('pkcs8', parsed.pkcs8, importAlgorithm(parsed.kind, 'SHA1'), false, ['sign'])
      .then((cryptoKey) => ({
        keyPairId: KEY_PAIR_ID,
        kind: parsed.kind,
        hash: 'SHA1' as const,
        key: cryptoKey,
      }))
    cfKeys.set(pem, key)
  }
  return key
}

// The hashing breakdown's fixed parts, as the presigner builds them once per batch.
const STRING_TO_SIGN_HEAD = `AWS4-HMAC-SHA256\n${AMZ_DATE}\n20261123/${REGION}/s3/aws4_request\n`
const CANONICAL_TAIL = encoder.encode(
  `\nX-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDBENCHMARK%2F20261123%2F${REGION}%2Fs3%2Faws4_request&X-Amz-Date=${AMZ_DATE}&X-Amz-Expires=${EXPIRES_S}&X-Amz-SignedHeaders=host\nhost:${HOST}\n\nhost\nUNSIGNED-PAYLOAD`,
)
// 503 bytes: with SHA-256's 9 bytes of padding, exactly 8 blocks.
const EIGHT_BLOCKS = 'x'.repeat(8 * 64 - 9)

function appendCanonicalRequest(key: string): void {
  messageAscii('GET\n/')
  messageAscii(key)
  messageBytes(CANONICAL_TAIL)
}

function assembleCanonicalRequest(key: string): void {
  messageStart()
  appendCanonicalRequest(key)
}

const smithyOptions = {
  signingDate: NOW,
  expiresIn: EXPIRES_S,
  unsignableHeaders: new Set(['x-amz-content-sha256']),
  unhoistableHeaders: new Set(['x-amz-content-sha256']),
}

type Impl = (n: number, env: Env) => string[] | Promise<string[]>

export const IMPLEMENTATIONS: Record<string, Impl> = {
  // As a request signs: the presigner for this origin, method, lifetime and second is kept per
  // isolate (src/core/s3/presign-cache.ts), so one URL pays only its own key's hashing.
  async waybill(n) {
    const presigner = cachedS3Presign({
      endpoint,
      region: REGION,
      credentials: CREDENTIALS,
      method: 'GET',
      expiresIn: EXPIRES_S,
      now: NOW,
    })
    return presigner.presignAll(keys(n).map((key) => ({ key })))
  },
  // A batch's set-up paid every time: the first request in a new signing second.
  async 'waybill-uncached'(n) {
    const presigner = prepareS3Presign({
      endpoint,
      region: REGION,
      credentials: CREDENTIALS,
      method: 'GET',
      expiresIn: EXPIRES_S,
      now: NOW,
    })
    return presigner.presignAll(keys(n).map((key) => ({ key })))
  },
  async aws4fetch(n) {
    return Promise.all(
      keys(n).map(async (key) => {
        const signed = await aws4.sign(`https://${HOST}/${key}?X-Amz-Expires=${EXPIRES_S}`, {
          method: 'GET',
          aws: { signQuery: true, datetime: AMZ_DATE },
        })
        return signed.url
      }),
    )
  },
  async smithy(n) {
    return Promise.all(
      keys(n).map(async (key) => {
        const signed = await smithy.presign(
          {
            method: 'GET',
            protocol: 'https:',
            hostname: HOST,
            path: `/${key}`,
            query: {},
            headers: { host: HOST, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
          },
          smithyOptions,
        )
        return `https://${HOST}${signed.path}?${new URLSearchParams(signed.query as Record<string, string>).toString()}`
      }),
    )
  },
  async 'sdk-request-presigner'(n) {
    return Promise.all(
      keys(n).map(async (key) => {
        const signed = await requestPresigner.presign(
          {
            method: 'GET',
            protocol: 'https:',
            hostname: HOST,
            path: `/${key}`,
            query: {},
            headers: { host: HOST },
          },
          { signingDate: NOW, expiresIn: EXPIRES_S },
        )
        return `https://${HOST}${signed.path}?${new URLSearchParams(signed.query as Record<string, string>).toString()}`
      }),
    )
  },
  async 'sdk-getSignedUrl'(n) {
    return Promise.all(
      keys(n).map((key) =>
        sdkPresignedUrl(s3Client, new GetObjectCommand({ Bucket: BUCKET, Key: key }), {
          expiresIn: EXPIRES_S,
          signingDate: NOW,
        }),
      ),
    )
  },
  // An R2 origin's URLs through the binding: waybill's own (src/core/own/url.ts), one batch.
  'r2-waybill'(n) {
    return signOwn(n)
  },
  // The other side of an R2 origin's URLs: each of a batch's N URLs parsed and verified, as
  // delivery does first (src/origins/r2/serve.ts), not a signer. What verification alone costs
  // a download.
  'r2-verify'(n) {
    const urls = ownUrls(n)
    const nowS = Math.floor(NOW.getTime() / 1000)
    return urls.map((text) => {
      const verified = verifyOwnUrl(OWN_SECRETS, new URL(text), 'GET', nowS)
      if ('fault' in verified) throw new Error(`r2-verify: ${verified.fault}`)
      return verified.key
    })
  },
  // Not a signer: only the hashing part of waybill's per-URL work (assemble a canonical request in
  // the hash buffer, SHA-256 it, HMAC the digest), for the breakdown of where a URL's time goes.
  // As presignAll signs: SIGN_LANES canonical requests at a time, hashed side by side.
  'waybill-hashing-only'(n) {
    const mac = new HmacSha256(new Uint8Array(32).fill(7)).withPrefix(STRING_TO_SIGN_HEAD)
    const all = keys(n)
    const out: string[] = []
    for (let from = 0; from < n; from += SIGN_LANES) {
      messageStart()
      for (let i = from; i < Math.min(from + SIGN_LANES, n); i++) {
        if (i > from) messageNext()
        appendCanonicalRequest(all[i]!)
      }
      out.push(...mac.signMessagesDigestHex())
    }
    return out
  },
  // The same one URL at a time, on the single-lane path (presign(), and batches of one).
  'waybill-hashing-one-lane'(n) {
    const mac = new HmacSha256(new Uint8Array(32).fill(7)).withPrefix(STRING_TO_SIGN_HEAD)
    const out: string[] = []
    for (const key of keys(n)) {
      assembleCanonicalRequest(key)
      out.push(mac.signMessageDigestHex())
    }
    return out
  },
  // What a request's media type costs before it is judged: parsed strictly into its canonical form
  // (src/core/media-type.ts), per type, over a mix of plain types and types with parameters.
  'media-type-canonical'(n) {
    const out: string[] = []
    for (let i = 0; i < n; i++) out.push(canonicalMediaType(MEDIA_TYPES[i % MEDIA_TYPES.length]!)!)
    return out
  },
  // The JavaScript half of 'waybill-hashing-only': the canonical request is written into the
  // WebAssembly hasher's memory but not hashed. The difference is the WebAssembly call.
  'waybill-assembly-only'(n) {
    const out: string[] = []
    for (const key of keys(n)) {
      assembleCanonicalRequest(key)
      out.push(key)
    }
    return out
  },
  // One SHA-256 of an 8-block message per item: a SHA-256 compression costs an eighth of it.
  'sha256-8-blocks'(n) {
    const out: string[] = []
    for (let i = 0; i < n; i++) out.push(sha256AsciiHex(EIGHT_BLOCKS))
    return out
  },
  // The floor for a Web Crypto signer: one SHA-256 and one HMAC per URL, key imported once.
  async 'webcrypto-floor'(n) {
    floorKey ??= crypto.subtle.importKey(
      'raw',
      new Uint8Array(32).fill(7),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    )
    const key = await floorKey
    return Promise.all(
      keys(n).map(async (objectKey) => {
        const digest = await crypto.subtle.digest('SHA-256', encoder.encode(objectKey))
        const mac = await crypto.subtle.sign('HMAC', key, digest)
        return String(new Uint8Array(mac)[0])
      }),
    )
  },
  async 'cf-waybill-rsa'(n, env) {
    const key = await cloudFrontKey(env.RSA_PEM)
    return Promise.all(keys(n).map((k) => signCannedUrl(key, objectUrl(CF_BASE, k), CF_EXPIRES)))
  },
  async 'cf-waybill-ecdsa'(n, env) {
    const key = await cloudFrontKey(env.EC_PEM)
    return Promise.all(keys(n).map((k) => signCannedUrl(key, objectUrl(CF_BASE, k), CF_EXPIRES)))
  },
  async 'cf-waybill-wildcard'(n, env) {
    const key = await cloudFrontKey(env.RSA_PEM)
    const params = await customPolicyParams(
      key,
      customPolicy({ resource: `${CF_BASE}gallery/2026/*`, dateLessThan: CF_EXPIRES }),
    )
    return keys(n).map((k) => withParams(objectUrl(CF_BASE, k), params))
  },
  async 'cf-raw-rsa-floor'(n, env) {
    const { key } = await cloudFrontKey(env.RSA_PEM)
    return Promise.all(
      keys(n).map(async (k) => {
        const signature = await crypto.subtle.sign(
          'RSASSA-PKCS1-v1_5',
          key,
          encoder.encode(cannedPolicy(objectUrl(CF_BASE, k), CF_EXPIRES)),
        )
        return String(new Uint8Array(signature)[0])
      }),
    )
  },
  'cf-sdk-cloudfront-signer'(n, env) {
    return keys(n).map((k) =>
      sdkCloudFrontUrl({
        url: objectUrl(CF_BASE, k),
        keyPairId: KEY_PAIR_ID,
        privateKey: env.RSA_PEM,
        dateLessThan: new Date(CF_EXPIRES * 1000),
      }),
    )
  },
  'cf-aws-cloudfront-sign'(n, env) {
    return keys(n).map((k) =>
      awsCloudFrontSign(objectUrl(CF_BASE, k), {
        keypairId: KEY_PAIR_ID,
        privateKeyString: env.RSA_PEM,
        expireTime: CF_EXPIRES * 1000,
      }),
    )
  },
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url)
    const name = url.pathname.slice(1)
    if (name === 'empty') return new Response('{}')
    const impl = IMPLEMENTATIONS[name]
    if (impl === undefined) return new Response(`unknown implementation ${name}`, { status: 404 })
    const n = Number(url.searchParams.get('n') ?? '1')
    // Small batches are repeated inside one request so their cost stands out of the request's own.
    const reps = Number(url.searchParams.get('reps') ?? '1')
    let urls: string[] = []
    for (let r = 0; r < reps; r++) urls = await impl(n, env)
    return Response.json({
      n: urls.length,
      first: urls[0],
      last: urls.at(-1),
      all: url.searchParams.has('all') ? urls : undefined,
    })
  },
}
