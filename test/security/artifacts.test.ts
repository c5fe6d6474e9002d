// Every artifact answers to its issuer (issue #28): what acts after it is minted — a link that
// signs on each visit, a POST policy the store accepts until it expires, a receipt, an upload
// handle — is judged again when it acts, and a quota counts the most it can ever store. Each test
// reproduces a fault found from outside on e8fbc01, and failed there. (Fault 5, the completion
// check's clock window, is test/security/upload-integrity.test.ts, "4: …".)

import { beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../src/config/env'
import { withControl } from '../helpers/control-plane'
import { form, postForm } from '../helpers/forms'
import { objectUrl, store } from '../helpers/worker-env'
import { call, problem, ROOT, securityEnv } from '../helpers/security-world'

let env: Env
const MINE = `${ROOT}/alice/artifacts/`

beforeAll(async () => {
  env = await withControl(await securityEnv())
})

const storedText = async (key: string) => {
  const response = await store.fetch(objectUrl(key))
  return response.status === 200 ? response.text() : response.status
}

describe('fault 4: a POST form replaces only when the grant and the request both say so', () => {
  it('refuses a form that would replace without being asked, even where the grant allows it', async () => {
    const key = `${MINE}replaced.txt`
    await store.fetch(objectUrl(key), { method: 'PUT', body: 'original' })
    // Alice's grant on her folder allows overwrite; her request does not ask for it.
    const unasked = await problem(
      await call(env, 'POST', '/v1/uploads', {
        origin: 's3',
        mode: 'post',
        key,
        contentType: 'text/plain',
      }),
    )
    // Before: 200, and the form replaced the object.
    expect(unasked.status).toBe(400)
    expect(unasked.errors?.map((e) => e.path)).toEqual(['overwrite'])
    expect(await storedText(key)).toBe('original')

    // Asked for, it replaces: the form cannot refuse to.
    const asked = await call(env, 'POST', '/v1/uploads', {
      origin: 's3',
      mode: 'post',
      overwrite: true,
      key,
      contentType: 'text/plain',
    })
    expect(asked.status, await asked.clone().text()).toBe(200)
    const { url, fields } = await asked.json<{ url: string; fields: Record<string, string> }>()
    expect((await postForm(url, form(fields, new Blob(['replaced'])))).status).toBe(204)
    expect(await storedText(key)).toBe('replaced')
  })
})
