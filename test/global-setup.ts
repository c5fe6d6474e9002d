// Runs in Node before the workerd test pool starts: builds (once) and starts versitygw with a fresh
// data folder and freshly generated credentials, and hands the details to the pool and the tests.

import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { startVersitygw } from '../scripts/versitygw.mjs'
import { makeTestKeys, startCryptoService } from './crypto-service.ts'

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
  project.provide('testKeys', makeTestKeys())

  return async () => {
    await cryptoService.stop()
    await s3.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
