// The R2 driver through the Worker's binding (Miniflare's local R2): the Worker signs its own URLs
// and is their verifier, so every URL here goes back into the Worker, as a browser's would.

import { createApp } from '../../src/app'
import type { Env } from '../../src/env'
import { apiKeysBinding } from '../helpers/api-keys'
import { browserRequest, r2Bucket } from '../helpers/r2'
import { workerEnv } from '../helpers/worker-env'
import { describeConformance } from './conformance'

const KEY = `wb_test_conformance_r2_${crypto.randomUUID()}`

describeConformance('r2', async () => {
  const env: Env = {
    ...workerEnv,
    WAYBILL_ORIGINS: JSON.stringify({ conform: { type: 'r2', binding: 'DEMO_R2' } }),
    WAYBILL_API_KEYS: await apiKeysBinding([{ id: 'conform', key: KEY }]),
    WAYBILL_GRANTS: JSON.stringify([
      {
        to: 'apiKey:conform',
        origin: 'conform',
        actions: ['read', 'write', 'delete', 'list'],
        overwrite: true,
      },
    ]),
  }
  const worker = createApp()
  const send = (url: string, init: RequestInit) => browserRequest(worker, env, url, init)
  return {
    origin: 'conform',
    key: KEY,
    env,
    folder: `conform-r2-${crypto.randomUUID().slice(0, 8)}/`,
    async seed(key, body) {
      await r2Bucket().put(key, body)
    },
    async stored(key) {
      const object = await r2Bucket().get(key)
      return object === null ? 404 : new Uint8Array(await object.arrayBuffer())
    },
    follow: (url, init = {}) => send(url, { method: init.method ?? 'GET' }),
    send,
  }
})
