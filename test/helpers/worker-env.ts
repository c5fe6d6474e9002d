// The env the e2e project gives the Worker (vitest.config.ts): its bindings typed as the app's
// `Env`, its `e2e` origin on versitygw and that bucket reached directly, for tests that build their
// env on top of it. Only for the e2e project: it reads what test/global-setup.ts provides.

import { env } from 'cloudflare:workers'
import { AwsClient } from 'aws4fetch'
import { inject } from 'vitest'
import type { Env } from '../../src/env'

const s3 = inject('s3')

/**
 * The bindings vitest.config.ts gives the Worker: JSON text and credentials, not the JSON
 * wrangler.jsonc declares (`Cloudflare.Env`).
 */
export const workerEnv = env as unknown as Env

/** The `e2e` origin as vitest.config.ts defines it: versitygw's bucket, path style. */
export interface E2eOrigin {
  type: 's3'
  bucket: string
  region: string
  endpoint: string
  style: 'path' | 'virtual'
  credentials: string
  keys: 'any' | 'safe'
}

/** The Worker's `e2e` origin (keys "any"), to define more origins on the same bucket. */
export function e2eOrigin(): E2eOrigin {
  return (JSON.parse(workerEnv.WAYBILL_ORIGINS as string) as { e2e: E2eOrigin }).e2e
}

/** versitygw's bucket reached with its own credentials: seeding, and checking what landed. */
export const store = new AwsClient({
  accessKeyId: s3.accessKeyId,
  secretAccessKey: s3.secretAccessKey,
  service: 's3',
  region: 'us-east-1',
})

/** The path-style URL of `key` in that bucket, each segment percent-encoded. */
export function objectUrl(key: string): string {
  return `${s3.endpoint}/${s3.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`
}
