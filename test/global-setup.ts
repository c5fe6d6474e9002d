// Runs in Node before the workerd test pool starts: builds (once) and starts versitygw with a fresh
// data folder and freshly generated credentials, a CloudFront edge in front of its bucket, a
// webhook receiver with a fresh signing secret, and hands the details to the pool and the tests.

import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import type { TestProject } from 'vitest/node'
import { startVersitygw } from '../scripts/versitygw.mjs'
import { startCloudFrontEdge } from './helpers/cloudfront-edge.ts'
import { startCryptoService } from './helpers/crypto-service.ts'
import type { WebhookRecord } from './helpers/provided-context.ts'

export const E2E_BUCKET = 'e2e'

export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), 'waybill-versitygw-'))
  const accessKeyId = `TEST${randomBytes(8).toString('hex').toUpperCase()}`
  const secretAccessKey = randomBytes(30).toString('base64url')
  const s3 = await startVersitygw({ dataDir, accessKeyId, secretAccessKey, buckets: [E2E_BUCKET] })

  const apiKey = `wb_test_${randomBytes(24).toString('base64url')}`
  project.provide('s3', {
    endpoint: s3.endpoint,
    port: s3.port,
    bucket: E2E_BUCKET,
    accessKeyId,
    secretAccessKey,
  })
  project.provide('apiKey', {
    key: apiKey,
    sha256: createHash('sha256').update(apiKey).digest('hex'),
  })

  const cryptoService = await startCryptoService()
  project.provide('cryptoService', cryptoService.url)

  const edge = await startCloudFrontEdge({
    endpoint: s3.endpoint,
    bucket: E2E_BUCKET,
    accessKeyId,
    secretAccessKey,
  })
  project.provide('cloudFrontEdge', edge.url)

  const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`
  const webhook = await startWebhookReceiver(webhookSecret)
  project.provide('webhook', { baseUrl: webhook.baseUrl, secret: webhookSecret })

  return async () => {
    await webhook.stop()
    await edge.stop()
    await cryptoService.stop()
    await s3.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * A webhook receiver for test/services/notify.e2e.test.ts, checking signatures with the
 * `standardwebhooks` package in Node. Every POST but /control is a delivery, recorded as
 * `{ id, verified, body, status }` and answered 204 (401 when it does not verify);
 * `POST /control {"failNext": N}` makes it answer the next N deliveries 503; `GET /events?id=…`
 * lists the deliveries of one webhook-id (all of them without `id`).
 */
async function startWebhookReceiver(secret: string) {
  const verifier = new Webhook(secret)
  const records: WebhookRecord[] = []
  let failNext = 0
  const server = createServer((request, response) => {
    void readBody(request)
      .then((body) => {
        const url = new URL(request.url ?? '/', 'http://receiver')
        if (request.method === 'GET' && url.pathname === '/events') {
          const id = url.searchParams.get('id')
          const found = id === null ? records : records.filter((record) => record.id === id)
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(found))
          return
        }
        if (request.method === 'POST' && url.pathname === '/control') {
          failNext = Number((JSON.parse(body) as { failNext?: unknown }).failNext) || 0
          response.writeHead(204).end()
          return
        }
        if (request.method !== 'POST') {
          response.writeHead(405).end()
          return
        }
        const headers: Record<string, string> = {}
        for (const [name, value] of Object.entries(request.headers)) {
          if (typeof value === 'string') headers[name] = value
        }
        let verified = true
        try {
          verifier.verify(body, headers)
        } catch {
          verified = false
        }
        let status = verified ? 204 : 401
        if (failNext > 0) {
          failNext--
          status = 503
        }
        records.push({ id: headers['webhook-id'] ?? '', verified, body, status })
        response.writeHead(status).end()
      })
      .catch((error: unknown) => {
        // A malformed /control body: answered, never an unhandled rejection in the setup.
        if (!response.headersSent) response.writeHead(400).end(String(error))
      })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((done) => server.close(() => done())),
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
}
