// The S3 driver against versitygw, which verifies every SigV4 signature and signed header.

import { apiKeysBinding } from '../helpers/api-keys'
import { e2eOrigin, workerEnv } from '../helpers/worker-env'
import { describeConformance, e2eBucket } from './conformance'

const KEY = `wb_test_conformance_s3_${crypto.randomUUID()}`

describeConformance('s3', async () => ({
  origin: 'conform',
  key: KEY,
  env: {
    ...workerEnv,
    WAYBILL_ORIGINS: JSON.stringify({ conform: { ...e2eOrigin(), keys: 'safe' } }),
    WAYBILL_API_KEYS: await apiKeysBinding([{ id: 'conform', key: KEY }]),
    WAYBILL_GRANTS: JSON.stringify([
      {
        to: 'apiKey:conform',
        origin: 'conform',
        actions: ['read', 'write', 'delete', 'list'],
        overwrite: true,
      },
    ]),
  },
  folder: `conform-s3-${crypto.randomUUID().slice(0, 8)}/`,
  ...e2eBucket,
  follow: (url, init = {}) => fetch(url, { method: init.method ?? 'GET' }),
}))
