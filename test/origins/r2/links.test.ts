// Links to an R2 origin's objects, counted: a one-time link's twenty visits at once give one
// redirect to waybill's own URL (which serves the bytes) and nineteen 410s; an N-use link serves
// N times. The counter is the LinkUses Durable Object wrangler.jsonc binds.

import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../../src/app'
import type { Env } from '../../../src/env'
import { apiCall, browserRequest, r2Bucket, r2Env } from '../../helpers/r2'

const KEY = `wb_test_r2_links_${crypto.randomUUID()}`
const OBJECT = `r2-links-${crypto.randomUUID().slice(0, 8)}/report.txt`
const BODY = 'counted bytes from R2'
const app = createApp()
let env: Env

beforeAll(async () => {
  env = await r2Env(KEY)
  await r2Bucket().put(OBJECT, BODY, { httpMetadata: { contentType: 'text/plain' } })
})

async function issue(maxUses: number): Promise<string> {
  const response = await apiCall(app, env, KEY, '/v1/links', {
    origin: 'media',
    keys: [OBJECT],
    maxUses,
  })
  expect(response.status, await response.clone().text()).toBe(200)
  const answer = await response.json<{ maxUses: number; links: { url: string }[] }>()
  expect(answer.maxUses).toBe(maxUses)
  return new URL(answer.links[0]!.url).pathname
}

const follow = async (path: string) =>
  app.request(`https://files.example.com${path}`, { redirect: 'manual' }, env)

describe('a counted link to an R2 object', () => {
  it('gives one redirect to twenty visits at once, which serves the bytes, and nineteen 410s', async () => {
    const path = await issue(1)
    const answers = await Promise.all(Array.from({ length: 20 }, () => follow(path)))
    const found = answers.filter((answer) => answer.status === 302)
    expect(found).toHaveLength(1)
    expect(answers.filter((answer) => answer.status === 410)).toHaveLength(19)
    const location = found[0]!.headers.get('location')!
    expect(location.startsWith('https://files.example.com/o/media/')).toBe(true)
    const served = await browserRequest(app, env, location)
    expect(served.status).toBe(200)
    expect(await served.text()).toBe(BODY)
  })

  it('serves an N-use link N times, then answers 410', async () => {
    const path = await issue(3)
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await follow(path)).status)
    expect(statuses).toEqual([302, 302, 302, 410])
  })
})
