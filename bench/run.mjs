// `npm run bench`: signing cost per URL, waybill against the libraries people would otherwise use,
// side by side in one run, inside workerd (bench/workerd.mjs) and in Node.
//
// Before timing, every implementation must produce the same signature for the same inputs at a fixed
// clock: a fast wrong signer fails the run. Results go to bench/RESULTS.md and stdout.

import { Sha256 } from '@aws-crypto/sha256-js'
import { SignatureV4 } from '@smithy/signature-v4'
import { getSignedUrl as sdkCloudFrontUrl } from '@aws-sdk/cloudfront-signer'
import { AwsClient } from 'aws4fetch'
import { build } from 'esbuild'
import { generateKeyPairSync, verify } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { gzipSync } from 'node:zlib'
import { measureHttp } from './http.mjs'
import { checkImplementations, startBenchWorker, timeInWorkerd } from './workerd.mjs'
import { cpus } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const MINIFLARE_VERSION = createRequire(import.meta.url)('miniflare/package.json').version
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
                 export { parsePrivateKeyPem } from './src/core/cloudfront/pem'
                 export { HmacSha256, messageStart, messageAscii } from './src/core/sigv4/sha256'`,
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
  const EXPIRES = 1_900_000_000
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

const fmt = (v) => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(2))

function table(rows, baselineOf, baselineLabel) {
  return [
    `| N | implementation | µs/URL (median) | min–max | ${baselineLabel} |`,
    '|---:|---|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.n} | ${row.name} | ${fmt(row.median)} | ${fmt(row.min)}–${fmt(row.max)} | ${(row.median / baselineOf(row)).toFixed(2)} |`,
    ),
  ]
}

/** gzip size of the deployable Worker, as `wrangler deploy --dry-run` bundles it. */
function bundleSize() {
  const outdir = join(ROOT, '.tmp', 'bench', 'dist')
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
      'deploy',
      '--dry-run',
      '--outdir',
      outdir,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
      stdio: 'ignore',
    },
  )
  const code = readFileSync(join(outdir, 'index.js'))
  return { raw: code.length, gzip: gzipSync(code, { level: 9 }).length }
}

/** Node: how much of a URL is hashing (8 SHA-256 compressions) and how much is everything else. */
async function breakdown(waybill) {
  const full = (await time(all.waybill, 10_000)).median
  const canonical = `GET\n/gallery/2026/img-000123.jpg\nX-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDBENCHMARK%2F20261123%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20261123T120000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host\nhost:${HOST}\n\nhost\nUNSIGNED-PAYLOAD`
  const mac = new waybill.HmacSha256(new Uint8Array(32).fill(7)).withPrefix(
    'AWS4-HMAC-SHA256\n20261123T120000Z\n20261123/eu-west-1/s3/aws4_request\n',
  )
  const hashing = (
    await time(
      async (batch) =>
        batch.map(
          () => (
            waybill.messageStart(),
            waybill.messageAscii(canonical),
            mac.signMessageDigestHex()
          ),
        ),
      10_000,
    )
  ).median
  return { full, hashing }
}

let all

async function main() {
  const waybill = await loadWaybill()
  all = signers(waybill)
  const checked = await checkAgreement(all)
  const nodeRows = []
  for (const n of SIZES) {
    for (const [name, sign] of Object.entries(all))
      nodeRows.push({ n, name, ...(await time(sign, n)) })
  }
  const nodeCloudFront = await cloudFrontRows(waybill)
  const split = await breakdown(waybill)

  const worker = await startBenchWorker()
  let workerd
  let workerdChecked
  try {
    workerdChecked = await checkImplementations(worker)
    const s3Cases = []
    for (const [n, repeats] of [
      [1, 60],
      [100, 15],
      [10_000, 9],
    ]) {
      for (const name of [
        'waybill',
        'aws4fetch',
        'smithy',
        'sdk-getSignedUrl',
        'webcrypto-floor',
      ]) {
        s3Cases.push([name, n, name === 'sdk-getSignedUrl' && n === 10_000 ? 3 : repeats])
      }
    }
    const cfCases = [
      ['cf-waybill-rsa', 500, 7],
      ['cf-raw-rsa-floor', 500, 7],
      ['cf-sdk-cloudfront-signer', 200, 3],
      ['cf-aws-cloudfront-sign', 200, 3],
      ['cf-waybill-ecdsa', 2000, 7],
      ['cf-waybill-wildcard', 10_000, 9],
    ]
    workerd = await timeInWorkerd(worker, [...s3Cases, ...cfCases])
  } finally {
    await worker.mf.dispose()
  }
  const size = bundleSize()
  const http = await measureHttp()

  const wS3 = workerd.rows.filter((r) => !r.name.startsWith('cf-'))
  const wCf = workerd.rows.filter((r) => r.name.startsWith('cf-'))
  const oursAt = (rows, n) => rows.find((r) => r.n === n && r.name === 'waybill').median
  const at10k = (name) => wS3.find((r) => r.n === 10_000 && r.name === name).median
  const rsa = (name) => wCf.find((r) => r.name === name).median
  const wildcardBatchMs = (rsa('cf-waybill-wildcard') * 10_000) / 1000

  const lines = [
    '# Benchmark results',
    '',
    `Date: ${new Date().toISOString()}. Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, workerd from miniflare ${MINIFLARE_VERSION}.`,
    'Presigned S3 GET URLs, virtual-hosted, fixed clock; µs per URL, median of repeated runs (min–max).',
    '',
    '## Summary (workerd, N = 10,000)',
    '',
    `- waybill: **${fmt(at10k('waybill'))} µs/URL** (target ≤ 5).`,
    `- aws4fetch ${fmt(at10k('aws4fetch'))} µs: waybill is **${(at10k('aws4fetch') / at10k('waybill')).toFixed(1)}×** faster (target ≥ 18×).`,
    `- @aws-sdk/s3-request-presigner getSignedUrl ${fmt(at10k('sdk-getSignedUrl'))} µs: **${(at10k('sdk-getSignedUrl') / at10k('waybill')).toFixed(0)}×** (target ≥ 90×).`,
    `- Web Crypto floor (one digest + one HMAC per URL) ${fmt(at10k('webcrypto-floor'))} µs.`,
    `- CloudFront RSA-2048 canned ${fmt(rsa('cf-waybill-rsa'))} µs = **${(rsa('cf-waybill-rsa') / rsa('cf-raw-rsa-floor')).toFixed(2)}×** a raw crypto.subtle.sign (target ≤ 1.05×); ECDSA P-256 ${fmt(rsa('cf-waybill-ecdsa'))} µs, **${(rsa('cf-waybill-rsa') / rsa('cf-waybill-ecdsa')).toFixed(1)}×** faster than RSA (target ≥ 8×); a 10,000-key wildcard batch **${wildcardBatchMs.toFixed(1)} ms** (target ≤ 30).`,
    `- \`POST /v1/sign\` with 10,000 keys through \`wrangler dev\`, whole request from outside: **${http.batchMs.median.toFixed(0)} ms** median of 15 (${http.batchMs.min.toFixed(0)}–${http.batchMs.max.toFixed(0)}; target ≤ 120).`,
    `- NDJSON stream of ${http.ndjson.lines.toLocaleString('en')} URLs: ${http.ndjson.ms.toFixed(0)} ms; workerd's resident memory ${http.ndjson.rssBeforeMiB.toFixed(0)} → ${http.ndjson.rssAfterMiB.toFixed(0)} MiB (the isolate limit is 128 MB; the stream signs 500 URLs per pull).`,
    `- Deployable bundle (wrangler deploy --dry-run): ${(size.raw / 1024).toFixed(1)} KiB, **${(size.gzip / 1024).toFixed(1)} KiB gzip** (target ≤ 60).`,
    '',
    '## workerd',
    '',
    `Whole requests timed from outside (Miniflare dispatchFetch), minus an empty request (median ${fmt(workerd.emptyUs)} µs), divided by the URLs signed; batches smaller than 2,000 run repeatedly inside one request, and the cases are interleaved round by round. Before timing: waybill, aws4fetch and @smithy/signature-v4 produced identical signatures for ${workerdChecked} keys; every waybill and AWS SDK URL (the SDK signs extra parameters: X-Amz-Content-Sha256, x-id, x-amz-checksum-mode) verified against an independent node:crypto SigV4 computation; CloudFront signatures of @aws-sdk/cloudfront-signer and aws-cloudfront-sign equalled waybill's, and waybill's RSA, ECDSA and wildcard signatures verified with node:crypto.`,
    '',
    ...table(wS3, (row) => oursAt(wS3, row.n), '× waybill'),
    '',
    ...table(wCf, () => rsa('cf-raw-rsa-floor'), '× raw RSA sign'),
    '',
    '## Node',
    '',
    `In-process timing. All implementations produced identical signatures for ${checked} keys before timing.`,
    '',
    ...table(nodeRows, (row) => oursAt(nodeRows, row.n), '× waybill'),
    '',
    ...table(
      nodeCloudFront,
      () => nodeCloudFront.find((r) => r.name.startsWith('raw')).median,
      '× raw RSA sign',
    ),
    '',
    "## Where a URL's time goes (Node, N = 10,000)",
    '',
    `A URL costs ${fmt(split.full)} µs. Assembling a canonical request in the hash buffer and hashing it plus the HMAC (8 SHA-256 compressions) alone costs ${fmt(split.hashing)} µs (${((split.hashing / split.full) * 100).toFixed(0)}%); the rest is key validation and encoding, the item objects and the URL string. A CPU profile (node --cpu-prof) agrees: compress() is the top frame, then the buffer fill and garbage collection.`,
    '',
    'Reproduce: `npm run bench` (about three minutes).',
    '',
  ]
  const text = lines.join('\n')
  writeFileSync(join(ROOT, 'bench', 'RESULTS.md'), text)
  console.log(text)
}

await main()
