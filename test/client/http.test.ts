// The client's calls to waybill: the credential on every request and never in a URL, problem
// answers as WaybillError (message = the server's detail), retries only where they can help, and
// a page on another origin told at once when waybill's CORS rules refuse it.

import { afterEach, describe, expect, it, vi } from 'vitest'
import { createClient, WaybillError } from '../../client/src/index.ts'
import { redirectUrl } from '../../client/src/redirect.ts'
import { fakeWaybill, problem, WAYBILL } from '../helpers/fake-waybill.ts'

describe('the credential', () => {
  it('asks auth() before every request (tokens can refresh) and sends it as a bearer header only', async () => {
    const fake = fakeWaybill()
    const tokens = ['token-1', 'token-2']
    let asked = 0
    const client = createClient({
      baseUrl: WAYBILL,
      fetch: fake.fetch,
      auth: async () => {
        await Promise.resolve()
        return tokens[asked++]
      },
    })
    await client.sign({ origin: 'photos', keys: ['a.jpg'] })
    await client.sign({ origin: 'photos', keys: ['b.jpg'] })
    expect(fake.log.map((r) => r.headers.get('authorization'))).toEqual([
      'Bearer token-1',
      'Bearer token-2',
    ])
    for (const request of fake.log) {
      expect(request.url.href).not.toContain('token')
      expect(request.headers.get('content-type')).toBe('application/json')
    }
  })

  it('sends no Authorization when auth() gives nothing, and passes credentials for cookies', async () => {
    const seen: RequestInit[] = []
    const fake = fakeWaybill()
    const client = createClient({
      baseUrl: `${WAYBILL}/`,
      credentials: 'include',
      auth: () => undefined,
      fetch: (input, init) => {
        seen.push(init ?? {})
        return fake.fetch(input, init)
      },
    })
    await client.sign({ origin: 'photos', keys: ['a.jpg'] })
    expect(fake.log[0]!.headers.has('authorization')).toBe(false)
    expect(fake.log[0]!.url.href).toBe(`${WAYBILL}/v1/sign`)
    expect(seen[0]!.credentials).toBe('include')
  })

  it('keeps a base path and refuses a base URL that carries credentials', () => {
    const client = createClient({ baseUrl: 'https://example.test/waybill/' })
    expect(redirectUrl(client, 'o', 'k')).toBe('https://example.test/waybill/v1/redirect/o/k')
    expect(() => createClient({ baseUrl: 'https://user:secret@example.test' })).toThrow(
      WaybillError,
    )
  })
})

describe('errors', () => {
  it("turns a problem into a WaybillError whose message is the server's detail", async () => {
    const fake = fakeWaybill({ contentTypes: ['image/png'] })
    const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch })
    const error = await client
      .createUpload({ origin: 'o', key: 'a.pdf', contentType: 'application/pdf' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WaybillError)
    const e = error as WaybillError
    expect(e.message).toBe('contentType: "application/pdf" is not a type the grant admits')
    expect(e.detail).toBe(e.message)
    expect(e).toMatchObject({
      code: 'invalid_request',
      status: 400,
      type: 'urn:waybill:problem:invalid_request',
      requestId: 'req-1',
      errors: [
        { path: 'contentType', message: '"application/pdf" is not a type the grant admits' },
      ],
      retryable: false,
    })
  })

  it('describes an answer that is not a problem, and a network failure', async () => {
    const html = createClient({
      baseUrl: WAYBILL,
      retries: 0,
      fetch: () => Promise.resolve(new Response('<h1>Bad gateway</h1>', { status: 502 })),
    })
    await expect(html.sign({ origin: 'o', keys: ['k'] })).rejects.toMatchObject({
      code: 'http_error',
      status: 502,
      message: expect.stringMatching(/^waybill answered 502\b/) as string,
    })
    const offline = createClient({
      baseUrl: WAYBILL,
      retries: 0,
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
    })
    await expect(offline.sign({ origin: 'o', keys: ['k'] })).rejects.toMatchObject({
      code: 'network_error',
      status: 0,
      retryable: true,
    })
  })
})

describe('retries', () => {
  it('retries network errors, 429 (after Retry-After) and 5xx, then succeeds', async () => {
    const fake = fakeWaybill()
    const answers = [
      () => Promise.reject(new TypeError('Failed to fetch')),
      () =>
        Promise.resolve(
          new Response(JSON.stringify({ detail: 'slow down', status: 429 }), {
            status: 429,
            headers: { 'retry-after': '0', 'content-type': 'application/problem+json' },
          }),
        ),
      () => Promise.resolve(problem(503, 'auth_unavailable', 'JWKS unreachable')),
    ]
    let calls = 0
    const client = createClient({
      baseUrl: WAYBILL,
      retryBaseDelayMs: 1,
      fetch: (input, init) => answers[calls++]?.() ?? fake.fetch(input, init),
    })
    const answer = await client.sign({ origin: 'o', keys: ['k'] })
    expect(answer.urls).toHaveLength(1)
    expect(calls).toBe(4)
  })

  it('never retries another 4xx, and gives up after `retries`', async () => {
    let calls = 0
    const forbidden = createClient({
      baseUrl: WAYBILL,
      retryBaseDelayMs: 1,
      fetch: () => {
        calls++
        return Promise.resolve(problem(403, 'forbidden', 'No grant covers this key.'))
      },
    })
    await expect(forbidden.sign({ origin: 'o', keys: ['k'] })).rejects.toThrow(
      'No grant covers this key.',
    )
    expect(calls).toBe(1)

    calls = 0
    const failing = createClient({
      baseUrl: WAYBILL,
      retries: 2,
      retryBaseDelayMs: 1,
      fetch: () => {
        calls++
        return Promise.resolve(problem(502, 'upstream_error', 'S3 said InternalError.'))
      },
    })
    await expect(failing.sign({ origin: 'o', keys: ['k'] })).rejects.toThrow(
      'S3 said InternalError.',
    )
    expect(calls).toBe(3)
  })

  it('stops at once when the signal aborts, with its reason', async () => {
    const controller = new AbortController()
    const client = createClient({
      baseUrl: WAYBILL,
      retryBaseDelayMs: 10_000,
      fetch: () => {
        setTimeout(() => controller.abort(new Error('user left')), 1)
        return Promise.reject(new TypeError('Failed to fetch'))
      },
    })
    await expect(
      client.sign({ origin: 'o', keys: ['k'] }, { signal: controller.signal }),
    ).rejects.toThrow('user left')
  })
})

describe('a page on another origin', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  /** A fetch that records `<mode> <path>` and answers only `no-cors` requests when `up`. */
  const corsRefusing = (up: boolean, seen: string[]) =>
    ((input, init) => {
      seen.push(
        `${init?.mode ?? 'cors'} ${new URL(input instanceof Request ? input.url : input).pathname}`,
      )
      return init?.mode === 'no-cors' && up
        ? Promise.resolve(new Response(null, { status: 200 }))
        : Promise.reject(new TypeError('Failed to fetch'))
    }) satisfies typeof fetch

  it('fails at once, naming CORS and the page, when waybill answers only without CORS', async () => {
    vi.stubGlobal('location', { origin: 'http://app.test', href: 'http://app.test/gallery' })
    const seen: string[] = []
    const client = createClient({ baseUrl: WAYBILL, fetch: corsRefusing(true, seen) })
    const started = Date.now()
    await expect(client.sign({ origin: 'o', keys: ['k'] })).rejects.toMatchObject({
      code: 'cors_refused',
      status: 0,
      retryable: false,
      message: `waybill at ${WAYBILL} answers, but its CORS rules do not allow this page (http://app.test): add it to WAYBILL_CORS.`,
    })
    // No retries: one call, one request without CORS to tell why.
    expect(seen).toEqual(['cors /v1/sign', 'no-cors /healthz'])
    expect(Date.now() - started).toBeLessThan(400)
  })

  it('retries as before when nothing answers at all (offline, or waybill down)', async () => {
    vi.stubGlobal('location', { origin: 'http://app.test', href: 'http://app.test/' })
    const seen: string[] = []
    const client = createClient({
      baseUrl: WAYBILL,
      retries: 1,
      retryBaseDelayMs: 1,
      fetch: corsRefusing(false, seen),
    })
    await expect(client.sign({ origin: 'o', keys: ['k'] })).rejects.toMatchObject({
      code: 'network_error',
      retryable: true,
    })
    expect(seen).toEqual(['cors /v1/sign', 'no-cors /healthz', 'cors /v1/sign', 'no-cors /healthz'])
  })

  it('once waybill has answered, and on its own origin, retries a failure without asking why', async () => {
    vi.stubGlobal('location', { origin: 'http://app.test', href: 'http://app.test/' })
    const fake = fakeWaybill()
    const seen: string[] = []
    let calls = 0
    const client = createClient({
      baseUrl: WAYBILL,
      retries: 1,
      retryBaseDelayMs: 1,
      fetch: (input, init) =>
        ++calls === 2 ? corsRefusing(true, seen)(input, init) : fake.fetch(input, init),
    })
    await client.sign({ origin: 'o', keys: ['k'] })
    await client.sign({ origin: 'o', keys: ['k'] })
    expect(seen).toEqual(['cors /v1/sign'])

    vi.stubGlobal('location', { origin: WAYBILL, href: `${WAYBILL}/demo` })
    const sameOrigin: string[] = []
    const page = createClient({ baseUrl: '/', retries: 0, fetch: corsRefusing(true, sameOrigin) })
    await expect(page.sign({ origin: 'o', keys: ['k'] })).rejects.toMatchObject({
      code: 'network_error',
    })
    expect(sameOrigin).toEqual(['cors /v1/sign'])
  })
})
