// One grant per permit (issue #20, faults 8 and 9): every target is allowed by one grant on every
// field at once; limits are never taken from several grants. Each test failed on 9207624, where a
// permit took each limit from whichever covering grant allowed most.

import { beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import { call, MIB, problem, ROOT, securityEnv } from '../helpers/security-world'

let env: Env
const COMBO = `${ROOT}/combo/`
const WEEK_S = 604_800

beforeAll(async () => {
  env = await securityEnv({}, [
    // Large but short-lived, or long-lived but small and few: never large, many and long-lived.
    {
      to: 'apiKey:alice',
      origin: 's3',
      prefix: COMBO,
      actions: ['read', 'write'],
      contentTypes: ['image/png'],
      maxContentLength: 50 * MIB,
      maxExpiresIn: 3600,
      maxBatch: 1000,
      overwrite: true,
    },
    {
      to: 'apiKey:alice',
      origin: 's3',
      prefix: COMBO,
      actions: ['read', 'write'],
      contentTypes: ['image/png'],
      maxContentLength: MIB,
      maxExpiresIn: WEEK_S,
      maxBatch: 5,
      maxLinkExpiresIn: WEEK_S,
      overwrite: true,
    },
  ])
})

interface PostUpload {
  fields: Record<string, string>
}

/** The size range and expiry a POST policy signs. */
function policyOf(upload: PostUpload) {
  const policy = JSON.parse(atob(upload.fields.policy!)) as {
    expiration: string
    conditions: unknown[]
  }
  const range = policy.conditions.find(
    (c): c is [string, number, number] => Array.isArray(c) && c[0] === 'content-length-range',
  )!
  return { max: range[2], lifetimeS: (Date.parse(policy.expiration) - Date.now()) / 1000 }
}

describe('8: a POST policy is one grant’s size and lifetime', () => {
  const post = (expiresIn?: number) =>
    call(env, 'POST', '/v1/uploads', {
      origin: 's3',
      mode: 'post',
      overwrite: true,
      key: `${COMBO}form.png`,
      contentType: 'image/png',
      expiresIn,
    })

  it('a week is signed for the small grant’s size, never the large one’s', async () => {
    const response = await post(WEEK_S)
    expect(response.status).toBe(200)
    const { max, lifetimeS } = policyOf(await response.json<PostUpload>())
    // On 9207624: 50 MiB for 7 days, which no grant allows.
    expect(max).toBe(MIB)
    expect(lifetimeS).toBeGreaterThan(WEEK_S - 60)
  })

  it('an hour may be signed for the large grant’s size', async () => {
    const { max } = policyOf(await (await post(3600)).json<PostUpload>())
    expect(max).toBe(50 * MIB)
  })

  it('a 10 MiB PUT for a week is refused: no one grant allows both', async () => {
    const response = await call(env, 'POST', '/v1/uploads', {
      origin: 's3',
      key: `${COMBO}big.png`,
      contentType: 'image/png',
      contentLength: 10 * MIB,
      expiresIn: WEEK_S,
    })
    const body = await problem(response)
    expect(body.status).toBe(400)
    expect(body.errors).toEqual([
      { path: 'expiresIn', message: 'must be at most 3600 for this caller' },
    ])
  })
})

describe('9: a batch is one grant’s size and lifetime', () => {
  const keys = Array.from({ length: 10 }, (_, i) => `${COMBO}k${i}.png`)

  for (const route of ['/v1/sign', '/v1/links']) {
    it(`${route}: ten keys for a week are refused; five, or an hour, are not`, async () => {
      const ask = (n: number, expiresIn: number) =>
        call(env, 'POST', route, { origin: 's3', keys: keys.slice(0, n), expiresIn })
      const both = await problem(await ask(10, WEEK_S))
      // On 9207624: 200, the batch size of one grant and the lifetime of the other.
      expect(both.status).toBe(400)
      expect(both.errors?.map((e) => e.path)).toEqual(['expiresIn'])
      expect((await ask(5, WEEK_S)).status).toBe(200)
      expect((await ask(10, 3600)).status).toBe(200)
    })
  }
})
