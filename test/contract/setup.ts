// Runs every answer the suite's apps give through the document (test/contract/answers.ts): a
// setup file of the unit and e2e projects. createApp is wrapped so that each app's fetch (which
// `app.request` and the Worker entry both call) records its answers; after each test, every
// answer it got must be one docs/openapi.json describes, or the test fails naming each.

import { afterEach, expect, vi } from 'vitest'
import { checkAnswer } from './answers'

// A body still unread after this is left unchecked (its status and type are checked): an answer
// to a request whose streamed body the app stopped reading may not end until that stream does.
const READ_TIMEOUT_MS = 2_000

/** Checks of answers still being read, and what they found. */
let pending: Promise<string[]>[] = []

async function check(request: Request, response: Response): Promise<string[]> {
  const timeout = new Promise<undefined>((resolve) =>
    setTimeout(() => resolve(undefined), READ_TIMEOUT_MS),
  )
  const body = await Promise.race([response.text(), timeout])
  return checkAnswer({
    method: request.method,
    url: request.url,
    status: response.status,
    contentType: response.headers.get('content-type'),
    body,
  })
}

vi.mock('../../src/app', async (importOriginal) => {
  const app = await importOriginal<typeof import('../../src/app')>()
  return {
    ...app,
    createApp(...args: Parameters<typeof app.createApp>) {
      const created = app.createApp(...args)
      const fetch = created.fetch
      created.fetch = async (request, ...rest) => {
        const response = await fetch(request, ...rest)
        pending.push(check(request, response.clone()))
        return response
      }
      return created
    },
  }
})

afterEach(async () => {
  const found = (await Promise.all(pending)).flat()
  pending = []
  expect(found, 'answers that break docs/openapi.json').toEqual([])
})
