// Every route that signs, against every class of attack that got past the grants once (issue #14).
// Each class names every route: an expectation, or why it cannot apply. A route the app serves
// under /v1 that is missing from the table fails the suite, so a new route cannot skip a limit.

import { beforeAll, describe, expect, it } from 'vitest'
import { createAdminApp } from '../../src/admin/app'
import type { AdminEnv } from '../../src/config/admin'
import type { Env } from '../../src/env'
import { HS256_SECRET, sign } from '../fixtures/auth'
import { objectUrl, store } from '../helpers/worker-env'
import {
  app,
  call,
  LIMITS,
  MIB,
  problem,
  ROOT,
  securityEnv,
  startUpload,
  WILDCARD_MAX_EXPIRES_S,
  type Caller,
} from '../helpers/security-world'

let env: Env

/** One attempt: who asks, for which origin and folder, how long, how many entries. */
interface Attempt {
  caller: Caller
  origin?: string
  folder: string
  name?: string
  expiresIn?: number
  count?: number
  /** A media type where the route takes one (a response override, an upload's type). */
  contentType?: string
}

interface SigningRoute {
  /** The route as the app registers it: `METHOD /path`. */
  route: string
  origin: string
  send(attempt: Attempt): Promise<Response>
  /** The status a granted attempt gets. */
  ok: number
  /** The field naming the key or pattern, as problems name it. */
  keyPath: string
  /** When the answer's URLs stop working. */
  expiresAt?: (response: Response) => Promise<number>
}

const keyOf = (a: Attempt, i = 0) => `${a.folder}${a.name ?? `a${i}.png`}`
const keys = (a: Attempt) => Array.from({ length: a.count ?? 1 }, (_, i) => keyOf(a, i))
const bodyExpiry = async (response: Response) =>
  Date.parse((await response.json<{ expiresAt: string }>()).expiresAt)
const handles = new Map<string, string>()
// Dot segments must reach the Worker as sent: URL parsing would resolve them away.
const encodeKey = (key: string) =>
  key
    .split('/')
    .map((segment) =>
      /^\.{1,2}$/.test(segment) ? '%2E'.repeat(segment.length) : encodeURIComponent(segment),
    )
    .join('/')

/**
 * The attempt's key with the uploadId an attacker would present: the folder owner's own upload
 * (bob's in bob's folder, alice's anywhere else), each made once, for `<folder>a0.png`.
 */
async function handleFor(attempt: Attempt): Promise<{ key: string; uploadId: string }> {
  const owner = attempt.folder === `${ROOT}/bob/` ? 'bob' : 'alice'
  if (!handles.has(owner)) {
    const upload = await startUpload(env, `${ROOT}/${owner}/a0.png`, owner)
    handles.set(owner, upload.uploadId)
  }
  return { key: keyOf(attempt), uploadId: handles.get(owner)! }
}

const signRoute = (
  method: string,
  extra: Record<string, unknown> = {},
  origin = 's3',
): SigningRoute => ({
  route: 'POST /v1/sign',
  origin,
  ok: 200,
  keyPath: extra.policy === 'wildcard' ? 'policy' : 'keys.0',
  send: (a) =>
    call(
      env,
      'POST',
      '/v1/sign',
      {
        origin: a.origin ?? origin,
        method,
        ...(a.contentType === undefined
          ? { keys: keys(a) }
          : { items: keys(a).map((key) => ({ key, response: { contentType: a.contentType } })) }),
        expiresIn: a.expiresIn,
        ...extra,
      },
      a.caller,
    ),
  expiresAt: bodyExpiry,
})

const uploadRoute = (mode: string, extra: Record<string, unknown> = {}): SigningRoute => ({
  route: 'POST /v1/uploads',
  origin: 's3',
  ok: 200,
  keyPath: 'key',
  send: (a) =>
    call(
      env,
      'POST',
      '/v1/uploads',
      {
        origin: a.origin ?? 's3',
        mode,
        key: keyOf(a),
        contentType: a.contentType ?? 'image/png',
        expiresIn: a.expiresIn,
        ...extra,
      },
      a.caller,
    ),
  expiresAt: bodyExpiry,
})

const receipts = new Map<string, string>()
// Never uploaded: the seeded a0.png would be checked (and fail) as a real upload.
const CHECKED = 'check.png'

/**
 * The attempt's key with the receipt an attacker would present: the folder owner's own PUT
 * upload's (bob's in bob's folder, alice's anywhere else), each made once, for `<folder>check.png`.
 */
async function receiptFor(attempt: Attempt): Promise<{ key: string; receipt: string }> {
  const owner = attempt.folder === `${ROOT}/bob/` ? 'bob' : 'alice'
  if (!receipts.has(owner)) {
    const response = await call(
      env,
      'POST',
      '/v1/uploads',
      {
        origin: 's3',
        key: `${ROOT}/${owner}/${CHECKED}`,
        contentType: 'image/png',
        contentLength: 10,
        // Signed, so the check knows the upload's bytes without an ETag.
        checksumSha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
      },
      owner,
    )
    if (response.status !== 200) throw new Error(`put: ${await response.text()}`)
    receipts.set(owner, (await response.json<{ receipt: string }>()).receipt)
  }
  return { key: `${attempt.folder}${attempt.name ?? CHECKED}`, receipt: receipts.get(owner)! }
}

/** A call on a multipart upload the folder's owner started, by its key and uploadId. */
const multipartRoute = (
  step: 'parts' | 'list' | 'complete' | 'abort',
  ok: number,
  extra: (a: Attempt) => Record<string, unknown> = () => ({}),
): SigningRoute => ({
  route: `POST /v1/uploads/multipart/${step}`,
  origin: 's3',
  ok,
  keyPath: 'uploadId',
  send: async (a) => {
    const { key, uploadId } = await handleFor(a)
    return call(
      env,
      'POST',
      `/v1/uploads/multipart/${step}`,
      { origin: a.origin ?? 's3', key, uploadId, ...extra(a) },
      a.caller,
    )
  },
})

const ROUTES = {
  'sign GET': signRoute('GET'),
  'sign PUT': signRoute('PUT'),
  'sign DELETE': signRoute('DELETE'),
  'sign CloudFront canned': signRoute('GET', {}, 'cdn'),
  'sign CloudFront wildcard': signRoute('GET', { policy: 'wildcard' }, 'cdn'),
  redirect: {
    route: 'GET /v1/redirect/:origin/:key{[\\s\\S]+}',
    origin: 's3',
    ok: 302,
    keyPath: 'key',
    send: (a) => {
      const query = new URLSearchParams()
      if (a.expiresIn !== undefined) query.set('expiresIn', String(a.expiresIn))
      if (a.contentType !== undefined) query.set('contentType', a.contentType)
      const search = query.size === 0 ? '' : `?${query.toString()}`
      return call(
        env,
        'GET',
        `/v1/redirect/${a.origin ?? 's3'}/${encodeKey(keyOf(a))}${search}`,
        undefined,
        a.caller,
      )
    },
    expiresAt: locationExpiry,
  },
  list: listRoute('s3'),
  'list CloudFront': listRoute('cdn'),
  cookies: {
    route: 'POST /v1/cookies',
    origin: 'cdn',
    ok: 200,
    keyPath: 'prefix',
    send: (a) =>
      call(
        env,
        'POST',
        '/v1/cookies',
        { origin: a.origin ?? 'cdn', prefix: a.folder, expiresIn: a.expiresIn },
        a.caller,
      ),
    expiresAt: bodyExpiry,
  },
  'upload put': uploadRoute('put', { contentLength: 10 }),
  'upload post': uploadRoute('post', { overwrite: true }),
  'upload multipart': uploadRoute('multipart', { contentLength: 6 * MIB }),
  'multipart parts': {
    ...multipartRoute('parts', 200, (a) => ({ partNumbers: [1], expiresIn: a.expiresIn })),
    expiresAt: bodyExpiry,
  },
  // Before complete and abort, which end the upload.
  'multipart list': multipartRoute('list', 200),
  // Nothing was uploaded to these uploads: a granted caller gets the store's verdict on that, a
  // conflict with the upload (409).
  'multipart complete': multipartRoute('complete', 409, () => ({
    parts: [{ partNumber: 1, etag: '"0"' }],
  })),
  'multipart abort': multipartRoute('abort', 204),
  'upload batch': {
    route: 'POST /v1/uploads',
    origin: 's3',
    ok: 200,
    keyPath: 'items.0.key',
    send: (a) =>
      call(
        env,
        'POST',
        '/v1/uploads',
        {
          origin: a.origin ?? 's3',
          expiresIn: a.expiresIn,
          items: keys(a).map((key) => ({
            key,
            contentType: a.contentType ?? 'image/png',
            contentLength: 10,
          })),
        },
        a.caller,
      ),
    expiresAt: async (response) =>
      Date.parse(
        (await response.json<{ uploads: { expiresAt: string }[] }>()).uploads[0]!.expiresAt,
      ),
  },
  // Nothing was uploaded at these keys: a granted caller learns there is no object yet.
  'upload check': {
    route: 'POST /v1/uploads/complete',
    origin: 's3',
    ok: 404,
    keyPath: 'key',
    send: async (a) => {
      const { key, receipt } = await receiptFor(a)
      return call(
        env,
        'POST',
        '/v1/uploads/complete',
        { origin: a.origin ?? 's3', key, receipt },
        a.caller,
      )
    },
  },
  links: {
    route: 'POST /v1/links',
    origin: 's3',
    ok: 200,
    keyPath: 'keys.0',
    send: (a) => issueLink(a),
    expiresAt: bodyExpiry,
  },
  // The link is issued as the attempt says, then followed by nobody in particular: what a holder
  // of the link gets. When issuing is refused, that refusal is the answer.
  'follow link': {
    route: 'GET /l/:token',
    origin: 's3',
    ok: 302,
    keyPath: 'keys.0',
    send: async (a) => {
      const issued = await issueLink(a)
      if (issued.status !== 200) return issued
      return followFirst(issued)
    },
    expiresAt: locationExpiry,
  },
  // The same with `maxUses: 1`: every attack gets the answer it gets on an uncounted link.
  'follow one-time link': {
    route: 'GET /l/:token',
    origin: 's3',
    ok: 302,
    keyPath: 'keys.0',
    send: async (a) => {
      const issued = await issueLink(a, 1)
      if (issued.status !== 200) return issued
      return followFirst(issued)
    },
    expiresAt: locationExpiry,
  },
  // Signs nothing: what the caller's own grants let it upload on the origin.
  'upload rules': {
    route: 'GET /v1/uploads/rules',
    origin: 's3',
    ok: 200,
    keyPath: 'origin',
    send: (a) =>
      call(env, 'GET', `/v1/uploads/rules?origin=${a.origin ?? 's3'}`, undefined, a.caller),
  },
} satisfies Record<string, SigningRoute>

function issueLink(a: Attempt, maxUses?: number): Promise<Response> {
  const named =
    a.contentType === undefined
      ? { keys: keys(a) }
      : { items: keys(a).map((key) => ({ key, contentType: a.contentType })) }
  const body = { origin: a.origin ?? 's3', ...named, expiresIn: a.expiresIn, maxUses }
  return call(env, 'POST', '/v1/links', body, a.caller)
}

/** The path of the first link of an issued answer. */
async function firstLinkPath(issued: Response): Promise<string> {
  const { links } = await issued.json<{ links: { url: string }[] }>()
  return new URL(links[0]!.url).pathname
}

/** Follows the first link of an issued answer, as nobody in particular. */
async function followFirst(issued: Response): Promise<Response> {
  return call(env, 'GET', await firstLinkPath(issued), undefined, null)
}

/** When a redirect's signed URL stops working. */
function locationExpiry(response: Response): Promise<number> {
  const url = new URL(response.headers.get('location')!)
  const date = url.searchParams.get('X-Amz-Date')!
  const signed = Date.parse(
    `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 11)}:${date.slice(11, 13)}:${date.slice(13)}`,
  )
  return Promise.resolve(signed + Number(url.searchParams.get('X-Amz-Expires')) * 1000)
}

function listRoute(origin: string): SigningRoute {
  return {
    route: 'GET /v1/list/:origin',
    origin,
    ok: 200,
    keyPath: 'prefix.0',
    send: (a) => {
      const query = new URLSearchParams({ prefix: a.folder })
      if (a.expiresIn !== undefined) query.set('expiresIn', String(a.expiresIn))
      if (a.count !== undefined) query.set('limit', String(a.count))
      return call(
        env,
        'GET',
        `/v1/list/${a.origin ?? origin}?${query.toString()}`,
        undefined,
        a.caller,
      )
    },
    expiresAt: async (response) => {
      const { expiresAt } = await response.json<{ expiresAt: string | null }>()
      return expiresAt === null ? 0 : Date.parse(expiresAt)
    },
  }
}

type RouteName = keyof typeof ROUTES
/** What a class expects of a route: a refusal (status, field), a check, or why it cannot apply. */
type Expectation =
  | { status: number; path?: string }
  | { check: (route: SigningRoute, name: RouteName) => Promise<void> }
  | { na: string }

interface AttackClass {
  name: string
  attempt: (route: SigningRoute) => Attempt
  expect: Record<RouteName, Expectation>
}

const ALICE = `${ROOT}/alice/`
/** Where alice holds two grants: many entries for a minute, or two for a week (see beforeAll). */
const COMBO = `${ROOT}/combo/`
const NO_TYPE = { na: 'takes no media type' } as const
const HANDLE_TYPE = { na: "the type is the upload's own, sealed in its handle or receipt" } as const
const NOT_SIGNING = { na: 'signs nothing with a lifetime or a batch' } as const
const ONE_ENTRY = { na: 'signs one entry per request' } as const
const NO_KEY = { na: "names no key: it answers the rules of the caller's own grants" } as const

/** The same expectation for every route, with exceptions. */
function every(
  expectation: Expectation | ((route: SigningRoute) => Expectation),
  except: Partial<Record<RouteName, Expectation>> = {},
): Record<RouteName, Expectation> {
  return Object.fromEntries(
    (Object.keys(ROUTES) as RouteName[]).map((name) => [
      name,
      except[name] ?? (typeof expectation === 'function' ? expectation(ROUTES[name]) : expectation),
    ]),
  ) as Record<RouteName, Expectation>
}

const WRITES = [
  'sign PUT',
  'upload put',
  'upload post',
  'upload multipart',
  'multipart parts',
] as const satisfies readonly RouteName[]

const CLASSES: AttackClass[] = [
  {
    name: 'control: the caller in its own folder',
    attempt: () => ({ caller: 'alice', folder: ALICE }),
    expect: every((route) => ({ status: route.ok })),
  },
  {
    name: "another caller's folder (and another caller's upload)",
    attempt: () => ({ caller: 'alice', folder: `${ROOT}/bob/` }),
    expect: every((route) => ({ status: 403, path: route.keyPath }), {
      // Bob's receipt is bound to bob: it does not even open for alice.
      'upload check': { status: 403, path: 'receipt' },
      'upload rules': NO_KEY,
    }),
  },
  {
    name: 'a folder whose name extends the granted one (users/alice vs users/alice2)',
    attempt: () => ({ caller: 'alice', folder: `${ROOT}/alice2/` }),
    expect: every((route) => ({ status: 403, path: route.keyPath }), {
      // Alice's own receipt names her own key: no other key can be checked with it (a 403, as a
      // multipart handle's key).
      'upload check': { status: 403, path: 'key' },
      'upload rules': NO_KEY,
    }),
  },
  {
    name: 'a key that a store or client normalizes out of the folder',
    attempt: () => ({ caller: 'alice', folder: ALICE, name: '../bob/a.png' }),
    expect: every((route) => ({ status: 400, path: route.keyPath }), {
      // A URL parser resolves the dot segments (even as %2E%2E) before the route sees the path:
      // what arrives is bob's key, which alice may not read.
      redirect: { status: 403, path: 'key' },
      list: { na: 'takes a prefix: see the ".." folder class' },
      'list CloudFront': { na: 'takes a prefix: see the ".." folder class' },
      cookies: { na: 'takes a prefix: see the ".." folder class' },
      // The handle is bound to the key it was made for: any other key is someone else's upload.
      // So is the receipt: it vouches for its own key only.
      'upload check': { status: 403, path: 'key' },
      'multipart parts': { status: 403, path: 'uploadId' },
      'multipart complete': { status: 403, path: 'uploadId' },
      'multipart abort': { status: 403, path: 'uploadId' },
      'multipart list': { status: 403, path: 'uploadId' },
      'upload rules': NO_KEY,
    }),
  },
  {
    name: 'a folder with a ".." segment',
    attempt: () => ({ caller: 'alice', folder: `${ALICE}../bob/` }),
    expect: every((route) => ({ status: 400, path: route.keyPath }), {
      redirect: { status: 403, path: 'key' },
      'upload check': { status: 403, path: 'key' },
      'multipart parts': { status: 403, path: 'uploadId' },
      'multipart complete': { status: 403, path: 'uploadId' },
      'multipart abort': { status: 403, path: 'uploadId' },
      'multipart list': { status: 403, path: 'uploadId' },
      'upload rules': NO_KEY,
    }),
  },
  {
    name: 'an expiry beyond the grant',
    attempt: (route) => ({
      caller: 'alice',
      folder: ALICE,
      expiresIn:
        (route === ROUTES['sign CloudFront wildcard'] || route === ROUTES.cookies
          ? WILDCARD_MAX_EXPIRES_S
          : LIMITS.maxExpiresIn) + 1,
    }),
    expect: every(
      { status: 400, path: 'expiresIn' },
      {
        'sign CloudFront canned': { na: 'this grant allows seven days' },
        'list CloudFront': { na: 'this grant allows seven days' },
        'multipart complete': NOT_SIGNING,
        'multipart abort': NOT_SIGNING,
        'multipart list': NOT_SIGNING,
        'upload check': NOT_SIGNING,
        'upload rules': NOT_SIGNING,
      },
    ),
  },
  {
    name: 'no expiry asked: the default stays within the grant',
    attempt: () => ({ caller: 'alice', folder: ALICE }),
    expect: every(
      {
        check: async (route, name) => {
          const response = await route.send({ caller: 'alice', folder: ALICE })
          expect(response.status, name).toBe(route.ok)
          const limit =
            route === ROUTES['sign CloudFront wildcard'] || route === ROUTES.cookies
              ? WILDCARD_MAX_EXPIRES_S
              : LIMITS.maxExpiresIn
          // The list has no readable objects here; the others must end within the limit.
          const expiresAt = await route.expiresAt!(response)
          expect(expiresAt - Date.now(), name).toBeLessThanOrEqual(limit * 1000)
        },
      },
      {
        'sign CloudFront canned': { na: 'this grant allows seven days' },
        'list CloudFront': { na: 'this grant allows seven days' },
        'multipart complete': NOT_SIGNING,
        'multipart abort': NOT_SIGNING,
        'multipart list': NOT_SIGNING,
        'upload check': NOT_SIGNING,
        'upload rules': NOT_SIGNING,
      },
    ),
  },
  {
    name: 'a batch beyond the grant',
    attempt: () => ({ caller: 'alice', folder: ALICE, count: LIMITS.maxBatch + 1 }),
    expect: every(ONE_ENTRY, {
      'sign GET': { status: 400, path: 'keys' },
      'sign PUT': { status: 400, path: 'keys' },
      'sign DELETE': { status: 400, path: 'keys' },
      'sign CloudFront canned': { status: 400, path: 'keys' },
      'sign CloudFront wildcard': { status: 400, path: 'keys' },
      list: { status: 400, path: 'limit' },
      'list CloudFront': { status: 400, path: 'limit' },
      links: { status: 400, path: 'keys' },
      'follow link': { status: 400, path: 'keys' },
      'follow one-time link': { status: 400, path: 'keys' },
      'upload batch': { status: 400, path: 'items' },
      'upload rules': NOT_SIGNING,
    }),
  },
  {
    name: 'more RSA signatures than a request may cost',
    attempt: () => ({ caller: 'alice', folder: ALICE, count: LIMITS.rsa + 1 }),
    expect: every(
      { na: 'no RSA signature per entry' },
      {
        'sign CloudFront canned': { status: 400, path: 'keys' },
        'list CloudFront': { status: 400, path: 'limit' },
      },
    ),
  },
  {
    name: 'media-type smuggling (a comma hides a second type)',
    attempt: () => ({ caller: 'alice', folder: ALICE, contentType: 'image/png;,text/html' }),
    expect: every(NO_TYPE, {
      'sign GET': { status: 400, path: 'items.0.response.contentType' },
      'sign CloudFront canned': { status: 400, path: 'items.0.response.contentType' },
      'sign CloudFront wildcard': { status: 400, path: 'items.0.response.contentType' },
      'sign PUT': { na: 'response overrides are for GET and HEAD (the schema refuses them here)' },
      'sign DELETE': {
        na: 'response overrides are for GET and HEAD (the schema refuses them here)',
      },
      redirect: { status: 400, path: 'contentType' },
      'upload put': { status: 400, path: 'contentType' },
      'upload post': { status: 400, path: 'contentType' },
      'upload multipart': { status: 400, path: 'contentType' },
      'upload batch': { status: 400, path: 'items.0.contentType' },
      'multipart parts': HANDLE_TYPE,
      'multipart list': HANDLE_TYPE,
      'multipart complete': HANDLE_TYPE,
      'multipart abort': HANDLE_TYPE,
      'upload check': HANDLE_TYPE,
      links: { status: 400, path: 'items.0.contentType' },
      'follow link': { status: 400, path: 'items.0.contentType' },
      'follow one-time link': { status: 400, path: 'items.0.contentType' },
    }),
  },
  {
    name: 'grant combination (the batch size of one grant, the lifetime of another)',
    attempt: () => ({ caller: 'alice', folder: COMBO, count: 3, expiresIn: 3600 }),
    expect: every(
      { status: 400, path: 'expiresIn' },
      {
        // Both grants limit the size, which a bare PUT URL does not sign.
        'sign PUT': { status: 403, path: 'keys.0' },
        // One entry: the two-entry, week-long grant alone allows it.
        redirect: { status: 302 },
        'upload put': { status: 200 },
        'upload post': {
          check: async (route, name) => {
            const response = await route.send({ caller: 'alice', folder: COMBO, expiresIn: 3600 })
            expect(response.status, name).toBe(200)
            const { fields } = await response.json<{ fields: { policy: string } }>()
            const policy = JSON.parse(atob(fields.policy)) as { conditions: unknown[] }
            // The size of the grant that allows an hour, not the other one's 50 MiB.
            expect(policy.conditions).toContainEqual(['content-length-range', 0, MIB])
          },
        },
        'multipart parts': {
          na: 'signs parts of an upload started under one grant (see multipart)',
        },
        'multipart list': NOT_SIGNING,
        'multipart complete': NOT_SIGNING,
        'multipart abort': NOT_SIGNING,
        'upload check': NOT_SIGNING,
        'upload rules': NOT_SIGNING,
      },
    ),
  },
  {
    name: 'a link followed again (a replay of what someone else followed)',
    attempt: () => ({ caller: 'alice', folder: ALICE }),
    expect: every(
      { na: 'issues no link to follow' },
      {
        // Anyone holding an uncounted link may follow it until it expires: that is what it is.
        'follow link': {
          check: async (route, name) => {
            const path = await firstLinkPath(await issueLink({ caller: 'alice', folder: ALICE }))
            for (let i = 0; i < 3; i++) {
              expect((await call(env, 'GET', path, undefined, null)).status, name).toBe(route.ok)
            }
          },
        },
        'follow one-time link': {
          check: async (route, name) => {
            const path = await firstLinkPath(await issueLink({ caller: 'alice', folder: ALICE }, 1))
            expect((await call(env, 'GET', path, undefined, null)).status, name).toBe(route.ok)
            for (const method of ['GET', 'HEAD']) {
              const again = await call(env, method, path, undefined, null)
              expect(again.status, `${name} ${method}`).toBe(410)
              expect(again.headers.get('location')).toBeNull()
            }
          },
        },
      },
    ),
  },
  {
    name: 'a token whose sub is an object',
    attempt: () => ({ caller: { token: SUB_OBJECT_TOKEN }, folder: ALICE }),
    expect: every({ status: 401 }),
  },
]

let SUB_OBJECT_TOKEN = ''

beforeAll(async () => {
  const combination = (origin: string, wildcard: boolean) => [
    {
      to: 'apiKey:alice',
      origin,
      prefix: COMBO,
      actions: origin === 'cdn' ? ['read', 'list'] : ['read', 'write', 'delete', 'list'],
      maxBatch: 100,
      maxExpiresIn: 60,
      ...(origin === 'cdn' ? { wildcard } : { maxContentLength: 50 * MIB, overwrite: true }),
    },
    {
      to: 'apiKey:alice',
      origin,
      prefix: COMBO,
      actions: origin === 'cdn' ? ['read', 'list'] : ['read', 'write', 'delete', 'list'],
      maxBatch: 2,
      maxExpiresIn: 604_800,
      ...(origin === 'cdn' ? {} : { maxContentLength: MIB, overwrite: true }),
    },
  ]
  env = await securityEnv({}, [...combination('s3', false), ...combination('cdn', true)])
  // Listings sign what they find: one object in alice's folder, three in the combination's.
  for (const key of [`${ALICE}a0.png`, `${COMBO}a0.png`, `${COMBO}a1.png`, `${COMBO}a2.png`]) {
    const seeded = await store.fetch(objectUrl(key), { method: 'PUT', body: 'png' })
    expect(seeded.status).toBe(200)
  }
  const now = Math.floor(Date.now() / 1000)
  SUB_OBJECT_TOKEN = await sign(
    { alg: 'HS256', secret: new TextEncoder().encode(HS256_SECRET) },
    { sub: { toString: 'alice' } as unknown as string },
    { iat: now, exp: now + 600 },
  )
})

describe('the attack matrix covers every signing route', () => {
  it('every /v1 route the app serves is in the table, and every class names every route', () => {
    const served = new Set(
      app.routes
        .filter((r) => r.method !== 'ALL' && /^\/(?:v1|l)\//.test(r.path))
        .map((r) => `${r.method} ${r.path}`),
    )
    const tabled = new Set(Object.values(ROUTES).map((route) => route.route))
    expect([...served].sort()).toEqual([...tabled].sort())
    for (const attack of CLASSES) {
      expect(Object.keys(attack.expect).sort(), attack.name).toEqual(Object.keys(ROUTES).sort())
    }
  })
})

describe('upload limits that only a signature can enforce', () => {
  // alice's grant on "loose" admits image/png up to LIMITS.maxContentLength bytes.
  const upload = (body: Record<string, unknown>) =>
    call(env, 'POST', '/v1/uploads', { origin: 'loose', key: `${ROOT}/loose/x.png`, ...body })
  const cases: Record<(typeof WRITES)[number], () => Promise<void>> = {
    'sign PUT': async () => {
      // A PUT URL from /v1/sign signs neither type nor size: a limited grant does not cover it.
      const response = await call(env, 'POST', '/v1/sign', {
        origin: 'loose',
        method: 'PUT',
        keys: [`${ROOT}/loose/x.png`],
      })
      expect((await problem(response)).status).toBe(403)
    },
    'upload put': async () => {
      const lengths = [undefined, LIMITS.maxContentLength + 1]
      for (const contentLength of lengths) {
        const response = await upload({ contentType: 'image/png', contentLength })
        expect((await problem(response)).errors?.map((e) => e.path)).toEqual(['contentLength'])
      }
      const html = await upload({ contentType: 'text/html', contentLength: 10 })
      expect((await problem(html)).errors?.map((e) => e.path)).toEqual(['contentType'])
      expect((await upload({ contentType: 'image/png', contentLength: 10 })).status).toBe(200)
    },
    'upload post': async () => {
      const response = await upload({ mode: 'post', overwrite: true, contentType: 'image/png' })
      const { fields } = await response.json<{ fields: { policy: string } }>()
      const policy = JSON.parse(atob(fields.policy)) as { conditions: unknown[] }
      expect(policy.conditions).toContainEqual(['content-length-range', 0, LIMITS.maxContentLength])
      const family = await upload({ mode: 'post', overwrite: true, contentType: 'image/*' })
      expect((await problem(family)).errors?.map((e) => e.path)).toEqual(['contentType'])
    },
    'upload multipart': async () => {
      const response = await upload({
        mode: 'multipart',
        contentType: 'image/png',
        contentLength: LIMITS.maxContentLength + 1,
      })
      expect((await problem(response)).errors?.map((e) => e.path)).toEqual(['contentLength'])
    },
    'multipart parts': async () => {
      // Sizes come from the upload's handle: a follow-up cannot name its own.
      const { key, uploadId } = await handleFor({ caller: 'alice', folder: ALICE })
      const response = await call(env, 'POST', '/v1/uploads/multipart/parts', {
        origin: 's3',
        key,
        uploadId,
        partNumbers: [1],
        partSize: LIMITS.maxContentLength,
      })
      expect((await problem(response)).errors?.map((e) => e.path)).toContain('partSize')
    },
  }
  for (const name of WRITES) it(name, cases[name])
})

for (const attack of CLASSES) {
  describe(attack.name, () => {
    for (const [name, expectation] of Object.entries(attack.expect) as [RouteName, Expectation][]) {
      if ('na' in expectation) {
        it.skip(`${name}: not applicable (${expectation.na})`)
        continue
      }
      it(name, async () => {
        const route: SigningRoute = ROUTES[name]
        if ('check' in expectation) return expectation.check(route, name)
        const response = await route.send(attack.attempt(route))
        const text = await response.clone().text()
        expect(response.status, `${name}: ${text.slice(0, 300)}`).toBe(expectation.status)
        if (expectation.status >= 400) {
          const body = await problem(response)
          if (expectation.path !== undefined) {
            expect(
              body.errors?.map((e) => e.path),
              text,
            ).toContain(expectation.path)
          }
          // A refusal carries nothing signed.
          expect(text).not.toMatch(/X-Amz-Signature|Signature=|"url"/)
        }
      })
    }
  })
}

describe('an unknown origin and an ungranted one answer alike', () => {
  for (const [name, route] of Object.entries(ROUTES) as [RouteName, SigningRoute][]) {
    it(name, async () => {
      // bob holds no grant on the CloudFront origin nor on "loose".
      const ungrantedOrigin = route.origin === 'cdn' ? 'cdn' : 'loose'
      const attempt = (origin: string): Attempt => ({ caller: 'bob', origin, folder: ALICE })
      const ungranted = await route.send(attempt(ungrantedOrigin))
      const unknown = await route.send(attempt('nowhere'))
      expect(ungranted.status).toBe(403)
      expect(unknown.status).toBe(403)
      const same = (text: string, origin: string) => text.replaceAll(origin, '<origin>')
      expect(same(await ungranted.text(), ungrantedOrigin)).toBe(
        same(await unknown.text(), 'nowhere'),
      )
    })
  }
})

// ---- The admin surface (/admin/v1) ----------------------------------------------------------
//
// Every admin route against every way in that is not an admin's (a caller's API key or JWT, none,
// a forged admin token), and against SQL and template injection through each string it takes
// (labels, prefixes, ids, subjects, cursors): refused naming the field, or stored and answered
// verbatim, never interpreted. The control plane is the pool's D1; the admin token is this run's.

const SQL = ["x'; DROP TABLE api_keys; --", '1 OR 1=1', '") OR ("1"="1']
const TEMPLATES = ['{{7*7}}', '${7*7}', '<%= 7*7 %>', '#{7*7}']
const PAYLOADS = [...SQL, ...TEMPLATES]

/** What an admin route does with a payload in one of its strings. */
type Injection =
  /** Refused, naming the field. */
  | { status: 400; path: string }
  /** Taken as data: the answer says exactly what was sent. */
  | { verbatim: (response: Response, payload: string) => Promise<void> }

interface AdminRoute {
  route: string
  /** The status an admin's own request gets. */
  ok: number
  send(headers: Record<string, string>, payload?: string): Promise<Response>
  /** Each string field a payload goes through, and what must come of it. */
  fields: Record<string, Injection>
}

let adminEnv: Env
/** The admin Worker's env beside `adminEnv` (its D1, the admin token, the data plane's bridge). */
let adminWorkerEnv: AdminEnv
/** The admin Worker's app: the admin API is not on the callers' Worker. */
const adminApp = createAdminApp()
let adminToken = ''
let sentinel = { id: '', key: '' }
const adminHeaders = () => ({ authorization: `Bearer ${adminToken}` })
const enc = encodeURIComponent

function adminCall(
  headers: Record<string, string>,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return Promise.resolve(
    adminApp.request(
      path,
      {
        method,
        headers: {
          ...headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
      adminWorkerEnv,
    ),
  )
}

const echoes =
  (field: string) =>
  async (response: Response, payload: string): Promise<void> => {
    expect(response.status, await response.clone().text()).toBeLessThan(300)
    const body = await response.json<Record<string, unknown>>()
    expect(JSON.stringify(body)).toContain(JSON.stringify(payload).slice(1, -1))
    if (field !== '') expect(body[field]).toBe(payload)
  }

/** The field a payload lands in decides: a key id or a grant id in a path, a body's field. */
const ADMIN_ROUTES = {
  'create key': {
    route: 'POST /admin/v1/keys',
    ok: 201,
    send: (h, p) =>
      adminCall(h, 'POST', '/admin/v1/keys', p === undefined ? {} : { label: p, id: p, prefix: p }),
    fields: { id: { status: 400, path: 'id' }, prefix: { status: 400, path: 'prefix' } },
  },
  'create key (label)': {
    route: 'POST /admin/v1/keys',
    ok: 201,
    send: (h, p) => adminCall(h, 'POST', '/admin/v1/keys', p === undefined ? {} : { label: p }),
    fields: { label: { verbatim: echoes('label') } },
  },
  'list keys': {
    route: 'GET /admin/v1/keys',
    ok: 200,
    send: (h, p) =>
      adminCall(h, 'GET', `/admin/v1/keys${p === undefined ? '' : `?cursor=${enc(p)}`}`),
    fields: { cursor: { status: 400, path: 'cursor' } },
  },
  'get key': {
    route: 'GET /admin/v1/keys/:id',
    ok: 200,
    send: (h, p) => adminCall(h, 'GET', `/admin/v1/keys/${enc(p ?? sentinel.id)}`),
    fields: { id: { status: 400, path: 'id' } },
  },
  'update key': {
    route: 'PATCH /admin/v1/keys/:id',
    ok: 200,
    send: (h, p) =>
      adminCall(h, 'PATCH', `/admin/v1/keys/${enc(p ?? sentinel.id)}`, { label: 'sentinel' }),
    fields: { id: { status: 400, path: 'id' } },
  },
  'update key (label)': {
    route: 'PATCH /admin/v1/keys/:id',
    ok: 200,
    send: (h, p) =>
      adminCall(h, 'PATCH', `/admin/v1/keys/${enc(sentinel.id)}`, { label: p ?? 'sentinel' }),
    fields: { label: { verbatim: echoes('label') } },
  },
  'rotate key': {
    route: 'POST /admin/v1/keys/:id/rotate',
    ok: 200,
    // The sentinel keeps its secret through every rotation (a day's overlap).
    send: (h, p) => adminCall(h, 'POST', `/admin/v1/keys/${enc(p ?? sentinel.id)}/rotate`, {}),
    fields: { id: { status: 400, path: 'id' } },
  },
  'create grant': {
    route: 'POST /admin/v1/grants',
    ok: 201,
    send: (h, p) =>
      adminCall(h, 'POST', '/admin/v1/grants', {
        to: p === undefined ? `apiKey:${sentinel.id}` : `apiKey:${p}`,
        origin: 's3',
        actions: ['read'],
      }),
    fields: { to: { status: 400, path: 'to' } },
  },
  'create grant (prefix)': {
    route: 'POST /admin/v1/grants',
    ok: 201,
    send: (h, p) =>
      adminCall(h, 'POST', '/admin/v1/grants', {
        to: `sub:${p ?? 'nobody'}`,
        origin: 's3',
        prefix: `${ROOT}/${p ?? 'x'}/`,
        actions: ['read'],
      }),
    fields: {
      // Placeholders are parsed strictly: a template is a malformed one (400), SQL is data.
      prefix: {
        verbatim: async (response, payload) => {
          if (/[{}]/.test(payload)) {
            expect(response.status).toBe(400)
            expect((await problem(response)).errors?.map((e) => e.path)).toEqual(['prefix'])
            return
          }
          const { grant } = await response.json<{ grant: { to: string; prefix: string } }>()
          expect(grant).toMatchObject({ to: `sub:${payload}`, prefix: `${ROOT}/${payload}/` })
        },
      },
    },
  },
  'list grants': {
    route: 'GET /admin/v1/grants',
    ok: 200,
    send: (h, p) =>
      adminCall(h, 'GET', `/admin/v1/grants${p === undefined ? '' : `?to=${enc(p)}`}`),
    // A filter: it finds no grant of that name, and nothing else.
    fields: {
      to: {
        verbatim: async (response) => {
          expect(response.status).toBe(200)
          expect((await response.json<{ grants: unknown[] }>()).grants).toEqual([])
        },
      },
    },
  },
  'effective grants': {
    route: 'GET /admin/v1/grants/effective',
    ok: 200,
    send: (h, p) =>
      adminCall(h, 'GET', `/admin/v1/grants/effective?caller=${enc(`jwt:${p ?? 'nobody'}`)}`),
    // A caller's name, taken as it is: grants naming it are found, nothing else is run.
    fields: {
      caller: {
        verbatim: async (response, payload) => {
          expect(response.status).toBe(200)
          const answer = await response.json<{
            caller: string
            grants: { grant: { to: string } }[]
          }>()
          expect(answer.caller).toBe(`jwt:${payload}`)
          // Only grants naming that very subject, or anyone.
          for (const { grant } of answer.grants) expect(['*', `sub:${payload}`]).toContain(grant.to)
        },
      },
    },
  },
  'delete grant': {
    route: 'DELETE /admin/v1/grants/:id',
    // No such grant: the admin learns that, and nothing more.
    ok: 404,
    send: (h, p) => adminCall(h, 'DELETE', `/admin/v1/grants/${enc(p ?? 'g_0000000000000000000')}`),
    fields: { id: { status: 400, path: 'id' } },
  },
  'create revocation': {
    route: 'POST /admin/v1/revocations',
    ok: 201,
    send: (h, p) =>
      adminCall(
        h,
        'POST',
        '/admin/v1/revocations',
        p === undefined
          ? { kind: 'links', issuedBefore: '2000-01-01T00:00:00Z' }
          : { kind: 'key', key: p },
      ),
    fields: { key: { status: 400, path: 'key' } },
  },
  'create revocation (principal)': {
    route: 'POST /admin/v1/revocations',
    ok: 201,
    send: (h, p) =>
      adminCall(h, 'POST', '/admin/v1/revocations', {
        kind: 'links',
        issuedBefore: '2000-01-01T00:00:00Z',
        principal: `jwt:${p ?? 'nobody'}`,
      }),
    fields: {
      principal: {
        verbatim: async (response, payload) => {
          expect(response.status).toBe(201)
          expect((await response.json<{ principal: string }>()).principal).toBe(`jwt:${payload}`)
        },
      },
    },
  },
  'delete revocation': {
    route: 'DELETE /admin/v1/revocations/:id',
    // No such revocation: the admin learns that, and nothing more.
    ok: 404,
    send: (h, p) =>
      adminCall(h, 'DELETE', `/admin/v1/revocations/${enc(p ?? 'r_0000000000000000000')}`),
    fields: { id: { status: 400, path: 'id' } },
  },
  'list revocations': {
    route: 'GET /admin/v1/revocations',
    ok: 200,
    send: (h, p) =>
      adminCall(h, 'GET', `/admin/v1/revocations${p === undefined ? '' : `?cursor=${enc(p)}`}`),
    fields: { cursor: { status: 400, path: 'cursor' } },
  },
  'create quota': {
    route: 'POST /admin/v1/quotas',
    ok: 201,
    send: (h, p) =>
      adminCall(h, 'POST', '/admin/v1/quotas', {
        to: p === undefined ? `apiKey:${crypto.randomUUID()}` : `apiKey:${p}`,
        origin: 's3',
        maxObjects: 10,
        windowS: 3600,
      }),
    fields: { to: { status: 400, path: 'to' } },
  },
  'list quotas': {
    route: 'GET /admin/v1/quotas',
    ok: 200,
    send: (h, p) =>
      adminCall(h, 'GET', `/admin/v1/quotas${p === undefined ? '' : `?cursor=${enc(p)}`}`),
    fields: { cursor: { status: 400, path: 'cursor' } },
  },
  'get quota': {
    route: 'GET /admin/v1/quotas/:id',
    ok: 404,
    send: (h, p) => adminCall(h, 'GET', `/admin/v1/quotas/${enc(p ?? 'q_0000000000000000000')}`),
    fields: { id: { status: 400, path: 'id' } },
  },
  'update quota': {
    route: 'PATCH /admin/v1/quotas/:id',
    ok: 404,
    send: (h, p) =>
      adminCall(h, 'PATCH', `/admin/v1/quotas/${enc(p ?? 'q_0000000000000000000')}`, {
        maxObjects: 5,
      }),
    fields: { id: { status: 400, path: 'id' } },
  },
  'delete quota': {
    route: 'DELETE /admin/v1/quotas/:id',
    ok: 404,
    send: (h, p) => adminCall(h, 'DELETE', `/admin/v1/quotas/${enc(p ?? 'q_0000000000000000000')}`),
    fields: { id: { status: 400, path: 'id' } },
  },
  // A key asked about is data: it comes back in the request explained, and nothing else is run.
  explain: {
    route: 'POST /admin/v1/explain',
    ok: 200,
    send: (h, p) =>
      adminCall(h, 'POST', '/admin/v1/explain', {
        caller: { key: sentinel.id },
        action: 'read',
        origin: 's3',
        key: p ?? `${ROOT}/alice/a0.png`,
      }),
    fields: {
      key: {
        verbatim: async (response, payload) => {
          expect(response.status).toBe(200)
          const answer = await response.json<{ request: { body: { keys: string[] } } }>()
          expect(answer.request.body.keys).toEqual([payload])
        },
      },
    },
  },
  // The trail's filters, taken as they are: they find nothing.
  audit: {
    route: 'GET /admin/v1/audit',
    ok: 200,
    send: (h, p) =>
      adminCall(h, 'GET', `/admin/v1/audit${p === undefined ? '' : `?principal=${enc(p)}`}`),
    fields: {
      principal: {
        verbatim: async (response) => {
          expect(response.status).toBe(200)
          expect((await response.json<{ events: unknown[] }>()).events).toEqual([])
        },
      },
    },
  },
  'top usage': {
    route: 'GET /admin/v1/usage/top',
    ok: 200,
    send: (h, p) =>
      adminCall(h, 'GET', `/admin/v1/usage/top${p === undefined ? '' : `?by=${enc(p)}`}`),
    fields: { by: { status: 400, path: 'by' } },
  },
  export: {
    route: 'GET /admin/v1/export',
    ok: 200,
    send: (h, p) =>
      adminCall(h, 'GET', `/admin/v1/export${p === undefined ? '' : `?secrets=${enc(p)}`}`),
    fields: { secrets: { status: 400, path: 'secrets' } },
  },
  // An empty document adds nothing; any other version is refused.
  import: {
    route: 'POST /admin/v1/import',
    ok: 200,
    send: (h, p) => adminCall(h, 'POST', '/admin/v1/import', { version: p ?? 1 }),
    fields: { version: { status: 400, path: 'version' } },
  },
  // Whose usage is a caller's name, taken as it is: a filter that finds nothing.
  usage: {
    route: 'GET /admin/v1/usage',
    ok: 200,
    send: (h, p) => adminCall(h, 'GET', `/admin/v1/usage?principal=${enc(`jwt:${p ?? 'x'}`)}`),
    fields: {
      principal: {
        verbatim: async (response, payload) => {
          expect(response.status).toBe(200)
          const usage = await response.json<{ principal: string; days: unknown[] }>()
          expect(usage).toEqual(expect.objectContaining({ principal: `jwt:${payload}`, days: [] }))
        },
      },
    },
  },
} satisfies Record<string, AdminRoute>

type AdminRouteName = keyof typeof ADMIN_ROUTES

/** Who knocks, and what every admin route must answer. */
const ADMIN_CLASSES: {
  name: string
  headers: () => Record<string, string> | Promise<Record<string, string>>
  status: number
}[] = [
  { name: 'no credentials', headers: () => ({}), status: 401 },
  {
    name: "a caller's API key",
    headers: () => ({ authorization: 'Bearer wb_test_sec_alice_0123456789' }),
    status: 401,
  },
  {
    name: "a caller's JWT (valid, and granted on the signing API)",
    headers: async () => {
      const now = Math.floor(Date.now() / 1000)
      const token = await sign(
        { alg: 'HS256', secret: new TextEncoder().encode(HS256_SECRET) },
        { sub: 'alice', roles: ['admin'] },
        { iat: now, exp: now + 600 },
      )
      return { authorization: `Bearer ${token}` }
    },
    status: 401,
  },
  {
    name: 'a forged admin token (the right shape, not a configured one)',
    headers: () => ({ authorization: `Bearer wba_${crypto.randomUUID().replaceAll('-', '')}` }),
    status: 401,
  },
  {
    name: 'an admin token one character off',
    headers: () => ({
      authorization: `Bearer ${adminToken.slice(0, -1)}${adminToken.endsWith('a') ? 'b' : 'a'}`,
    }),
    status: 401,
  },
  {
    name: 'an admin token as Basic',
    headers: () => ({ authorization: `Basic ${btoa(`admin:${adminToken}`)}` }),
    status: 401,
  },
]

describe('the admin surface', () => {
  beforeAll(async () => {
    const { ADMIN_TOKEN, adminEnvOf, withControl } = await import('../helpers/control-plane')
    adminToken = ADMIN_TOKEN
    adminEnv = await withControl(env)
    adminWorkerEnv = await adminEnvOf(adminEnv)
    const created = await adminCall(adminHeaders(), 'POST', '/admin/v1/keys', {
      label: 'sentinel',
      grants: [{ origin: 's3', prefix: `${ROOT}/alice/`, actions: ['read'] }],
    })
    expect(created.status).toBe(201)
    sentinel = await created.json<{ id: string; key: string }>()
  })

  it('every admin route the admin app serves is in the table', () => {
    const served = new Set(
      adminApp.routes
        .filter((r) => r.method !== 'ALL' && r.path.startsWith('/admin/'))
        // A parameter's pattern is the route's, not the table's.
        .map((r) => `${r.method} ${r.path.replace(/(:\w+)\{[^}]*\}/g, '$1')}`),
    )
    const tabled = new Set(Object.values(ADMIN_ROUTES).map((route) => route.route))
    expect([...served].sort()).toEqual([...tabled].sort())
  })

  for (const attack of ADMIN_CLASSES) {
    describe(attack.name, () => {
      for (const [name, route] of Object.entries(ADMIN_ROUTES) as [AdminRouteName, AdminRoute][]) {
        it(`${name}: ${attack.status}`, async () => {
          const response = await route.send(await attack.headers())
          const text = await response.text()
          expect(response.status, text).toBe(attack.status)
          expect(JSON.parse(text)).toMatchObject({ status: attack.status })
          // Nothing about the control plane leaks to a stranger.
          expect(text).not.toMatch(/sha256|wb_[A-Za-z0-9_-]{20}|"keys"|"grants"/)
        })
      }
    })
  }

  describe('the admin, for control', () => {
    for (const [name, route] of Object.entries(ADMIN_ROUTES) as [AdminRouteName, AdminRoute][]) {
      it(`${name}: ${route.ok}`, async () => {
        const response = await route.send(adminHeaders())
        expect(response.status, await response.clone().text()).toBe(route.ok)
      })
    }
  })

  describe('SQL and template injection through labels, prefixes, ids and subjects', () => {
    for (const [name, route] of Object.entries(ADMIN_ROUTES) as [AdminRouteName, AdminRoute][]) {
      for (const [field, expectation] of Object.entries(route.fields)) {
        it(`${name}, ${field}: ${'status' in expectation ? `400 naming ${expectation.path}` : 'taken verbatim'}`, async () => {
          for (const payload of PAYLOADS) {
            const response = await route.send(adminHeaders(), payload)
            if ('verbatim' in expectation) {
              await expectation.verbatim(response, payload)
              continue
            }
            const body = await problem(response)
            expect(body.status, `${payload}: ${body.detail}`).toBe(400)
            expect(body.errors?.map((e) => e.path)).toContain(expectation.path)
          }
        })
      }
    }

    it('leaves every table whole: the sentinel key still signs, the admin still lists', async () => {
      const signed = await app.request(
        '/v1/sign',
        {
          method: 'POST',
          headers: { authorization: `Bearer ${sentinel.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ origin: 's3', keys: [`${ROOT}/alice/a0.png`] }),
        },
        adminEnv,
      )
      expect(signed.status, await signed.clone().text()).toBe(200)
      for (const path of [
        '/admin/v1/keys',
        '/admin/v1/grants',
        '/admin/v1/revocations',
        '/admin/v1/quotas',
      ]) {
        expect((await adminCall(adminHeaders(), 'GET', path)).status).toBe(200)
      }
    })
  })

  it('an admin token signs nothing on any signing route', async () => {
    for (const [name, route] of Object.entries(ROUTES) as [RouteName, SigningRoute][]) {
      const response = await route.send({ caller: { token: adminToken }, folder: ALICE })
      expect(response.status, name).toBe(401)
    }
  })
})
