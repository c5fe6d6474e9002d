// The contract check itself (test/contract/answers.ts): it passes the answers the document
// describes and names each way an answer can drift from it, so that the check the setup file runs
// on every answer of the suite can fail.

import { describe, expect, it } from 'vitest'
import { checkAnswer, type Answer } from './answers'

const BASE = 'https://waybill.test'
const PROBLEM = JSON.stringify({
  type: 'urn:waybill:problem:forbidden',
  title: 'Forbidden',
  status: 403,
  detail: 'No grant lets this caller read on origin "x".',
  errors: [{ path: 'origin', message: 'no grant to read on this origin' }],
})
const SIGNED = JSON.stringify({
  origin: 'photos',
  method: 'GET',
  expiresAt: '2026-11-23T10:15:00.000Z',
  urls: [{ key: 'a.jpg', url: 'https://photos.s3.example/a.jpg?X-Amz-Signature=0' }],
})

const answer = (fields: Partial<Answer>): Answer => ({
  method: 'POST',
  url: `${BASE}/v1/sign`,
  status: 200,
  contentType: 'application/json',
  body: SIGNED,
  ...fields,
})

describe('checkAnswer', () => {
  it('passes answers the document describes: JSON, NDJSON, problems, redirects', () => {
    expect(checkAnswer(answer({}))).toEqual([])
    expect(
      checkAnswer(answer({ contentType: 'application/x-ndjson; charset=utf-8', body: '' })),
    ).toEqual([])
    expect(
      checkAnswer(answer({ status: 403, contentType: 'application/problem+json', body: PROBLEM })),
    ).toEqual([])
    expect(
      checkAnswer(
        answer({
          method: 'GET',
          url: `${BASE}/v1/redirect/photos/a/b%2Fc.jpg`,
          status: 302,
          contentType: null,
          body: '',
        }),
      ),
    ).toEqual([])
  })

  it('names a body that breaks its schema', () => {
    const drifted = JSON.stringify({ ...JSON.parse(SIGNED), expiresAt: 1_795_000_000 })
    const [problem] = checkAnswer(answer({ body: drifted }))
    expect(problem).toMatch(/^POST \/v1\/sign → 200 \(signUrls\): the body breaks its schema/)
    expect(problem).toContain('/expiresAt')
    const missing = JSON.stringify({ origin: 'photos', method: 'GET', expiresAt: null })
    expect(checkAnswer(answer({ body: missing }))).toHaveLength(1)
  })

  it('names a status the operation does not list, and a content type it does not', () => {
    expect(
      checkAnswer(answer({ status: 418, contentType: 'application/problem+json', body: PROBLEM })),
    ).toEqual(['POST /v1/sign → 418 (signUrls): the document lists no 418 for this operation'])
    expect(checkAnswer(answer({ contentType: 'text/html', body: '<p>' }))).toEqual([
      'POST /v1/sign → 200 (signUrls): content type text/html is not one the document lists (application/json, application/x-ndjson)',
    ])
  })

  it('checks a problem against the problem schema', () => {
    const bare = JSON.stringify({ status: 403 })
    expect(
      checkAnswer(answer({ status: 403, contentType: 'application/problem+json', body: bare })),
    ).toHaveLength(1)
  })

  it('takes only the 404 or 405 problem where no operation answers', () => {
    const CODES: Record<number, string> = { 404: 'not_found', 405: 'method_not_allowed' }
    const notFound = (status: number, path: string, method = 'GET', code = CODES[status]) =>
      checkAnswer(
        answer({
          method,
          url: `${BASE}${path}`,
          status,
          contentType: 'application/problem+json',
          body: PROBLEM.replace('403', String(status)).replace(
            'problem:forbidden',
            `problem:${code ?? 'forbidden'}`,
          ),
        }),
      )
    expect(notFound(404, '/nowhere')).toEqual([])
    expect(notFound(405, '/v1/sign', 'GET')).toEqual([])
    // The problem of its own status, not another's.
    expect(notFound(404, '/nowhere', 'GET', 'forbidden')[0]).toMatch(
      /^GET \/nowhere → 404: the body breaks its schema/,
    )
    expect(notFound(200, '/nowhere')).toEqual([
      'GET /nowhere → 200: no operation answers this; expected the 404 problem',
    ])
    expect(notFound(404, '/v1/sign', 'DELETE')).toHaveLength(1)
  })
})
