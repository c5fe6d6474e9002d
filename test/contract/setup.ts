// Runs every answer the suite's apps give through their document (test/contract/answers.ts): a
// setup file of the unit and e2e projects. createApp and createAdminApp are wrapped so that each
// app's fetch (which `app.request` and the Worker entry both call) records its answers; after each
// test, every answer it got must be one its Worker's document (docs/openapi.json,
// docs/admin-openapi.json) describes, or the test fails naming each.

import { afterEach, expect, vi } from 'vitest'
import { checkAdminAnswer, checkAnswer, type Answer } from './answers'

// A body still unread after this is left unchecked (its status and type are checked): an answer
// to a request whose streamed body the app stopped reading may not end until that stream does.
const READ_TIMEOUT_MS = 2_000

/** Checks of answers still being read, and what they found. */
let pending: Promise<string[]>[] = []

async function check(
  request: Request,
  response: Response,
  against: (answer: Answer) => string[],
): Promise<string[]> {
  const timeout = new Promise<undefined>((resolve) =>
    setTimeout(() => resolve(undefined), READ_TIMEOUT_MS),
  )
  const body = await Promise.race([response.text(), timeout])
  return against({
    method: request.method,
    url: request.url,
    status: response.status,
    contentType: response.headers.get('content-type'),
    body,
  })
}

/** `app`, its answers checked against `against`'s document. */
function checked<
  T extends { fetch: (request: Request, ...rest: never[]) => Response | Promise<Response> },
>(app: T, against: (answer: Answer) => string[]): T {
  const fetch = app.fetch
  app.fetch = async (request, ...rest) => {
    const response = await fetch(request, ...rest)
    pending.push(check(request, response.clone(), against))
    return response
  }
  return app
}

vi.mock('../../src/app', async (importOriginal) => {
  const app = await importOriginal<typeof import('../../src/app')>()
  return {
    ...app,
    createApp: (...args: Parameters<typeof app.createApp>) =>
      checked(app.createApp(...args), checkAnswer),
  }
})

vi.mock('../../src/admin/app', async (importOriginal) => {
  const app = await importOriginal<typeof import('../../src/admin/app')>()
  return {
    ...app,
    createAdminApp: (...args: Parameters<typeof app.createAdminApp>) =>
      checked(app.createAdminApp(...args), checkAdminAnswer),
  }
})

afterEach(async () => {
  const found = (await Promise.all(pending)).flat()
  pending = []
  expect(found, 'answers that break docs/openapi.json').toEqual([])
})
