// The CloudFront driver against an edge that verifies its policies with the public key
// (test/helpers/cloudfront-edge.ts), in front of versitygw's bucket, which the S3 origin lists.

import { inject } from 'vitest'
import { apiKeysBinding } from '../helpers/api-keys'
import { e2eOrigin, workerEnv } from '../helpers/worker-env'
import { describeConformance, e2eBucket } from './conformance'

const KEY = `wb_test_conformance_cf_${crypto.randomUUID()}`
const KEY_PAIR_ID = 'KCONFORMANCE0001'
const edge = inject('cloudFrontEdge')
const keys = inject('testKeys')

describeConformance('cloudfront', async () => {
  const registered = await fetch(`${edge}__keys`, {
    method: 'POST',
    body: JSON.stringify({ keyPairId: KEY_PAIR_ID, publicKey: keys.rsaPublic }),
  })
  if (registered.status !== 204) throw new Error(`edge keys: ${registered.status}`)
  return {
    origin: 'conform',
    key: KEY,
    env: {
      ...workerEnv,
      WAYBILL_ORIGINS: JSON.stringify({
        conform: {
          type: 'cloudfront',
          baseUrl: edge,
          keyPairId: KEY_PAIR_ID,
          privateKey: 'CONFORM_KEY',
          listFrom: 'bucket',
        },
        bucket: { ...e2eOrigin(), keys: 'safe' },
      }),
      CONFORM_KEY: keys.rsaPkcs8,
      WAYBILL_API_KEYS: await apiKeysBinding([{ id: 'conform', key: KEY }]),
      WAYBILL_GRANTS: JSON.stringify([
        { to: 'apiKey:conform', origin: 'conform', actions: ['read', 'list'] },
        { to: 'apiKey:conform', origin: 'conform', actions: ['read'], wildcard: true },
      ]),
    },
    folder: `conform-cf-${crypto.randomUUID().slice(0, 8)}/`,
    ...e2eBucket,
    follow: (url, init = {}) =>
      fetch(url, {
        method: init.method ?? 'GET',
        headers:
          init.cookies === undefined
            ? {}
            : {
                cookie: Object.entries(init.cookies)
                  .map(([name, value]) => `${name}=${value}`)
                  .join('; '),
              },
      }),
  }
})
