// The Workers Schemathesis tests: the data plane's `wrangler dev` on a free port against a fresh
// versitygw, with a configuration that reaches every operation of docs/openapi.json, and the admin
// plane's on another, sharing its local state. The origins carry the names the documents' examples
// use ("photos"), so the examples and the generated requests reach the services, not only the
// refusal of an unknown origin; one API key may do everything on them, and one admin token calls
// the admin API (/admin/v1) on the local D1, which spawnWranglerDev migrates.

import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { envFileText } from '../../scripts/dev.mjs'
import { hashedEntry, newSecret } from '../../scripts/secrets.mjs'
import { portBelowEphemeral, startVersitygw } from '../../scripts/versitygw.mjs'
import { startWranglerDev } from '../../scripts/wrangler-dev.mjs'

const YEAR_S = 366 * 86_400

export interface FuzzTarget {
  /** http://127.0.0.1:<port> */
  baseUrl: string
  /** The admin Worker's: http://127.0.0.1:<another port> */
  adminUrl: string
  /** An API key granted every action on every origin. */
  apiKey: string
  /** An admin token (WAYBILL_ADMIN_TOKENS): the admin API's only credential here. */
  adminToken: string
  stop: () => Promise<void>
}

/** The variables of the Worker under test, for an S3 store at `endpoint`. */
function fuzzVars(s3: { endpoint: string; accessKeyId: string; secretAccessKey: string }) {
  const apiKey = `wb_fuzz_${randomBytes(24).toString('base64url')}`
  const adminToken = `wba_fuzz_${randomBytes(24).toString('base64url')}`
  const cdnKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const s3Origin = {
    type: 's3',
    bucket: 'photos',
    region: 'us-east-1',
    endpoint: s3.endpoint,
    style: 'path',
    credentials: 'FUZZ',
    // Any key S3 takes: the document does not describe the safe-key policy's refusals.
    keys: 'any',
  }
  const origins = {
    photos: s3Origin,
    cdn: {
      type: 'cloudfront',
      baseUrl: 'https://d111111abcdef8.cloudfront.net',
      keyPairId: 'KFUZZ0000001',
      privateKey: 'CDN_PRIVATE_KEY',
      keys: 'any',
    },
    // R2 through the Worker's binding (wrangler.jsonc's local bucket): its /o/ routes.
    media: { type: 'r2', binding: 'DEMO_R2', keys: 'any' },
  }
  const everything = {
    to: 'apiKey:fuzz',
    actions: ['read', 'write', 'delete', 'list', 'debug'],
    maxLinkExpiresIn: YEAR_S,
  }
  const grants = [
    {
      ...everything,
      origin: 'photos',
      overwrite: true,
      uploadKey: 'uploads/{uuid}-{filename}',
    },
    { ...everything, origin: 'cdn', actions: ['read'], wildcard: true },
    { ...everything, origin: 'media', overwrite: true, uploadKey: 'uploads/{uuid}-{filename}' },
  ]
  const vars = {
    FUZZ_ACCESS_KEY_ID: s3.accessKeyId,
    FUZZ_SECRET_ACCESS_KEY: s3.secretAccessKey,
    CDN_PRIVATE_KEY: cdnKey.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    WAYBILL_ORIGINS: JSON.stringify(origins),
    WAYBILL_API_KEYS: JSON.stringify([hashedEntry('fuzz', apiKey)]),
    WAYBILL_GRANTS: JSON.stringify(grants),
    WAYBILL_TOKEN_SECRETS: JSON.stringify([{ id: 'f', secret: newSecret() }]),
    // wrangler dev 4.124 can drop its proxy connection when many concurrent requests each log
    // (cloudflare/workers-sdk#15451): log failures only.
    WAYBILL_REQUEST_LOG: 'errors',
  }
  const adminVars = {
    WAYBILL_ADMIN_TOKENS: JSON.stringify([hashedEntry('fuzz-admin', adminToken)]),
    WAYBILL_REQUEST_LOG: 'errors',
  }
  return { apiKey, adminToken, vars, adminVars }
}

/** Starts versitygw and `wrangler dev` with the fuzzing configuration. */
export async function startFuzzTarget(): Promise<FuzzTarget> {
  const stops: (() => Promise<void> | void)[] = []
  const stop = async () => {
    for (const step of stops.reverse()) await step()
  }
  try {
    const tmp = mkdtempSync(join(tmpdir(), 'waybill-fuzz-'))
    stops.push(() => rmSync(tmp, { recursive: true, force: true }))
    const accessKeyId = `FUZZ${randomBytes(8).toString('hex').toUpperCase()}`
    const secretAccessKey = randomBytes(30).toString('base64url')
    const s3 = await startVersitygw({
      dataDir: join(tmp, 's3'),
      accessKeyId,
      secretAccessKey,
      buckets: ['photos'],
    })
    stops.push(s3.stop)

    const { apiKey, adminToken, vars, adminVars } = fuzzVars({
      endpoint: s3.endpoint,
      accessKeyId,
      secretAccessKey,
    })
    // Both Workers on one local state (D1, Durable Objects), the admin plane after the data plane.
    const persistTo = join(tmp, 'state')
    const urls: string[] = []
    for (const [config, workerVars] of [
      ['wrangler.jsonc', vars],
      ['wrangler.admin.jsonc', adminVars],
    ] as const) {
      const envFile = join(tmp, `${config}.vars`)
      writeFileSync(envFile, envFileText(workerVars), { mode: 0o600 })
      const wrangler = await startWranglerDev({
        name: config,
        // Below the ephemeral range: chosen seconds before wrangler binds it, while the other
        // Worker's workerd opens sockets of its own (scripts/versitygw.mjs).
        port: await portBelowEphemeral(),
        envFile,
        config,
        persistTo,
        inspectorPort: await portBelowEphemeral(),
        quiet: process.env.WAYBILL_TEST_VERBOSE !== '1',
      })
      stops.push(wrangler.stop)
      urls.push(wrangler.url)
    }
    const [baseUrl, adminUrl] = urls as [string, string]
    return { baseUrl, adminUrl, apiKey, adminToken, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
