// `npm run bench`: S3 presigned GET URLs per second, waybill against aws4fetch and
// @smithy/signature-v4 (the signer inside the AWS SDK), in one run, in Node.
//
// Before timing, every implementation must produce the same signature for the same inputs at a fixed
// clock: a fast wrong signer fails the run. Results go to bench/RESULTS.md and stdout.
//
// Scope today: Node only. Timing inside workerd, the AWS SDK presigner and CloudFront come with the
// performance issue; this file is the harness they extend.

import { Sha256 } from '@aws-crypto/sha256-js'
import { SignatureV4 } from '@smithy/signature-v4'
import { getSignedUrl as sdkCloudFrontUrl } from '@aws-sdk/cloudfront-signer'
import { AwsClient } from 'aws4fetch'
import { build } from 'esbuild'
import { generateKeyPairSync, verify } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const SIZES = [1, 100, 10_000]
const REPEATS = 7
const NOW = new Date('2026-11-23T12:00:00Z')
const REGION = 'eu-west-1'
const BUCKET = 'photos'
const HOST = `${BUCKET}.s3.${REGION}.amazonaws.com`
const CREDENTIALS = { accessKeyId: 'AKIDBENCHMARK', secretAccessKey: 'bench/secret/not+real' }
const EXPIRES_S = 900

// The core is TypeScript; bundle it for Node with the esbuild wrangler itself uses.
async function loadWaybill() {
  const outfile = join(ROOT, '.tmp', 'bench', 'waybill-core.mjs')
  mkdirSync(dirname(outfile), { recursive: true })
  await build({
    stdin: {
      contents: `export { prepareS3Presign } from './src/core/s3/presign'
                 export { resolveS3Endpoint } from './src/core/s3/endpoint'
                 export * from './src/core/cloudfront/sign'
                 export { parsePrivateKeyPem } from './src/core/cloudfront/pem'`,
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    outfile,
    logLevel: 'error',
  })
  return import(pathToFileURL(outfile).href)
}

const keys = (n) =>
  Array.from({ length: n }, (_, i) => `gallery/2026/img-${String(i).padStart(6, '0')}.jpg`)

function signers(waybill) {
  const endpoint = waybill.resolveS3Endpoint({ bucket: BUCKET, region: REGION, style: 'virtual' })
  const aws4 = new AwsClient({ ...CREDENTIALS, service: 's3', region: REGION })
  const smithy = new SignatureV4({
    ...CREDENTIALS,
    credentials: CREDENTIALS,
    region: REGION,
    service: 's3',
    sha256: Sha256,
    uriEscapePath: false,
  })
  const amzDate = NOW.toISOString().replace(/[:-]|\.\d{3}/g, '')
  return {
    waybill: async (batch) => {
      // A batch is one prepare (per-request constants) and one URL per key, as the route does it.
      const presigner = waybill.prepareS3Presign({
        endpoint,
        region: REGION,
        credentials: CREDENTIALS,
        method: 'GET',
        expiresIn: EXPIRES_S,
        now: NOW,
      })
      return presigner.presignAll(batch.map((key) => ({ key })))
    },
    aws4fetch: (batch) =>
      Promise.all(
        batch.map(async (key) => {
          const request = await aws4.sign(`https://${HOST}/${key}?X-Amz-Expires=${EXPIRES_S}`, {
            method: 'GET',
            aws: { signQuery: true, datetime: amzDate },
          })
          return request.url
        }),
      ),
    'smithy signature-v4': (batch) =>
      Promise.all(
        batch.map(async (key) => {
          const signed = await smithy.presign(
            {
              method: 'GET',
              protocol: 'https:',
              hostname: HOST,
              path: `/${key}`,
              query: {},
              headers: { host: HOST, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
            },
            {
              signingDate: NOW,
              expiresIn: EXPIRES_S,
              unsignableHeaders: new Set(['x-amz-content-sha256']),
              unhoistableHeaders: new Set(['x-amz-content-sha256']),
            },
          )
          return `https://${HOST}${signed.path}?X-Amz-Signature=${signed.query['X-Amz-Signature']}`
        }),
      ),
  }
}

const signatureOf = (url) => new URL(url).searchParams.get('X-Amz-Signature')

async function checkAgreement(all) {
  const sample = keys(50)
  const results = {}
  for (const [name, sign] of Object.entries(all))
    results[name] = (await sign(sample)).map(signatureOf)
  const [reference, ...others] = Object.entries(results)
  for (const [name, signatures] of others) {
    signatures.forEach((signature, i) => {
      if (signature !== reference[1][i]) {
        throw new Error(
          `${name} and ${reference[0]} disagree on ${sample[i]}: ${signature} vs ${reference[1][i]}`,
        )
      }
    })
  }
  return sample.length
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

async function time(sign, n) {
  const batch = keys(n)
  await sign(batch) // warm up
  const perUrlUs = []
  const runs = n === 1 ? REPEATS * 100 : REPEATS
  for (let r = 0; r < runs; r++) {
    const start = process.hrtime.bigint()
    await sign(batch)
    perUrlUs.push(Number(process.hrtime.bigint() - start) / 1000 / n)
  }
  return { median: median(perUrlUs), min: Math.min(...perUrlUs), max: Math.max(...perUrlUs) }
}

// CloudFront: µs per URL for canned RSA and ECDSA signatures, a wildcard batch (one signature for
// the whole batch), the SDK's RSA signer, and the floor: one raw crypto.subtle.sign per URL.
async function cloudFrontRows(waybill) {
  const EXPIRES = 1_795_000_000
  const BASE = 'https://d111111abcdef8.cloudfront.net/'
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const rsaPem = rsa.privateKey.export({ type: 'pkcs1', format: 'pem' })
  const importKey = async (pem) => {
    const parsed = waybill.parsePrivateKeyPem(pem)
    const key = await crypto.subtle.importKey(
      'pkcs8',
      parsed.pkcs8,
      waybill.importAlgorithm(parsed.kind, 'SHA1'),
      false,
      ['sign'],
    )
    return { keyPairId: 'KBENCH000001', kind: parsed.kind, hash: 'SHA1', key }
  }
  const rsaKey = await importKey(rsaPem)
  const ecKey = await importKey(ec.privateKey.export({ type: 'sec1', format: 'pem' }))
  const url = (i) => waybill.objectUrl(BASE, `gallery/img-${i}.jpg`)

  // Correctness before speed: each signer's output must verify.
  for (const [key, publicKey] of [
    [rsaKey, rsa.publicKey],
    [ecKey, ec.publicKey],
  ]) {
    const signed = await waybill.signCannedUrl(key, url(1), EXPIRES)
    const signature = new URL(signed).searchParams
      .get('Signature')
      .replace(/-/g, '+')
      .replace(/_/g, '=')
      .replace(/~/g, '/')
    const policy = waybill.cannedPolicy(url(1), EXPIRES)
    if (!verify('sha1', Buffer.from(policy), publicKey, Buffer.from(signature, 'base64')))
      throw new Error('CloudFront signature does not verify')
  }
  const sdkUrl = sdkCloudFrontUrl({
    url: url(1),
    keyPairId: 'KBENCH000001',
    privateKey: rsaPem,
    dateLessThan: new Date(EXPIRES * 1000),
  })
  if (sdkUrl !== (await waybill.signCannedUrl(rsaKey, url(1), EXPIRES)))
    throw new Error('waybill and the SDK disagree')

  const encoder = new TextEncoder()
  const cases = [
    [
      'waybill RSA-2048 canned',
      200,
      (n) =>
        Promise.all(
          Array.from({ length: n }, (_, i) => waybill.signCannedUrl(rsaKey, url(i), EXPIRES)),
        ),
    ],
    [
      'raw crypto.subtle.sign RSA-2048 (floor)',
      200,
      (n) =>
        Promise.all(
          Array.from({ length: n }, (_, i) =>
            crypto.subtle.sign(
              'RSASSA-PKCS1-v1_5',
              rsaKey.key,
              encoder.encode(waybill.cannedPolicy(url(i), EXPIRES)),
            ),
          ),
        ),
    ],
    [
      '@aws-sdk/cloudfront-signer RSA-2048 canned',
      200,
      async (n) =>
        Array.from({ length: n }, (_, i) =>
          sdkCloudFrontUrl({
            url: url(i),
            keyPairId: 'KBENCH000001',
            privateKey: rsaPem,
            dateLessThan: new Date(EXPIRES * 1000),
          }),
        ),
    ],
    [
      'waybill ECDSA P-256 canned',
      1000,
      (n) =>
        Promise.all(
          Array.from({ length: n }, (_, i) => waybill.signCannedUrl(ecKey, url(i), EXPIRES)),
        ),
    ],
    [
      'waybill wildcard batch (1 RSA signature)',
      10_000,
      async (n) => {
        const params = await waybill.customPolicyParams(
          rsaKey,
          waybill.customPolicy({ resource: `${BASE}gallery/*`, dateLessThan: EXPIRES }),
        )
        return Array.from({ length: n }, (_, i) => waybill.withParams(url(i), params))
      },
    ],
  ]
  const rows = []
  for (const [name, n, run] of cases) {
    rows.push({ n, name, ...(await time((batch) => run(batch.length), n)) })
  }
  return rows
}

async function main() {
  const waybill = await loadWaybill()
  const all = signers(waybill)
  const checked = await checkAgreement(all)
  const rows = []
  for (const n of SIZES) {
    for (const [name, sign] of Object.entries(all)) rows.push({ n, name, ...(await time(sign, n)) })
  }
  const fmt = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1))
  const lines = [
    '# Benchmark results',
    '',
    `Date: ${new Date().toISOString()}. Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}.`,
    `Presigned S3 GET URLs, virtual-hosted, fixed clock. Median of ${REPEATS} runs per size (700 for N=1), µs per URL (min–max).`,
    `All implementations produced identical signatures for ${checked} keys before timing.`,
    '',
    '| N | implementation | µs/URL (median) | min–max | × waybill |',
    '|---:|---|---:|---:|---:|',
  ]
  for (const n of SIZES) {
    const ours = rows.find((r) => r.n === n && r.name === 'waybill').median
    for (const row of rows.filter((r) => r.n === n)) {
      lines.push(
        `| ${n} | ${row.name} | ${fmt(row.median)} | ${fmt(row.min)}–${fmt(row.max)} | ${(row.median / ours).toFixed(1)} |`,
      )
    }
  }
  const cloudFront = await cloudFrontRows(waybill)
  const rsaFloor = cloudFront.find((r) => r.name.startsWith('raw')).median
  lines.push(
    '',
    '## CloudFront',
    '',
    'Every waybill signature verified with node:crypto, and the RSA canned URL equalled @aws-sdk/cloudfront-signer byte for byte, before timing.',
    '',
    '| N | implementation | µs/URL (median) | min–max | × raw RSA floor |',
    '|---:|---|---:|---:|---:|',
    ...cloudFront.map(
      (row) =>
        `| ${row.n} | ${row.name} | ${fmt(row.median)} | ${fmt(row.min)}–${fmt(row.max)} | ${(row.median / rsaFloor).toFixed(2)} |`,
    ),
    '',
    'Reproduce: `npm run bench`. Node only for now; workerd numbers are measured by the performance work.',
    '',
  )
  const text = lines.join('\n')
  writeFileSync(join(ROOT, 'bench', 'RESULTS.md'), text)
  console.log(text)
}

await main()
