// The bad-input matrix: one row per (route, bad input). Each row says what to send and which 4xx
// problem must come back. A new route is a few rows: spread `jsonPostRoute(…)` or `getRoute(…)` for
// the checks every route of that shape gets, then add the route's own field rows.
//
// The env these rows run against (bad-input.test.ts) has S3 origins `photos` and `docs` (safe key
// policy), a CloudFront origin `cdn`, API keys `all` (every origin) and `photos-only`, an HS256 JWT
// with the `wb_token` cookie, and Cloudflare Access. Rows marked `worker` also run through the real
// Worker entry, whose env only has the `e2e` origins: they must not depend on the origin names above.
// The admin API's rows (/admin/v1) call as the admin (`caller: 'admin'`, an admin token made for
// the run) against the pool's local D1.

import {
  MAX_BODY_BYTES,
  MAX_KEY_BYTES,
  MAX_LINK_USES,
  MAX_SIGN_JSON_VALUES,
  MAX_REPORTED_ERRORS,
  MAX_IMPORT_BODY_BYTES,
  MAX_SMALL_BODY_BYTES,
  MAX_TOKEN_BYTES,
} from '../../src/limits'

const KIB = 1024
export const MIB = 1024 * KIB

/**
 * Who calls: the harness's all-origins key, the photos-only key, the admin (an admin token),
 * nobody, or these raw headers.
 */
export type Caller =
  'valid' | 'photos-only' | 'admin' | 'none' | { headers: Record<string, string> }

type RowBody =
  | { json: unknown }
  /** Raw text, or a factory for large bodies (built only when the row runs). */
  | { text: string | (() => string) }
  | { bytes: Uint8Array<ArrayBuffer> }
  /** A chunked body with no Content-Length; a factory because a stream is read once. */
  | { stream: () => ReadableStream<Uint8Array> }

export interface BadInputCase {
  name: string
  method: string
  path: string
  /** Default 'valid'. */
  caller?: Caller
  /** Extra headers; `null` removes one (Content-Type defaults to JSON when there is a body). */
  headers?: Record<string, string | null>
  body?: RowBody
  status: number
  /** Must be one of the `errors[].path` of the problem. Required for 400, 403 on a field, 413, 415. */
  errorPath?: string
  /** A substring of the problem's `detail`. */
  detail?: string
  /** The `Allow` header a 405 must carry. */
  allow?: string
  /** Also run through the Worker's exported fetch with the pool's bindings. */
  worker?: boolean
  /**
   * What waybill gets wrong here today. The row's exact expectation then runs as `it.fails` (and
   * fails the suite once fixed, so the mark is removed); it must still be a 4xx problem.
   */
  knownBug?: string
}

const ALLOW_POST = 'POST'
const ALLOW_GET = 'GET, HEAD'

/** A body of `size` bytes that never ends early: spaces, then whatever the caller wants. */
function padded(json: unknown, size: number): () => string {
  return () => {
    const text = JSON.stringify(json)
    return text + ' '.repeat(size - text.length)
  }
}

/** Spaces in 1 MiB chunks, `totalBytes` in all, with no Content-Length. */
function spaceStream(totalBytes: number): () => ReadableStream<Uint8Array> {
  return () => {
    let left = totalBytes
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (left <= 0) return controller.close()
        const size = Math.min(MIB, left)
        left -= size
        controller.enqueue(new Uint8Array(size).fill(0x20))
      },
    })
  }
}

const methodRows = (path: string, allow: string, methods: readonly string[]): BadInputCase[] =>
  methods.map((method) => ({
    name: `${method} ${path} is not allowed`,
    method,
    path,
    caller: 'none',
    status: 405,
    allow,
    detail: `answers ${allow} only`,
    worker: method === methods[0],
  }))

/** Wrong credentials, on any authenticated route. 401 comes before any look at the body. */
function authRows(method: string, path: string, body?: RowBody): BadInputCase[] {
  const row = (name: string, caller: Caller, detail: string, worker = false): BadInputCase => ({
    name: `${method} ${path}: ${name}`,
    method,
    path,
    caller,
    body,
    status: 401,
    detail,
    worker,
  })
  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })
  return [
    row('no credentials', 'none', 'Authenticate with', true),
    row('Basic instead of Bearer', { headers: { authorization: 'Basic YTpi' } }, 'Bearer', true),
    row('"Bearer" without a token', { headers: { authorization: 'Bearer' } }, 'Bearer'),
    row('"Bearer" with two tokens', { headers: { authorization: 'Bearer a b' } }, 'Bearer'),
    row('an unknown API key', bearer('wb_not_a_configured_key_0000'), 'API key is not valid', true),
    row('a malformed JWT', bearer('eyJhbGciOiJIUzI1NiJ9.e30.AAAA'), 'Authentication failed'),
    row(
      'a 64 KiB bearer token',
      bearer('a'.repeat(64 * KIB)),
      `longer than ${MAX_TOKEN_BYTES} bytes`,
      true,
    ),
    row(
      'a 64 KiB Authorization header that is not Bearer',
      { headers: { authorization: `Basic ${'A'.repeat(64 * KIB)}` } },
      'Bearer',
      true,
    ),
    row(
      'a malformed Cloudflare Access token',
      { headers: { 'cf-access-jwt-assertion': 'not-a-token' } },
      'Authentication failed',
    ),
    row(
      'a 64 KiB Cloudflare Access token',
      { headers: { 'cf-access-jwt-assertion': 'a'.repeat(64 * KIB) } },
      `longer than ${MAX_TOKEN_BYTES} bytes`,
    ),
    row(
      'a 64 KiB cookie header and nothing else',
      { headers: { cookie: `junk=${'x'.repeat(64 * KIB)}` } },
      'Authenticate with',
    ),
    row(
      'many headers (1000) and no credentials',
      { headers: manyHeaders(1000) },
      'Authenticate with',
      true,
    ),
  ]
}

function manyHeaders(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`x-pad-${i}`, `value-${i}`]))
}

/**
 * The rows every authenticated JSON `POST` route gets: body framing (type, size, syntax), unknown
 * fields, wrong credentials, huge headers and wrong methods.
 *
 * @param valid a body the route accepts for the `valid` caller (or one failing only later).
 * @param wrongMethods methods to try on the path; the first also runs through the Worker.
 */
function jsonPostRoute(
  path: string,
  valid: Record<string, unknown>,
  limitBytes = MAX_SMALL_BODY_BYTES,
  wrongMethods: readonly string[] = ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'],
  who: Who = CALLER,
): BadInputCase[] {
  const row = (name: string, rest: Omit<BadInputCase, 'name' | 'method' | 'path'>) => ({
    name: `POST ${path}: ${name}`,
    method: 'POST',
    path,
    ...who.as,
    ...rest,
    // The Worker's env has no admin token: rows that call as the admin run in the app only.
    ...(who.as.caller === undefined ? {} : { worker: false }),
  })
  const text = JSON.stringify(valid)
  return [
    row('malformed JSON', {
      body: { text: text.slice(0, -3) },
      status: 400,
      errorPath: 'body',
      worker: true,
    }),
    row('JSON with a trailing comma', {
      body: { text: `${text.slice(0, -1)},}` },
      status: 400,
      errorPath: 'body',
    }),
    row('an empty body', { body: { text: '' }, status: 400, errorPath: 'body' }),
    row('a whitespace body', { body: { text: ' \n\t ' }, status: 400, errorPath: 'body' }),
    row('no body at all', {
      headers: { 'content-type': 'application/json' },
      status: 400,
      errorPath: 'body',
    }),
    row('a JSON array', { body: { json: [valid] }, status: 400, errorPath: 'body' }),
    row('a JSON string', { body: { json: 'photos' }, status: 400, errorPath: 'body' }),
    row('JSON null', { body: { text: 'null' }, status: 400, errorPath: 'body' }),
    row('a JSON number', { body: { text: '42' }, status: 400, errorPath: 'body' }),
    row('invalid UTF-8', {
      body: { bytes: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) },
      status: 400,
      errorPath: 'body',
    }),
    row('UTF-16 sent as JSON', {
      headers: { 'content-type': 'application/json; charset=utf-16' },
      body: { bytes: utf16le(text) },
      status: 400,
      errorPath: 'body',
    }),
    row('an array nested 100,000 deep', {
      body: { text: () => '['.repeat(100_000) + ']'.repeat(100_000) },
      status: 400,
      errorPath: 'body',
    }),
    row('no Content-Type', {
      headers: { 'content-type': null },
      body: { json: valid },
      status: 415,
      errorPath: 'Content-Type',
      worker: true,
    }),
    row('Content-Type text/plain', {
      headers: { 'content-type': 'text/plain' },
      body: { json: valid },
      status: 415,
      errorPath: 'Content-Type',
    }),
    row('Content-Type form-urlencoded', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: { text: 'origin=photos&keys=a' },
      status: 415,
      errorPath: 'Content-Type',
    }),
    row('Content-Type application/jsonx', {
      headers: { 'content-type': 'application/jsonx' },
      body: { json: valid },
      status: 415,
      errorPath: 'Content-Type',
    }),
    row('Content-Type multipart/form-data', {
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: { text: '--x\r\n\r\n{}\r\n--x--' },
      status: 415,
      errorPath: 'Content-Type',
    }),
    row('a declared Content-Length over the limit (small real body)', {
      headers: { 'content-length': String(limitBytes + 1) },
      body: { json: valid },
      status: 413,
      errorPath: 'body',
      worker: true,
    }),
    row('a body one byte over the limit', {
      body: { text: padded(valid, limitBytes + 1) },
      status: 413,
      errorPath: 'body',
    }),
    row('a chunked body over the limit (no Content-Length)', {
      body: { stream: spaceStream(limitBytes + MIB) },
      status: 413,
      errorPath: 'body',
      worker: true,
    }),
    // Exactly at the limit is read and parsed: the unknown field, not the size, is the problem.
    row('a body of exactly the limit, with an unknown field', {
      body: { text: padded({ ...valid, padding: true }, limitBytes) },
      status: 400,
      errorPath: 'padding',
    }),
    row('an unknown top-level field', {
      body: { json: { ...valid, bucket: 'x' } },
      status: 400,
      errorPath: 'bucket',
      detail: 'not a known field',
      worker: true,
    }),
    row('a misspelt field', {
      body: { json: { ...valid, expiresIN: 60 } },
      status: 400,
      errorPath: 'expiresIN',
    }),
    row('"__proto__" as a field', {
      body: { text: `{"__proto__":{"admin":true},${text.slice(1)}` },
      status: 400,
      errorPath: '__proto__',
    }),
    row('"constructor" as a field', {
      body: { json: { ...valid, constructor: 1 } },
      status: 400,
      errorPath: 'constructor',
    }),
    row('a lone surrogate as a field name', {
      body: { text: `{"\\ud800":1,${text.slice(1)}` },
      status: 400,
      errorPath: '\ud800',
    }),
    row('10,000 unknown fields', {
      body: {
        json: {
          ...valid,
          ...Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, i])),
        },
      },
      status: 400,
      errorPath: 'f0',
      // Checking stops at the cap: a hostile body costs O(cap), not O(fields).
      detail: `and at least ${MAX_REPORTED_ERRORS - 1} more`,
    }),
    row('more values than any request needs (refused before parsing)', {
      // Over every route's limit (POST /v1/sign's is the largest), well under its byte limit.
      body: { json: { ...valid, padding: new Array<number>(MAX_SIGN_JSON_VALUES + 1).fill(0) } },
      status: 400,
      errorPath: 'body',
      detail: 'values, more than any request of this kind needs',
    }),
    row('a 64 KiB Content-Type parameter with malformed JSON', {
      headers: { 'content-type': `application/json; x=${'y'.repeat(64 * KIB)}` },
      body: { text: '{' },
      status: 400,
      errorPath: 'body',
    }),
    row('1000 extra headers with malformed JSON', {
      headers: manyHeaders(1000),
      body: { text: '{' },
      status: 400,
      errorPath: 'body',
    }),
    row('a 64 KiB cf-ray header with malformed JSON', {
      headers: { 'cf-ray': 'r'.repeat(64 * KIB) },
      body: { text: '{' },
      status: 400,
      errorPath: 'body',
    }),
    ...who.auth('POST', path, { json: valid }),
    ...methodRows(path, who.allow ?? ALLOW_POST, wrongMethods),
  ]
}

/** The rows every authenticated `GET` route gets: wrong credentials and wrong methods. */
function getRoute(
  path: string,
  who: Who = CALLER,
  wrongMethods: readonly string[] = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
): BadInputCase[] {
  return [...who.auth('GET', path), ...methodRows(path, who.allow ?? ALLOW_GET, wrongMethods)]
}

/**
 * Who a route's shared rows call as, and which credentials it refuses: a caller (the signing API),
 * or the admin (the admin API). `allow`: the route's `Allow`, when its path answers more methods.
 */
interface Who {
  as: Pick<BadInputCase, 'caller'>
  auth: (method: string, path: string, body?: RowBody) => BadInputCase[]
  allow?: string
}
const CALLER: Who = { as: {}, auth: authRows }

function utf16le(text: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(text.length * 2)
  for (let i = 0; i < text.length; i++) {
    bytes[2 * i] = text.charCodeAt(i) & 0xff
    bytes[2 * i + 1] = text.charCodeAt(i) >> 8
  }
  return bytes
}

// ---- POST /v1/sign ----------------------------------------------------------------------------

const SIGN_VALID = { origin: 'photos', keys: ['a.jpg'] }
/** 1025 bytes of UTF-8 in 513 characters. */
const KEY_1025_BYTES = 'é'.repeat(512) + 'x'
const KEY_1024_BYTES = 'é'.repeat(512)

const sign = (
  name: string,
  body: unknown,
  status: number,
  errorPath: string,
  extra: Partial<BadInputCase> = {},
): BadInputCase => ({
  name: `POST /v1/sign: ${name}`,
  method: 'POST',
  path: '/v1/sign',
  body: typeof body === 'string' ? { text: body } : { json: body },
  status,
  errorPath,
  ...extra,
})

const override = (value: unknown, extra: Record<string, unknown> = {}) => ({
  origin: 'photos',
  items: [{ key: 'a.pdf', response: { contentDisposition: value } }],
  ...extra,
})
const DISPOSITION = 'items.0.response.contentDisposition'

const SIGN_ROWS: BadInputCase[] = [
  sign(
    'download and inline',
    { origin: 'photos', items: [{ key: 'a', download: true, inline: 'b' }] },
    400,
    'items.0.inline',
  ),
  sign(
    'download with response.contentDisposition',
    {
      origin: 'photos',
      items: [{ key: 'a', download: true, response: { contentDisposition: 'inline' } }],
    },
    400,
    'items.0.download',
  ),
  sign(
    'download with PUT',
    { origin: 'photos', method: 'PUT', items: [{ key: 'a', download: true }] },
    400,
    'items.0.download',
  ),
  sign(
    'download of a folder key',
    { origin: 'photos', items: [{ key: 'a/', download: true }] },
    400,
    'items.0.download',
  ),
  sign(
    'download as an empty name',
    { origin: 'photos', items: [{ key: 'a', download: '' }] },
    400,
    'items.0.download',
  ),
  sign(
    'download with a lone surrogate',
    { origin: 'photos', items: [{ key: 'a', download: 'a\ud800' }] },
    400,
    'items.0.download',
  ),
  sign(
    'inline as false',
    { origin: 'photos', items: [{ key: 'a', inline: false }] },
    400,
    'items.0.inline',
  ),
  ...jsonPostRoute('/v1/sign', SIGN_VALID, MAX_BODY_BYTES),
  sign('missing origin', { keys: ['a'] }, 400, 'origin'),
  sign('origin a number', { origin: 7, keys: ['a'] }, 400, 'origin'),
  sign('origin null', { origin: null, keys: ['a'] }, 400, 'origin'),
  sign('origin an object', { origin: { name: 'photos' }, keys: ['a'] }, 400, 'origin'),
  sign('origin with a path', { origin: '../photos', keys: ['a'] }, 400, 'origin'),
  sign('origin in upper case', { origin: 'Photos', keys: ['a'] }, 400, 'origin'),
  sign('origin of 64 characters', { origin: 'o'.repeat(64), keys: ['a'] }, 400, 'origin'),
  sign('origin a lone surrogate', '{"origin":"\\udc00","keys":["a"]}', 400, 'origin'),
  sign('an unknown origin', { origin: 'nowhere', keys: ['a'] }, 403, 'origin', { worker: true }),
  sign('an origin the caller has no grant on', { origin: 'docs', keys: ['a'] }, 403, 'origin', {
    caller: 'photos-only',
  }),
  sign(
    'an action the grant lacks',
    { origin: 'photos', method: 'PUT', keys: ['a'] },
    403,
    'origin',
    {
      caller: 'photos-only',
      detail: 'write on origin "photos"',
    },
  ),
  sign('neither keys nor items', { origin: 'photos' }, 400, 'keys'),
  sign(
    'both keys and items',
    { origin: 'photos', keys: ['a'], items: [{ key: 'a' }] },
    400,
    'items',
  ),
  sign('keys a string', { origin: 'photos', keys: 'a' }, 400, 'keys'),
  sign('keys an object', { origin: 'photos', keys: { 0: 'a' } }, 400, 'keys'),
  sign('keys null', { origin: 'photos', keys: null }, 400, 'keys'),
  sign('items a string', { origin: 'photos', items: 'a' }, 400, 'items'),
  sign('an empty keys batch', { origin: 'photos', keys: [] }, 400, 'keys', { worker: true }),
  sign('an empty items batch', { origin: 'photos', items: [] }, 400, 'items'),
  sign(
    'a batch over WAYBILL_MAX_BATCH (51 > 50)',
    { origin: 'photos', keys: Array(51).fill('a') },
    400,
    'keys',
  ),
  sign(
    'a batch of 100,001 keys',
    { origin: 'photos', keys: Array(100_001).fill('a') },
    400,
    'keys',
    { detail: 'got 100001' },
  ),
  sign('a key that is a number', { origin: 'photos', keys: ['a', 5] }, 400, 'keys.1'),
  sign('a key that is null', { origin: 'photos', keys: [null] }, 400, 'keys.0'),
  sign('a key that is an array', { origin: 'photos', keys: [['a']] }, 400, 'keys.0'),
  sign('an empty key', { origin: 'photos', keys: ['a', ''] }, 400, 'keys.1', { worker: true }),
  sign(
    `a key of ${MAX_KEY_BYTES + 1} bytes`,
    { origin: 'photos', keys: [KEY_1025_BYTES] },
    400,
    'keys.0',
  ),
  sign(
    `a key of ${MAX_KEY_BYTES} bytes next to one of ${MAX_KEY_BYTES + 1}`,
    { origin: 'photos', keys: [KEY_1024_BYTES, KEY_1025_BYTES] },
    400,
    'keys.1',
  ),
  sign('a key of 1 MiB', { origin: 'photos', keys: ['k'.repeat(MIB)] }, 400, 'keys.0'),
  sign('a lone high surrogate in a key', '{"origin":"photos","keys":["a\\ud800"]}', 400, 'keys.0', {
    worker: true,
  }),
  sign('a lone low surrogate in a key', '{"origin":"photos","keys":["\\udfffb"]}', 400, 'keys.0'),
  sign(
    'reversed surrogates in a key',
    '{"origin":"photos","keys":["\\udc00\\ud800"]}',
    400,
    'keys.0',
  ),
  sign(
    'a lone surrogate in an item key',
    '{"origin":"photos","items":[{"key":"\\ud800"}]}',
    400,
    'items.0.key',
  ),
  sign('a NUL in a key (safe origin)', { origin: 'photos', keys: ['a\u0000b'] }, 400, 'keys.0'),
  sign(
    'a dot segment in a key (safe origin)',
    { origin: 'photos', keys: ['a/../b'] },
    400,
    'keys.0',
  ),
  sign('"//" in a key (safe origin)', { origin: 'photos', keys: ['a//b'] }, 400, 'keys.0'),
  sign('a leading "/" in a key (safe origin)', { origin: 'photos', keys: ['/a'] }, 400, 'keys.0'),
  sign('a backslash in a key (safe origin)', { origin: 'photos', keys: ['a\\b'] }, 400, 'keys.0'),
  sign(
    'every key of a full batch bad',
    { origin: 'photos', keys: Array(50).fill('') },
    400,
    'keys.49',
    {
      detail: 'and 49 more',
    },
  ),
  sign('an item that is a string', { origin: 'photos', items: ['a'] }, 400, 'items.0'),
  sign('an item that is null', { origin: 'photos', items: [null] }, 400, 'items.0'),
  sign('an item without key', { origin: 'photos', items: [{}] }, 400, 'items.0.key'),
  sign(
    'an unknown item field',
    { origin: 'photos', items: [{ key: 'a', ttl: 1 }] },
    400,
    'items.0.ttl',
  ),
  sign('method POST', { origin: 'photos', method: 'POST', keys: ['a'] }, 400, 'method'),
  sign('method in lower case', { origin: 'photos', method: 'get', keys: ['a'] }, 400, 'method'),
  sign('method a number', { origin: 'photos', method: 1, keys: ['a'] }, 400, 'method'),
  sign('method null', { origin: 'photos', method: null, keys: ['a'] }, 400, 'method'),
  sign('expiresIn 0', { ...SIGN_VALID, expiresIn: 0 }, 400, 'expiresIn'),
  sign('expiresIn -0', '{"origin":"photos","keys":["a"],"expiresIn":-0}', 400, 'expiresIn'),
  sign('expiresIn negative', { ...SIGN_VALID, expiresIn: -5 }, 400, 'expiresIn'),
  sign('expiresIn fractional', { ...SIGN_VALID, expiresIn: 1.5 }, 400, 'expiresIn'),
  sign(
    'expiresIn just above a whole number',
    { ...SIGN_VALID, expiresIn: 60.000001 },
    400,
    'expiresIn',
  ),
  sign('expiresIn 604801 (over 7 days)', { ...SIGN_VALID, expiresIn: 604_801 }, 400, 'expiresIn'),
  sign(
    'expiresIn 1e309 (Infinity)',
    '{"origin":"photos","keys":["a"],"expiresIn":1e309}',
    400,
    'expiresIn',
  ),
  sign('expiresIn 2^53', { ...SIGN_VALID, expiresIn: 2 ** 53 }, 400, 'expiresIn'),
  sign('expiresIn a string', { ...SIGN_VALID, expiresIn: '60' }, 400, 'expiresIn', {
    worker: true,
  }),
  sign('expiresIn true', { ...SIGN_VALID, expiresIn: true }, 400, 'expiresIn'),
  sign('expiresIn null', { ...SIGN_VALID, expiresIn: null }, 400, 'expiresIn'),
  sign('expiresIn an array', { ...SIGN_VALID, expiresIn: [60] }, 400, 'expiresIn'),
  sign(
    'expiresIn above the grant',
    { origin: 'cdn', keys: ['public/a'], expiresIn: 7200 },
    400,
    'expiresIn',
  ),
  sign('CR/LF in contentDisposition', override('a\r\nSet-Cookie: x=1'), 400, DISPOSITION, {
    worker: true,
  }),
  sign('a bare LF in contentDisposition', override('a\nb'), 400, DISPOSITION),
  sign('a bare CR in contentDisposition', override('a\rb'), 400, DISPOSITION),
  sign(
    'quotes and CR/LF in contentDisposition',
    override('attachment; filename="a\r\n".pdf'),
    400,
    DISPOSITION,
  ),
  sign(
    'non-ASCII in contentDisposition',
    override('attachment; filename="é.pdf"'),
    400,
    DISPOSITION,
  ),
  sign(
    'an emoji in contentDisposition',
    override('attachment; filename="😀.pdf"'),
    400,
    DISPOSITION,
  ),
  sign(
    'a lone surrogate in contentDisposition',
    '{"origin":"photos","items":[{"key":"a","response":{"contentDisposition":"\\ud800"}}]}',
    400,
    DISPOSITION,
  ),
  sign('a NUL in contentDisposition', override('a\u0000b'), 400, DISPOSITION),
  sign('a tab in contentDisposition', override('a\tb'), 400, DISPOSITION),
  sign('DEL in contentDisposition', override('a\u007fb'), 400, DISPOSITION),
  sign('an empty contentDisposition', override(''), 400, DISPOSITION),
  sign('a contentDisposition of 1025 characters', override('a'.repeat(1025)), 400, DISPOSITION),
  sign('contentDisposition a number', override(1), 400, DISPOSITION),
  sign('contentDisposition null', override(null), 400, DISPOSITION),
  sign(
    'CR/LF in contentType',
    { origin: 'photos', items: [{ key: 'a', response: { contentType: 'text/html\r\nX: y' } }] },
    400,
    'items.0.response.contentType',
  ),
  sign(
    'an unknown response override',
    { origin: 'photos', items: [{ key: 'a', response: { contentMd5: 'x' } }] },
    400,
    'items.0.response.contentMd5',
  ),
  sign(
    'response a string',
    { origin: 'photos', items: [{ key: 'a', response: 'inline' }] },
    400,
    'items.0.response',
  ),
  sign(
    'response overrides on PUT',
    { origin: 'photos', method: 'PUT', items: [{ key: 'a', response: { contentType: 'x' } }] },
    400,
    'items.0.response',
  ),
  sign(
    'versionId on PUT',
    { origin: 'photos', method: 'PUT', items: [{ key: 'a', versionId: 'v' }] },
    400,
    'items.0.versionId',
  ),
  sign(
    'an empty versionId',
    { origin: 'photos', items: [{ key: 'a', versionId: '' }] },
    400,
    'items.0.versionId',
  ),
  sign(
    'a versionId with a space',
    { origin: 'photos', items: [{ key: 'a', versionId: 'v 1' }] },
    400,
    'items.0.versionId',
  ),
  sign(
    'a non-ASCII versionId',
    { origin: 'photos', items: [{ key: 'a', versionId: 'vé' }] },
    400,
    'items.0.versionId',
  ),
  sign(
    'a versionId of 1025 characters',
    { origin: 'photos', items: [{ key: 'a', versionId: 'v'.repeat(1025) }] },
    400,
    'items.0.versionId',
  ),
  sign(
    'versionId a number',
    { origin: 'photos', items: [{ key: 'a', versionId: 1 }] },
    400,
    'items.0.versionId',
  ),
  sign(
    'policy "everything"',
    { origin: 'cdn', keys: ['public/a'], policy: 'everything' },
    400,
    'policy',
  ),
  // An S3 origin issues no CloudFront policy: refused like an artifact no grant covers (403).
  sign(
    'a policy on an S3 origin',
    { origin: 'photos', keys: ['a'], policy: 'canned' },
    403,
    'policy',
  ),
  // What a CloudFront origin cannot serve: refused like an artifact no grant covers (403).
  sign(
    'PUT on a CloudFront origin',
    { origin: 'cdn', method: 'PUT', keys: ['public/a'] },
    403,
    'method',
  ),
  sign(
    'a versionId on a CloudFront origin',
    { origin: 'cdn', items: [{ key: 'public/a', versionId: 'v1' }] },
    403,
    'items.0',
  ),
  sign('a key outside every grant', { origin: 'cdn', keys: ['private/a'] }, 403, 'keys.0'),
  sign(
    'a wildcard without a wildcard grant',
    { origin: 'cdn', keys: ['public/a', 'public/b'], policy: 'wildcard' },
    403,
    'policy',
  ),
]

// ---- POST /v1/cookies -------------------------------------------------------------------------

const COOKIES_VALID = { origin: 'cdn', prefix: 'users/alice/' }

const cookies = (
  name: string,
  body: unknown,
  status: number,
  errorPath: string | undefined,
  extra: Partial<BadInputCase> = {},
): BadInputCase => ({
  name: `POST /v1/cookies: ${name}`,
  method: 'POST',
  path: '/v1/cookies',
  body: typeof body === 'string' ? { text: body } : { json: body },
  status,
  ...(errorPath === undefined ? {} : { errorPath }),
  ...extra,
})

const COOKIE_ROWS: BadInputCase[] = [
  ...jsonPostRoute('/v1/cookies', COOKIES_VALID),
  cookies('an empty object', {}, 400, 'origin'),
  cookies('origin a number', { origin: 1 }, 400, 'origin'),
  cookies('origin in upper case', { origin: 'CDN' }, 400, 'origin'),
  cookies('an unknown origin', { origin: 'nowhere' }, 403, 'origin', { worker: true }),
  // An S3 origin issues no cookies: refused like an artifact no grant covers (403).
  cookies('an S3 origin', { origin: 'photos', prefix: 'a/' }, 403, 'origin'),
  // Which field the 403 names differs from the unknown-origin row: see the probing tests.
  cookies('an origin the caller has no grant on', COOKIES_VALID, 403, undefined, {
    caller: 'photos-only',
  }),
  cookies(
    'a prefix outside the wildcard grant',
    { origin: 'cdn', prefix: 'public/' },
    403,
    'prefix',
  ),
  cookies('an empty prefix (the whole origin)', { origin: 'cdn' }, 403, 'prefix'),
  cookies('prefix a number', { origin: 'cdn', prefix: 5 }, 400, 'prefix'),
  cookies('prefix null', { origin: 'cdn', prefix: null }, 400, 'prefix'),
  cookies('a prefix of 1025 bytes', { origin: 'cdn', prefix: KEY_1025_BYTES }, 400, 'prefix'),
  cookies(
    'a lone surrogate in the prefix',
    '{"origin":"cdn","prefix":"users/alice/\\ud800"}',
    400,
    'prefix',
    { worker: true },
  ),
  cookies(
    'a dot segment in the prefix',
    { origin: 'cdn', prefix: 'users/alice/../bob/' },
    400,
    'prefix',
  ),
  cookies('a NUL in the prefix', { origin: 'cdn', prefix: 'users/alice/\u0000' }, 400, 'prefix'),
  cookies('expiresIn 0', { ...COOKIES_VALID, expiresIn: 0 }, 400, 'expiresIn'),
  cookies('expiresIn negative', { ...COOKIES_VALID, expiresIn: -1 }, 400, 'expiresIn'),
  cookies('expiresIn fractional', { ...COOKIES_VALID, expiresIn: 0.5 }, 400, 'expiresIn'),
  cookies('expiresIn 604801', { ...COOKIES_VALID, expiresIn: 604_801 }, 400, 'expiresIn'),
  cookies('expiresIn a string', { ...COOKIES_VALID, expiresIn: '3600' }, 400, 'expiresIn'),
  cookies('expiresIn null', { ...COOKIES_VALID, expiresIn: null }, 400, 'expiresIn'),
  cookies('expiresIn above the grant', { ...COOKIES_VALID, expiresIn: 7200 }, 400, 'expiresIn'),
]

// ---- GET|HEAD /v1/redirect/{origin}/{key…} ------------------------------------------------------

const redirect = (
  name: string,
  path: string,
  status: number,
  expected: Partial<BadInputCase> = {},
): BadInputCase => ({
  name: `GET ${path.length > 80 ? `${path.slice(0, 77)}…` : path}: ${name}`,
  method: 'GET',
  path,
  status,
  ...expected,
})

const REDIRECT_ROWS: BadInputCase[] = [
  redirect('download twice', '/v1/redirect/photos/a.pdf?download=a&download=b', 400, {
    errorPath: 'download',
  }),
  redirect('download of a folder key', '/v1/redirect/photos/a/?download', 400, {
    errorPath: 'download',
  }),
  redirect('a download name with a CR', '/v1/redirect/photos/a.pdf?download=a%0Db', 400, {
    errorPath: 'download',
  }),
  redirect('contentType text/html', '/v1/redirect/photos/a.pdf?contentType=text/html', 400, {
    errorPath: 'contentType',
  }),
  redirect('contentType not a type', '/v1/redirect/photos/a.pdf?contentType=pdf', 400, {
    errorPath: 'contentType',
  }),
  ...getRoute('/v1/redirect/photos/a.jpg'),
  redirect('an unknown origin', '/v1/redirect/nowhere/a.jpg', 403, {
    errorPath: 'origin',
    worker: true,
  }),
  redirect('an unknown origin (HEAD)', '/v1/redirect/nowhere/a.jpg', 403, { method: 'HEAD' }),
  redirect('an ungranted origin', '/v1/redirect/docs/a.jpg', 403, {
    errorPath: 'origin',
    caller: 'photos-only',
  }),
  redirect('a key outside every grant', '/v1/redirect/cdn/private/a.jpg', 403, {
    errorPath: 'key',
  }),
  redirect('an origin in upper case', '/v1/redirect/Photos/a.jpg', 400, { errorPath: 'origin' }),
  redirect('an origin of 64 characters', `/v1/redirect/${'o'.repeat(64)}/a.jpg`, 400, {
    errorPath: 'origin',
  }),
  redirect('an origin with a percent-encoded slash', '/v1/redirect/pho%2Ftos/a.jpg', 400, {
    errorPath: 'origin',
  }),
  redirect('no key', '/v1/redirect/photos/', 404, { detail: 'No such route' }),
  redirect('no key and no slash', '/v1/redirect/photos', 404, { detail: 'No such route' }),
  redirect(
    `a key of ${MAX_KEY_BYTES + 1} bytes`,
    `/v1/redirect/photos/${'x'.repeat(MAX_KEY_BYTES + 1)}`,
    400,
    { errorPath: 'key' },
  ),
  redirect('a key of 64 KiB', `/v1/redirect/photos/${'x'.repeat(64 * KIB)}`, 400, {
    errorPath: 'key',
  }),
  redirect('a lone surrogate (as CESU bytes)', '/v1/redirect/photos/a%ED%A0%80', 400, {
    errorPath: 'key',
    worker: true,
  }),
  redirect('truncated percent-encoded UTF-8', '/v1/redirect/photos/a%E0%A4', 400, {
    errorPath: 'key',
  }),
  redirect('a bare "%"', '/v1/redirect/photos/a%', 400, { errorPath: 'key' }),
  redirect('"%zz"', '/v1/redirect/photos/a%zz', 400, { errorPath: 'key' }),
  redirect('an encoded NUL (safe origin)', '/v1/redirect/photos/a%00b', 400, { errorPath: 'key' }),
  redirect('an encoded tab (safe origin)', '/v1/redirect/photos/a%09b', 400, { errorPath: 'key' }),
  redirect('an encoded CR/LF', '/v1/redirect/photos/a%0D%0Ab', 400, {
    errorPath: 'key',
  }),
  redirect('an encoded LF', '/v1/redirect/photos/a%0Ab', 400, {
    errorPath: 'key',
  }),
  redirect('"//" (safe origin)', '/v1/redirect/photos/a//b', 400, { errorPath: 'key' }),
  // `%2e%2e` itself is a dot segment to the URL parser (the Worker sees /photos/b); `%252e%252e` is
  // the key "a/%2e%2e/b", which a proxy may decode.
  redirect(
    'a double-encoded dot segment (safe origin)',
    '/v1/redirect/photos/a/%252e%252e/b',
    400,
    {
      errorPath: 'key',
    },
  ),
  redirect('expiresIn=0', '/v1/redirect/photos/a.jpg?expiresIn=0', 400, {
    errorPath: 'expiresIn',
    worker: true,
  }),
  redirect('expiresIn=-5', '/v1/redirect/photos/a.jpg?expiresIn=-5', 400, {
    errorPath: 'expiresIn',
  }),
  redirect('expiresIn=1.5', '/v1/redirect/photos/a.jpg?expiresIn=1.5', 400, {
    errorPath: 'expiresIn',
  }),
  redirect('expiresIn=604801', '/v1/redirect/photos/a.jpg?expiresIn=604801', 400, {
    errorPath: 'expiresIn',
  }),
  redirect('expiresIn=1e3', '/v1/redirect/photos/a.jpg?expiresIn=1e3', 400, {
    errorPath: 'expiresIn',
  }),
  redirect('expiresIn=abc', '/v1/redirect/photos/a.jpg?expiresIn=abc', 400, {
    errorPath: 'expiresIn',
  }),
  redirect('expiresIn empty', '/v1/redirect/photos/a.jpg?expiresIn=', 400, {
    errorPath: 'expiresIn',
  }),
  redirect(
    'expiresIn of 100 digits',
    `/v1/redirect/photos/a.jpg?expiresIn=${'9'.repeat(100)}`,
    400,
    { errorPath: 'expiresIn' },
  ),
  redirect('expiresIn above the grant', '/v1/redirect/cdn/public/a.jpg?expiresIn=7200', 400, {
    errorPath: 'expiresIn',
  }),
  redirect('expiresIn=0 (HEAD)', '/v1/redirect/photos/a.jpg?expiresIn=0', 400, { method: 'HEAD' }),
  redirect('a malformed JWT cookie', '/v1/redirect/photos/a.jpg', 401, {
    caller: { headers: { cookie: 'wb_token=not.a.jwt' } },
    detail: 'Authentication failed',
  }),
  redirect('a JWT cookie with bad percent-encoding', '/v1/redirect/photos/a.jpg', 401, {
    caller: { headers: { cookie: 'wb_token=%E0%A4%A' } },
    detail: 'Authentication failed',
  }),
  redirect('a 64 KiB JWT cookie', '/v1/redirect/photos/a.jpg', 401, {
    caller: { headers: { cookie: `wb_token=${'a'.repeat(64 * KIB)}` } },
    detail: `longer than ${MAX_TOKEN_BYTES} bytes`,
  }),
  redirect('a malformed Access cookie', '/v1/redirect/photos/a.jpg', 401, {
    caller: { headers: { cookie: 'CF_Authorization=x.y.z' } },
    detail: 'Authentication failed',
  }),
]

// ---- GET /healthz, GET /readyz, GET /openapi.json, unknown paths ---------------------------------

const OTHER_ROWS: BadInputCase[] = [
  ...methodRows('/healthz', ALLOW_GET, ['POST', 'PUT', 'DELETE', 'PATCH']),
  ...methodRows('/readyz', ALLOW_GET, ['POST', 'PUT', 'DELETE']),
  ...methodRows('/openapi.json', ALLOW_GET, ['POST', 'PUT', 'DELETE']),
  {
    name: 'GET an unknown path',
    method: 'GET',
    path: '/v1/nope',
    status: 404,
    detail: 'No such route',
    worker: true,
  },
  {
    name: 'POST /v1/sign/ (trailing slash)',
    method: 'POST',
    path: '/v1/sign/',
    body: { json: SIGN_VALID },
    status: 404,
    detail: 'No such route',
  },
  {
    name: 'GET /v1 (no route)',
    method: 'GET',
    path: '/v1',
    caller: 'none',
    status: 404,
    detail: 'No such route',
  },
  {
    name: 'GET a 64 KiB unknown path',
    method: 'GET',
    path: `/${'p'.repeat(64 * KIB)}`,
    caller: 'none',
    status: 404,
    detail: 'No such route',
  },
]

// GET /v1/list: every parameter is checked before the grant and before any S3 call.
const LIST_ROWS: BadInputCase[] = [
  ...getRoute('/v1/list/photos'),
  ...(
    [
      ['limit=0', 'limit'],
      ['limit=10001', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=not-a-cursor', 'cursor'],
      ['cursor=', 'cursor'],
      ['delimiter=', 'delimiter'],
      [`delimiter=${'x'.repeat(17)}`, 'delimiter'],
      ['prefix=a/&prefix=a/', 'prefix.1'],
      [`prefix=${'p'.repeat(MAX_KEY_BYTES + 1)}`, 'prefix.0'],
      ['expiresIn=0', 'expiresIn'],
      ['expiresIn=604801', 'expiresIn'],
      ['signingWindow=86401', 'signingWindow'],
      ['signingWindow=-1', 'signingWindow'],
      ['colour=blue', 'colour'],
    ] as const
  ).map(([query, errorPath]) => ({
    name: `GET /v1/list/photos?${query.slice(0, 40)}`,
    method: 'GET',
    path: `/v1/list/photos?${query}`,
    status: 400,
    errorPath,
  })),
  {
    name: 'GET /v1/list/Bad_Origin!',
    method: 'GET',
    path: '/v1/list/Bad%20Origin',
    status: 400,
    errorPath: 'origin',
  },
  {
    name: 'GET /v1/list on an origin without a list grant',
    method: 'GET',
    path: '/v1/list/photos?prefix=a/',
    status: 403,
    errorPath: 'origin',
  },
  {
    name: 'GET /v1/list on an unknown origin',
    method: 'GET',
    path: '/v1/list/nowhere',
    status: 403,
    errorPath: 'origin',
  },
]

// GET /v1/uploads/rules: the origin, once, checked before any grant; refused as an upload there.
const UPLOAD_RULES_ROWS: BadInputCase[] = [
  ...getRoute('/v1/uploads/rules'),
  ...(
    [
      ['', 'origin'],
      ['origin=', 'origin'],
      ['origin=Bad%20Origin', 'origin'],
      ['origin=photos&origin=docs', 'origin'],
      ['origin=photos&colour=blue', 'colour'],
    ] as const
  ).map(([query, errorPath]) => ({
    name: `GET /v1/uploads/rules?${query}`,
    method: 'GET',
    path: `/v1/uploads/rules?${query}`,
    status: 400,
    errorPath,
  })),
  {
    name: 'GET /v1/uploads/rules on an unknown origin',
    method: 'GET',
    path: '/v1/uploads/rules?origin=nowhere',
    status: 403,
    errorPath: 'origin',
  },
  {
    name: 'GET /v1/uploads/rules on an origin without a grant',
    method: 'GET',
    path: '/v1/uploads/rules?origin=docs',
    caller: 'photos-only',
    status: 403,
    errorPath: 'origin',
  },
  {
    name: 'GET /v1/uploads/rules on a CloudFront origin (no uploads)',
    method: 'GET',
    path: '/v1/uploads/rules?origin=cdn',
    status: 403,
    errorPath: 'origin',
  },
]

const UPLOAD_VALID = { origin: 'photos', key: 'uploads/a.txt', contentType: 'text/plain' }
const upload = (
  name: string,
  body: Record<string, unknown>,
  status: number,
  errorPath: string,
) => ({
  name: `POST /v1/uploads: ${name}`,
  method: 'POST',
  path: '/v1/uploads',
  body: { json: body },
  status,
  errorPath,
})

const UPLOAD_ROWS: BadInputCase[] = [
  ...jsonPostRoute('/v1/uploads', UPLOAD_VALID),
  upload('missing contentType', { origin: 'photos', key: 'a' }, 400, 'contentType'),
  upload(
    'contentType not a media type',
    { ...UPLOAD_VALID, contentType: 'png' },
    400,
    'contentType',
  ),
  upload(
    'contentType with CR/LF',
    { ...UPLOAD_VALID, contentType: 'text/plain\r\nx: y' },
    400,
    'contentType',
  ),
  upload('a type family for PUT', { ...UPLOAD_VALID, contentType: 'image/*' }, 400, 'contentType'),
  upload('missing key', { origin: 'photos', contentType: 'text/plain' }, 400, 'key'),
  upload('empty key', { ...UPLOAD_VALID, key: '' }, 400, 'key'),
  upload('key over 1024 bytes', { ...UPLOAD_VALID, key: 'k'.repeat(1025) }, 400, 'key'),
  upload(
    'key and keyPrefix',
    { ...UPLOAD_VALID, mode: 'post', overwrite: true, keyPrefix: 'u/' },
    400,
    'keyPrefix',
  ),
  upload(
    'keyPrefix for PUT',
    { origin: 'photos', keyPrefix: 'u/', contentType: 'text/plain' },
    400,
    'keyPrefix',
  ),
  upload('unknown mode', { ...UPLOAD_VALID, mode: 'patch' }, 400, 'mode'),
  upload('negative contentLength', { ...UPLOAD_VALID, contentLength: -1 }, 400, 'contentLength'),
  upload('fractional contentLength', { ...UPLOAD_VALID, contentLength: 1.5 }, 400, 'contentLength'),
  upload(
    'PUT over 5 GiB',
    { ...UPLOAD_VALID, contentLength: 5 * 1024 ** 3 + 1 },
    400,
    'contentLength',
  ),
  upload('string contentLength', { ...UPLOAD_VALID, contentLength: '10' }, 400, 'contentLength'),
  upload(
    'multipart without contentLength',
    { ...UPLOAD_VALID, mode: 'multipart' },
    400,
    'contentLength',
  ),
  upload(
    'partSize under 5 MiB',
    { ...UPLOAD_VALID, mode: 'multipart', contentLength: 10, partSize: 1 },
    400,
    'partSize',
  ),
  upload('partSize for PUT', { ...UPLOAD_VALID, partSize: 5 * MIB }, 400, 'partSize'),
  upload(
    'checksum not base64 SHA-256',
    { ...UPLOAD_VALID, checksumSha256: 'abc' },
    400,
    'checksumSha256',
  ),
  // n4bQ…Cgg= with stray bits in its last character: the same bytes to a lax decoder, another
  // text to the store, which refused what waybill had signed (issue #28).
  upload(
    'checksum in a non-canonical base64 spelling',
    { ...UPLOAD_VALID, checksumSha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgh=' },
    400,
    'checksumSha256',
  ),
  upload(
    'checksumSha256 for multipart',
    {
      ...UPLOAD_VALID,
      mode: 'multipart',
      contentLength: 6 * MIB,
      checksumSha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    },
    400,
    'checksumSha256',
  ),
  // Media types are parsed strictly (issue #20): one type, no commas, no wildcards.
  ...[
    'image/png;,text/html',
    'text/plain; charset=utf-8, text/html',
    'application/pdf;x="y",image/svg+xml',
    'image/png,text/html',
    'image/png;x="a,b"',
    'text/plain;charset',
    ' text/plain',
    'text/plain; charset=é',
  ].map((contentType) =>
    upload(
      `contentType ${JSON.stringify(contentType)}`,
      { ...UPLOAD_VALID, contentType },
      400,
      'contentType',
    ),
  ),
  upload(
    'a type family for POST',
    { ...UPLOAD_VALID, mode: 'post', overwrite: true, contentType: 'image/*' },
    400,
    'contentType',
  ),
  upload('overwrite not a boolean', { ...UPLOAD_VALID, overwrite: 'yes' }, 400, 'overwrite'),
  // A POST form cannot refuse to replace: the request must say it may (issue #28).
  upload('a POST form without overwrite', { ...UPLOAD_VALID, mode: 'post' }, 400, 'overwrite'),
  upload(
    'a POST form with overwrite false',
    { ...UPLOAD_VALID, mode: 'post', overwrite: false },
    400,
    'overwrite',
  ),
  upload(
    'a POST batch item without overwrite',
    {
      origin: 'photos',
      mode: 'post',
      items: [
        { key: 'a', contentType: 'text/plain', overwrite: true },
        { key: 'b', contentType: 'text/plain' },
      ],
    },
    400,
    'items.1.overwrite',
  ),
  // The former name of refusing to overwrite, gone before 1.0: an unknown field.
  upload(
    'ifNoneMatch (no longer taken)',
    { ...UPLOAD_VALID, ifNoneMatch: true },
    400,
    'ifNoneMatch',
  ),
  upload(
    'partChecksums without partSize',
    {
      ...UPLOAD_VALID,
      mode: 'multipart',
      contentLength: 6 * MIB,
      partChecksums: ['n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg='],
    },
    400,
    'partSize',
  ),
  upload(
    'partChecksums for PUT',
    { ...UPLOAD_VALID, partChecksums: ['n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg='] },
    400,
    'partChecksums',
  ),
  upload(
    'partChecksums not base64 SHA-256',
    {
      ...UPLOAD_VALID,
      mode: 'multipart',
      contentLength: 6 * MIB,
      partSize: 5 * MIB,
      partChecksums: ['abc'],
    },
    400,
    'partChecksums.0',
  ),
  upload(
    'metadata named __proto__',
    { ...UPLOAD_VALID, metadata: JSON.parse('{"__proto__":"x"}') as unknown },
    400,
    'metadata',
  ),
  upload(
    'metadata named constructor',
    { ...UPLOAD_VALID, metadata: { constructor: 'x' } },
    400,
    'metadata',
  ),
  upload('metadata not an object', { ...UPLOAD_VALID, metadata: ['a'] }, 400, 'metadata'),
  upload(
    'metadata name with spaces',
    { ...UPLOAD_VALID, metadata: { 'a b': 'x' } },
    400,
    'metadata.a b',
  ),
  upload(
    'metadata value with non-ASCII',
    { ...UPLOAD_VALID, metadata: { a: 'é' } },
    400,
    'metadata.a',
  ),
  upload(
    'metadata over 2 KiB',
    { ...UPLOAD_VALID, metadata: { a: 'x'.repeat(2100) } },
    400,
    'metadata',
  ),
  upload(
    "metadata that leaves no room for the upload's tag",
    { ...UPLOAD_VALID, metadata: { a: 'x'.repeat(2048 - 'waybill-upload'.length - 22) } },
    400,
    'metadata',
  ),
  upload(
    'metadata named waybill-upload (the tag that binds a receipt)',
    { ...UPLOAD_VALID, metadata: { 'waybill-upload': 'AAAAAAAAAAAAAAAAAAAAAA' } },
    400,
    'metadata',
  ),
  upload('expiresIn 0', { ...UPLOAD_VALID, expiresIn: 0 }, 400, 'expiresIn'),
  upload(
    'successActionStatus for PUT',
    { ...UPLOAD_VALID, successActionStatus: 201 },
    400,
    'successActionStatus',
  ),
  upload('an unsafe key', { ...UPLOAD_VALID, key: 'a/../b' }, 400, 'key'),
  upload('key and filename', { ...UPLOAD_VALID, filename: 'a.txt' }, 400, 'filename'),
  upload(
    'an empty filename',
    { origin: 'photos', filename: '', contentType: 'text/plain' },
    400,
    'filename',
  ),
  upload(
    'a filename with a lone surrogate',
    { origin: 'photos', filename: 'a\ud800.txt', contentType: 'text/plain' },
    400,
    'filename',
  ),
  upload(
    'a filename over 1024 characters',
    { origin: 'photos', filename: 'f'.repeat(1025), contentType: 'text/plain' },
    400,
    'filename',
  ),
  upload(
    'a filename not a string',
    { ...UPLOAD_VALID, key: undefined, filename: 7 },
    400,
    'filename',
  ),
  upload(
    'a filename where no grant chooses keys',
    { origin: 'photos', filename: 'a.txt', contentType: 'text/plain' },
    400,
    'filename',
  ),
  upload('items not an array', { origin: 'photos', items: {} }, 400, 'items'),
  upload('items empty', { origin: 'photos', items: [] }, 400, 'items'),
  upload('an item not an object', { origin: 'photos', items: ['a.txt'] }, 400, 'items.0'),
  upload(
    'items with a top-level key',
    { ...UPLOAD_VALID, items: [{ key: 'b', contentType: 'text/plain' }] },
    400,
    'key',
  ),
  upload(
    'items for multipart',
    {
      origin: 'photos',
      mode: 'multipart',
      items: [{ key: 'b', contentType: 'text/plain', contentLength: 1 }],
    },
    400,
    'items',
  ),
  upload(
    'an item without contentType',
    { origin: 'photos', items: [{ key: 'b' }] },
    400,
    'items.0.contentType',
  ),
  upload(
    'an item with an unknown field',
    { origin: 'photos', items: [{ key: 'b', contentType: 'text/plain', mode: 'post' }] },
    400,
    'items.0.mode',
  ),
  upload(
    'an item with key and filename',
    { origin: 'photos', items: [{ key: 'b', filename: 'b', contentType: 'text/plain' }] },
    400,
    'items.0.filename',
  ),
  upload(
    'an item with a type family for PUT',
    { origin: 'photos', items: [{ key: 'b', contentType: 'image/*' }] },
    400,
    'items.0.contentType',
  ),
  upload(
    'an item with an unsafe key, after a good one',
    {
      origin: 'photos',
      items: [
        { key: 'a', contentType: 'text/plain' },
        { key: 'a/../b', contentType: 'text/plain' },
      ],
    },
    400,
    'items.1.key',
  ),
  upload(
    'a batch over the 1 MiB body limit',
    {
      origin: 'photos',
      items: Array.from({ length: 100_001 }, () => ({ key: 'a', contentType: 'text/plain' })),
    },
    413,
    'body',
  ),
  upload('no write grant on the origin', { ...UPLOAD_VALID }, 403, 'origin'),
  upload('an unknown origin', { ...UPLOAD_VALID, origin: 'nowhere' }, 403, 'origin'),
  // A CloudFront origin takes no uploads: refused like an origin without a grant (403).
  upload('a CloudFront origin', { ...UPLOAD_VALID, origin: 'cdn' }, 403, 'origin'),
]
// The "no write grant" row runs as the read-only caller.
UPLOAD_ROWS[UPLOAD_ROWS.length - 3]!.caller = 'photos-only'

// An upload id shaped as waybill issues them (a sealed handle), but never issued.
const FAKE_HANDLE = 'k1.eyJ1IjoidXBsb2FkLTEifQ.AAAAAAAAAAAAAAAAAAAAAA'
const MULTIPART_REF = { origin: 'photos', key: 'uploads/big.bin', uploadId: FAKE_HANDLE }
const MULTIPART_ROWS: BadInputCase[] = [
  ...jsonPostRoute('/v1/uploads/multipart/parts', { ...MULTIPART_REF, partNumbers: [1] }),
  ...jsonPostRoute('/v1/uploads/multipart/complete', {
    ...MULTIPART_REF,
    parts: [{ partNumber: 1, etag: '"e"' }],
  }),
  ...jsonPostRoute('/v1/uploads/multipart/abort', MULTIPART_REF),
  ...jsonPostRoute('/v1/uploads/multipart/list', MULTIPART_REF),
  ...jsonPostRoute('/v1/uploads/complete', {
    origin: 'photos',
    key: 'a.txt',
    receipt: FAKE_HANDLE,
  }),
  ...(
    [
      ['multipart/list', MULTIPART_REF, 403, 'uploadId'],
      ['complete', { origin: 'photos', key: 'a.txt', receipt: FAKE_HANDLE }, 403, 'receipt'],
      ['complete', { origin: 'photos', key: 'a.txt' }, 400, 'receipt'],
      ['complete', { origin: 'photos', key: 'a.txt', receipt: 'not a receipt' }, 400, 'receipt'],
      ['complete', { origin: 'photos', receipt: FAKE_HANDLE }, 400, 'key'],
      ['complete', { origin: 'photos', key: '', receipt: FAKE_HANDLE }, 400, 'key'],
      ['complete', { origin: 'photos', key: 'a', receipt: FAKE_HANDLE, parts: [] }, 400, 'parts'],
      ['complete', { origin: 'photos', key: 'a', receipt: FAKE_HANDLE, etag: '' }, 400, 'etag'],
      ['complete', { origin: 'photos', key: 'a', receipt: FAKE_HANDLE, etag: 7 }, 400, 'etag'],
      ['complete', { origin: 'cdn', key: 'a', receipt: FAKE_HANDLE }, 403, 'receipt'],
      ['complete', { origin: 'nowhere', key: 'a', receipt: FAKE_HANDLE }, 403, 'origin'],
    ] as const
  ).map(([route, body, status, errorPath], i) => ({
    name: `POST /v1/uploads/${route}: row ${i} (${status}) names ${errorPath}`,
    method: 'POST',
    path: `/v1/uploads/${route}`,
    body: { json: body },
    status,
    errorPath,
  })),
  ...(
    [
      ['parts', { ...MULTIPART_REF, partNumbers: [] }, 'partNumbers'],
      ['parts', { ...MULTIPART_REF, partNumbers: [10_001] }, 'partNumbers.0'],
      // Sizes come from the upload itself, never from a follow-up.
      ['parts', { ...MULTIPART_REF, partNumbers: [1], contentLength: 1 }, 'contentLength'],
      ['parts', { ...MULTIPART_REF, partNumbers: [1], uploadId: 'upload-1' }, 'uploadId'],
      ['parts', { ...MULTIPART_REF, partNumbers: [1], checksums: ['abc'] }, 'checksums.0'],
      [
        'parts',
        {
          ...MULTIPART_REF,
          partNumbers: [1],
          checksums: ['n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgj='],
        },
        'checksums.0',
      ],
      ['complete', { ...MULTIPART_REF, parts: [] }, 'parts'],
      // Non-objects among the parts (Schemathesis found a 500 here: the order check read them).
      ['complete', { ...MULTIPART_REF, parts: [null] }, 'parts.0'],
      ['complete', { ...MULTIPART_REF, parts: [0] }, 'parts.0'],
      ['complete', { ...MULTIPART_REF, parts: ['AAA'] }, 'parts.0'],
      ['complete', { ...MULTIPART_REF, parts: [{ partNumber: 1, etag: 'a' }, null] }, 'parts.1'],
      ['complete', { ...MULTIPART_REF, parts: [{ partNumber: 1 }] }, 'parts.0.etag'],
      [
        'complete',
        { ...MULTIPART_REF, parts: [{ partNumber: 10001, etag: 'a' }] },
        'parts.0.partNumber',
      ],
      ['abort', { origin: 'photos', key: 'a' }, 'uploadId'],
      ['abort', { ...MULTIPART_REF, uploadId: 'bad id\n' }, 'uploadId'],
      ['abort', { ...MULTIPART_REF, key: '' }, 'key'],
    ] as const
  ).map(([route, body, errorPath], i) => ({
    name: `POST /v1/uploads/multipart/${route}: row ${i} names ${errorPath}`,
    method: 'POST',
    path: `/v1/uploads/multipart/${route}`,
    body: { json: body },
    status: 400,
    errorPath,
  })),
]

const LINKS_VALID = { origin: 'photos', keys: ['a.jpg'] }
const links = (
  name: string,
  body: unknown,
  status: number,
  errorPath: string,
  detail?: string,
): BadInputCase => ({
  name: `POST /v1/links: ${name}`,
  method: 'POST',
  path: '/v1/links',
  body: { json: body },
  status,
  errorPath,
  detail,
})
const A_TOKEN = `k1.${'A'.repeat(40)}.${'A'.repeat(22)}`
const LINK_ROWS: BadInputCase[] = [
  ...jsonPostRoute('/v1/links', LINKS_VALID),
  links('no keys nor items', { origin: 'photos' }, 400, 'keys'),
  links('keys and items', { ...LINKS_VALID, items: [{ key: 'a' }] }, 400, 'items'),
  links('an empty batch', { origin: 'photos', keys: [] }, 400, 'keys'),
  links('expiresIn 0', { ...LINKS_VALID, expiresIn: 0 }, 400, 'expiresIn'),
  links('expiresIn past a year', { ...LINKS_VALID, expiresIn: 400 * 86_400 }, 400, 'expiresIn'),
  links('expiresIn above the grant', { ...LINKS_VALID, expiresIn: 8 * 86_400 }, 400, 'expiresIn'),
  links('maxUses 0', { ...LINKS_VALID, maxUses: 0 }, 400, 'maxUses'),
  links('maxUses negative', { ...LINKS_VALID, maxUses: -1 }, 400, 'maxUses'),
  links('maxUses 1.5', { ...LINKS_VALID, maxUses: 1.5 }, 400, 'maxUses', 'whole number'),
  links('maxUses as a string', { ...LINKS_VALID, maxUses: '1' }, 400, 'maxUses'),
  links('maxUses null', { ...LINKS_VALID, maxUses: null }, 400, 'maxUses'),
  links(
    'maxUses past its ceiling',
    { ...LINKS_VALID, maxUses: MAX_LINK_USES + 1 },
    400,
    'maxUses',
    `from 1 to ${MAX_LINK_USES}`,
  ),
  // This env binds no link-use counters (WAYBILL_LINK_USES): a counted link cannot be issued.
  links(
    'maxUses with no counters bound',
    { ...LINKS_VALID, maxUses: 1 },
    400,
    'maxUses',
    'WAYBILL_LINK_USES',
  ),
  links('a key outside every grant', { origin: 'cdn', keys: ['private/a'] }, 403, 'keys.0'),
  links('an unknown origin', { ...LINKS_VALID, origin: 'nowhere' }, 403, 'origin'),
  links('an unsafe key', { origin: 'photos', keys: ['a/../b'] }, 400, 'keys.0'),
  links(
    'download and inline',
    { origin: 'photos', items: [{ key: 'a', download: true, inline: true }] },
    400,
    'items.0.inline',
  ),
  links(
    'download of a folder key',
    { origin: 'photos', items: [{ key: 'a/', download: true }] },
    400,
    'items.0.download',
  ),
  links(
    'a download name with a newline',
    { origin: 'photos', items: [{ key: 'a', download: 'a\nb' }] },
    400,
    'items.0.download',
  ),
  links(
    'a download name of 256 characters',
    { origin: 'photos', items: [{ key: 'a', download: 'x'.repeat(256) }] },
    400,
    'items.0.download',
  ),
  links(
    'download as a number',
    { origin: 'photos', items: [{ key: 'a', download: 5 }] },
    400,
    'items.0.download',
  ),
  links(
    'contentType text/html',
    { origin: 'photos', items: [{ key: 'a', contentType: 'text/html' }] },
    400,
    'items.0.contentType',
  ),
  links(
    'contentType not a type',
    { origin: 'photos', items: [{ key: 'a', contentType: 'pdf' }] },
    400,
    'items.0.contentType',
  ),
  links(
    'an unknown item field',
    { origin: 'photos', items: [{ key: 'a', versionId: 'v' }] },
    400,
    'items.0.versionId',
  ),
  ...(
    [
      [`/l/${A_TOKEN}`, 403, 'token', 'a token under a secret this waybill does not have'],
      // Not shaped like a link: one waybill did not issue, 404 as the README says (issue #20).
      [`/l/k1.${'A'.repeat(40)}.short`, 404, 'token', 'a token with a short tag'],
      ['/l/only-one-part', 404, 'token', 'a token that is not three parts'],
      [`/l/k1.${'A'.repeat(9000)}.${'A'.repeat(22)}`, 404, 'token', 'a token of 9 KiB'],
    ] as const
  ).map(([path, status, errorPath, name]) => ({
    name: `GET /l/…: ${name}`,
    method: 'GET',
    path,
    caller: 'none' as const,
    status,
    errorPath,
  })),
  ...methodRows(`/l/${A_TOKEN}`, ALLOW_GET, ['POST', 'PUT', 'DELETE']),
]

// ---- the admin API (/admin/v1) ----------------------------------------------------------------

/**
 * Credentials the admin API refuses: none, a caller's (an API key, a JWT), a forged or malformed
 * admin token. 401 comes before any look at the body or the control plane.
 */
function adminAuthRows(method: string, path: string, body?: RowBody): BadInputCase[] {
  const row = (name: string, caller: Caller, detail: string, worker = false): BadInputCase => ({
    name: `${method} ${path}: ${name}`,
    method,
    path,
    caller,
    body,
    status: 401,
    detail,
    worker,
  })
  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })
  return [
    // The Worker's env has no admin token: its detail says none is configured.
    row('no credentials', 'none', 'admin', true),
    row("a caller's API key", 'valid', 'not an admin token'),
    row("a caller's JWT", bearer('eyJhbGciOiJIUzI1NiJ9.e30.AAAA'), 'not an admin token'),
    row(
      'a forged admin token',
      bearer('wba_forged_0123456789abcdef0123456789'),
      'not an admin token',
    ),
    row('Basic instead of Bearer', { headers: { authorization: 'Basic YTpi' } }, 'Bearer', true),
    row('a 64 KiB bearer token', bearer('a'.repeat(64 * KIB)), `longer than ${MAX_TOKEN_BYTES}`),
  ]
}

const ADMIN: Who = { as: { caller: 'admin' }, auth: adminAuthRows }
const ADMIN_GET_POST: Who = { ...ADMIN, allow: 'POST, GET, HEAD' }
const ADMIN_GET_PATCH: Who = { ...ADMIN, allow: 'GET, HEAD, PATCH' }

const adminRow = (
  method: string,
  path: string,
  name: string,
  body: unknown,
  status: number,
  errorPath: string,
): BadInputCase => ({
  name: `${method} ${path.split('?')[0]}: ${name}`,
  method,
  path,
  caller: 'admin',
  ...(body === undefined ? {} : { body: { json: body } }),
  status,
  errorPath,
})

const KEY_VALID = { label: 'the gallery' }
const keyRow = (name: string, body: unknown, errorPath: string, status = 400) =>
  adminRow('POST', '/admin/v1/keys', name, body, status, errorPath)
const GRANT = { origin: 'photos', actions: ['read'] }

const ADMIN_KEY_ROWS: BadInputCase[] = [
  ...jsonPostRoute(
    '/admin/v1/keys',
    KEY_VALID,
    MAX_SMALL_BODY_BYTES,
    ['PUT', 'DELETE', 'PATCH'],
    ADMIN_GET_POST,
  ),
  keyRow('an id with a slash', { id: 'a/b' }, 'id'),
  keyRow('an id of 65 characters', { id: 'k'.repeat(65) }, 'id'),
  keyRow('an id that is a number', { id: 7 }, 'id'),
  keyRow('an id with SQL in it', { id: "x'; DROP TABLE api_keys; --" }, 'id'),
  // An id already taken (WAYBILL_API_KEYS' "all", or a stored key's) is no bad input but a
  // conflict with what is there (409): test/routes/admin.test.ts.
  keyRow('a label of 201 characters', { label: 'l'.repeat(201) }, 'label'),
  keyRow('a label with a line break', { label: 'a\nb' }, 'label'),
  keyRow('a label with NUL', { label: 'a\u0000b' }, 'label'),
  keyRow('a label that is an object', { label: { text: 'x' } }, 'label'),
  keyRow('an upper-case prefix', { prefix: 'WB' }, 'prefix'),
  keyRow('a prefix with an underscore', { prefix: 'wb_' }, 'prefix'),
  keyRow('a prefix with a quote', { prefix: "wb'--" }, 'prefix'),
  keyRow('an empty prefix', { prefix: '' }, 'prefix'),
  keyRow('a prefix of 17 characters', { prefix: 'p'.repeat(17) }, 'prefix'),
  keyRow('expiresAt that is not a time', { expiresAt: 'tomorrow' }, 'expiresAt'),
  keyRow('grants that is not a list', { grants: GRANT }, 'grants'),
  keyRow('a grant that is a string', { grants: ['read'] }, 'grants.0'),
  // The document cannot know the deployment's origins: one not configured is not found (404).
  keyRow(
    'a grant on an unknown origin',
    { grants: [{ ...GRANT, origin: 'nowhere' }] },
    'grants.0.origin',
    404,
  ),
  keyRow('a grant with its own "to"', { grants: [{ ...GRANT, to: '*' }] }, 'grants.0.to'),
  keyRow('a grant with an unknown field', { grants: [{ ...GRANT, bogus: 1 }] }, 'grants.0.bogus'),
  keyRow(
    'a grant with no actions',
    { grants: [{ origin: 'photos', actions: [] }] },
    'grants.0.actions',
  ),
  keyRow(
    'a grant prefix with {sub} (an API key fills only {apiKey})',
    { grants: [{ ...GRANT, prefix: 'users/{sub}/' }] },
    'grants.0.prefix',
  ),
  keyRow('1001 grants', { grants: new Array(1001).fill(GRANT) }, 'grants'),
  ...adminAuthRows('GET', '/admin/v1/keys'),
  ...(
    [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=..%2Fx', 'cursor'],
      ["cursor=x'%20OR%201=1", 'cursor'],
      ['colour=blue', 'colour'],
    ] as const
  ).map(([query, errorPath]) =>
    adminRow('GET', `/admin/v1/keys?${query}`, query, undefined, 400, errorPath),
  ),
  ...(
    [
      ['a short Idempotency-Key', 'short'],
      ['an Idempotency-Key of 256 characters', 'k'.repeat(256)],
      ['an Idempotency-Key with a space', 'a key with a space in it'],
    ] as const
  ).map(([name, key]): BadInputCase => ({
    ...adminRow('POST', '/admin/v1/keys', name, KEY_VALID, 400, 'Idempotency-Key'),
    headers: { 'idempotency-key': key },
  })),
  ...getRoute('/admin/v1/keys/web', ADMIN_GET_PATCH, ['POST', 'PUT', 'DELETE']),
  ...adminAuthRows('PATCH', '/admin/v1/keys/web', { json: { label: 'x' } }),
  ...(
    [
      [{}, 'label'],
      [{ label: 5 }, 'label'],
      [{ label: 'a\u0000b' }, 'label'],
      [{ expiresAt: 'now' }, 'expiresAt'],
      [{ expiresAt: 1_795_000_000 }, 'expiresAt'],
      [{ label: 'x', colour: 'blue' }, 'colour'],
      [{ prefix: 'live' }, 'prefix'],
    ] as const
  ).map(([body, errorPath]) =>
    adminRow('PATCH', '/admin/v1/keys/web', JSON.stringify(body), body, 400, errorPath),
  ),
  adminRow('PATCH', '/admin/v1/keys/nobody-here', 'an unknown key', { label: 'x' }, 404, 'id'),
  adminRow('PATCH', '/admin/v1/keys/a%20b', 'an id with a space', { label: 'x' }, 400, 'id'),
  adminRow('GET', "/admin/v1/keys/x'%20OR%20'1'='1", 'an id with SQL in it', undefined, 400, 'id'),
  adminRow(
    'GET',
    '/admin/v1/keys/%7B%7Bsecret%7D%7D',
    'an id with a template',
    undefined,
    400,
    'id',
  ),
  adminRow('GET', '/admin/v1/keys/nobody-here', 'an unknown key', undefined, 404, 'id'),
  ...jsonPostRoute(
    '/admin/v1/keys/nobody-here/rotate',
    { overlapS: 60 },
    MAX_SMALL_BODY_BYTES,
    ['GET', 'PUT', 'DELETE', 'PATCH'],
    ADMIN,
  ),
  ...(
    [
      [{ overlapS: -1 }, 'overlapS'],
      [{ overlapS: 1.5 }, 'overlapS'],
      [{ overlapS: 30 * 86_400 + 1 }, 'overlapS'],
      [{ overlapS: '60' }, 'overlapS'],
    ] as const
  ).map(([body, errorPath]) =>
    adminRow(
      'POST',
      '/admin/v1/keys/nobody-here/rotate',
      JSON.stringify(body),
      body,
      400,
      errorPath,
    ),
  ),
  adminRow('POST', '/admin/v1/keys/nobody-here/rotate', 'an unknown key', {}, 404, 'id'),
  adminRow('POST', '/admin/v1/keys/a%20b/rotate', 'an id with a space', {}, 400, 'id'),
]

const GRANT_VALID = { to: 'apiKey:web', origin: 'photos', actions: ['read'] }
const grantRow = (name: string, body: unknown, errorPath: string, status = 400) =>
  adminRow('POST', '/admin/v1/grants', name, body, status, errorPath)
const A_GRANT_ID = 'g_0mkz3c9a1b2c3d4e5f6g'

const ADMIN_GRANT_ROWS: BadInputCase[] = [
  ...jsonPostRoute(
    '/admin/v1/grants',
    GRANT_VALID,
    MAX_SMALL_BODY_BYTES,
    ['PUT', 'DELETE', 'PATCH'],
    ADMIN_GET_POST,
  ),
  grantRow('no "to"', { origin: 'photos', actions: ['read'] }, 'to'),
  grantRow('"to" of an unknown kind', { ...GRANT_VALID, to: 'group:x' }, 'to'),
  grantRow('"to" with nothing after the colon', { ...GRANT_VALID, to: 'apiKey:' }, 'to'),
  grantRow('an unknown origin', { ...GRANT_VALID, origin: 'nowhere' }, 'origin', 404),
  grantRow('an origin name with SQL', { ...GRANT_VALID, origin: "photos' --" }, 'origin'),
  grantRow('an unknown action', { ...GRANT_VALID, actions: ['admin'] }, 'actions.0'),
  grantRow('a prefix with ".."', { ...GRANT_VALID, prefix: 'a/../b/' }, 'prefix'),
  grantRow(
    'a prefix with a broken placeholder',
    { ...GRANT_VALID, prefix: 'users/{sub/' },
    'prefix',
  ),
  grantRow('a {sub} prefix for an API key', { ...GRANT_VALID, prefix: 'users/{sub}/' }, 'prefix'),
  grantRow(
    'a family nobody knows',
    { ...GRANT_VALID, actions: ['write'], contentTypes: ['model/*'] },
    'contentTypes',
  ),
  grantRow('an uploadKey without write', { ...GRANT_VALID, uploadKey: '{uuid}' }, 'uploadKey'),
  grantRow(
    'maxExpiresIn past seven days',
    { ...GRANT_VALID, maxExpiresIn: 604_801 },
    'maxExpiresIn',
  ),
  grantRow('wildcard that is a string', { ...GRANT_VALID, wildcard: 'yes' }, 'wildcard'),
  ...adminAuthRows('GET', '/admin/v1/grants'),
  adminRow(
    'GET',
    `/admin/v1/grants?to=${'x'.repeat(301)}`,
    'a "to" of 301 characters',
    undefined,
    400,
    'to',
  ),
  adminRow('GET', '/admin/v1/grants?limit=0', 'limit=0', undefined, 400, 'limit'),
  ...getRoute('/admin/v1/grants/effective?caller=apiKey:web', { ...ADMIN, allow: 'GET, HEAD' }, [
    'POST',
    'PUT',
    'DELETE',
  ]),
  ...(
    [
      ['', 'caller'],
      ['caller=web', 'caller'],
      ['caller=sub:alice', 'caller'],
      ['caller=apiKey:web&email=ab', 'email'],
      [`caller=jwt:alice&role=${'r'.repeat(201)}`, 'role'],
      [`caller=jwt:alice&${Array.from({ length: 51 }, (_, i) => `role=r${i}`).join('&')}`, 'role'],
      ['caller=jwt:alice&colour=blue', 'colour'],
    ] as const
  ).map(([query, errorPath]) =>
    adminRow(
      'GET',
      `/admin/v1/grants/effective?${query}`,
      query || 'no parameters',
      undefined,
      400,
      errorPath,
    ),
  ),
  adminRow(
    'POST',
    '/admin/v1/grants?allowUnknownKey=yes',
    'allowUnknownKey=yes',
    GRANT_VALID,
    400,
    'allowUnknownKey',
  ),
  ...methodRows(`/admin/v1/grants/${A_GRANT_ID}`, 'DELETE', ['GET', 'POST', 'PUT']),
  ...adminAuthRows('DELETE', `/admin/v1/grants/${A_GRANT_ID}`),
  adminRow(
    'DELETE',
    '/admin/v1/grants/q_0mkz3c9a1b2c3d4e5f6g',
    'the id of a quota',
    undefined,
    400,
    'id',
  ),
  adminRow(
    'DELETE',
    "/admin/v1/grants/g_x'%20OR%201=1",
    'an id with SQL in it',
    undefined,
    400,
    'id',
  ),
  adminRow('DELETE', `/admin/v1/grants/${A_GRANT_ID}`, 'an unknown grant', undefined, 404, 'id'),
]

const LINK_ID = 'AAAAAAAAAAAAAAAA'
const A_REVOCATION_ID = 'r_0mkz3c9a1b2c3d4e5f6g'
const revocationRow = (name: string, body: unknown, errorPath: string, status = 400) =>
  adminRow('POST', '/admin/v1/revocations', name, body, status, errorPath)

const ADMIN_REVOCATION_ROWS: BadInputCase[] = [
  ...jsonPostRoute(
    '/admin/v1/revocations',
    { kind: 'link', link: LINK_ID },
    MAX_SMALL_BODY_BYTES,
    ['PUT', 'DELETE', 'PATCH'],
    ADMIN_GET_POST,
  ),
  revocationRow('no kind', { link: LINK_ID }, 'kind'),
  revocationRow('an unknown kind', { kind: 'everything' }, 'kind'),
  revocationRow('kind key without a key', { kind: 'key' }, 'key'),
  revocationRow(
    'a key id with SQL in it',
    { kind: 'key', key: "'; DELETE FROM revocations; --" },
    'key',
  ),
  revocationRow('a key nobody made', { kind: 'key', key: 'nobody-here' }, 'key', 404),
  revocationRow('a link id of 15 characters', { kind: 'link', link: LINK_ID.slice(1) }, 'link'),
  revocationRow('a link id with a dot', { kind: 'link', link: `${LINK_ID.slice(1)}.` }, 'link'),
  revocationRow('a link with a key field', { kind: 'link', link: LINK_ID, key: 'web' }, 'key'),
  revocationRow('links without issuedBefore', { kind: 'links' }, 'issuedBefore'),
  revocationRow(
    'links with a time that is not one',
    { kind: 'links', issuedBefore: 'now' },
    'issuedBefore',
  ),
  revocationRow(
    'links by a caller named without its kind',
    { kind: 'links', issuedBefore: '2026-11-23T12:00:00Z', principal: 'alice' },
    'principal',
  ),
  revocationRow(
    'links on an origin name that is not one',
    { kind: 'links', issuedBefore: '2026-11-23T12:00:00Z', origin: 'Photos!' },
    'origin',
  ),
  ...adminAuthRows('GET', '/admin/v1/revocations'),
  adminRow('GET', '/admin/v1/revocations?limit=-1', 'limit=-1', undefined, 400, 'limit'),
  ...methodRows(`/admin/v1/revocations/${A_REVOCATION_ID}`, 'DELETE', ['GET', 'POST', 'PUT']),
  ...adminAuthRows('DELETE', `/admin/v1/revocations/${A_REVOCATION_ID}`),
  adminRow(
    'DELETE',
    `/admin/v1/revocations/${A_GRANT_ID}`,
    'the id of a grant',
    undefined,
    400,
    'id',
  ),
  adminRow(
    'DELETE',
    `/admin/v1/revocations/${A_REVOCATION_ID}`,
    'an unknown revocation',
    undefined,
    404,
    'id',
  ),
]

const QUOTA_VALID = { to: 'apiKey:web', origin: 'photos', maxObjects: 10, windowS: 3600 }
const quotaRow = (name: string, body: unknown, errorPath: string, status = 400) =>
  adminRow('POST', '/admin/v1/quotas', name, body, status, errorPath)
const A_QUOTA_ID = 'q_0mkz3c9a1b2c3d4e5f6g'

const ADMIN_QUOTA_ROWS: BadInputCase[] = [
  ...jsonPostRoute(
    '/admin/v1/quotas',
    QUOTA_VALID,
    MAX_SMALL_BODY_BYTES,
    ['PUT', 'DELETE', 'PATCH'],
    ADMIN_GET_POST,
  ),
  quotaRow(
    'neither maxObjects nor maxBytes',
    { ...QUOTA_VALID, maxObjects: undefined },
    'maxObjects',
  ),
  quotaRow('maxObjects 0', { ...QUOTA_VALID, maxObjects: 0 }, 'maxObjects'),
  quotaRow('maxBytes that is a string', { ...QUOTA_VALID, maxBytes: '1 GB' }, 'maxBytes'),
  quotaRow('a window of 59 s', { ...QUOTA_VALID, windowS: 59 }, 'windowS'),
  quotaRow('no window', { ...QUOTA_VALID, windowS: undefined }, 'windowS'),
  quotaRow('"to" that names nobody', { ...QUOTA_VALID, to: 'nobody' }, 'to'),
  // What the deployment's origins are, the document cannot say: none is a 404, one that cannot
  // hold a quota a 403 (as the callers' routes answer what an origin cannot serve).
  quotaRow('an unknown origin', { ...QUOTA_VALID, origin: 'nowhere' }, 'origin', 404),
  quotaRow('a CloudFront origin', { ...QUOTA_VALID, origin: 'cdn' }, 'origin', 403),
  ...adminAuthRows('GET', '/admin/v1/quotas'),
  ...methodRows(`/admin/v1/quotas/${A_QUOTA_ID}`, 'GET, HEAD, PATCH, DELETE', ['POST', 'PUT']),
  ...adminAuthRows('GET', `/admin/v1/quotas/${A_QUOTA_ID}`),
  adminRow('GET', `/admin/v1/quotas/${A_QUOTA_ID}`, 'an unknown quota', undefined, 404, 'id'),
  adminRow(
    'GET',
    `/admin/v1/quotas/${A_QUOTA_ID}?caller=web`,
    'a caller without its kind',
    undefined,
    400,
    'caller',
  ),
  ...adminAuthRows('PATCH', `/admin/v1/quotas/${A_QUOTA_ID}`, { json: { maxObjects: 5 } }),
  ...(
    [
      [{}, 'maxObjects'],
      [{ maxObjects: 0 }, 'maxObjects'],
      [{ maxBytes: '1 GB' }, 'maxBytes'],
      [{ maxObjects: 5, windowS: 60 }, 'windowS'],
      [{ maxObjects: 5, to: '*' }, 'to'],
    ] as const
  ).map(([body, errorPath]) =>
    adminRow('PATCH', `/admin/v1/quotas/${A_QUOTA_ID}`, JSON.stringify(body), body, 400, errorPath),
  ),
  adminRow(
    'PATCH',
    `/admin/v1/quotas/${A_QUOTA_ID}`,
    'an unknown quota',
    { maxObjects: 5 },
    404,
    'id',
  ),
  ...adminAuthRows('DELETE', `/admin/v1/quotas/${A_QUOTA_ID}`),
  adminRow('DELETE', `/admin/v1/quotas/${A_GRANT_ID}`, 'the id of a grant', undefined, 400, 'id'),
  adminRow('DELETE', `/admin/v1/quotas/${A_QUOTA_ID}`, 'an unknown quota', undefined, 404, 'id'),
]

// A range of days the answer cannot cover (a "to" before "from", more than MAX_USAGE_DAYS) is
// answered for the days it can (test/routes/admin.test.ts), not refused: the document cannot say it.
const ADMIN_USAGE_ROWS: BadInputCase[] = [
  ...getRoute('/admin/v1/usage?principal=apiKey:web', ADMIN),
  ...(
    [
      ['key=web', 'key'],
      ['key=web&principal=apiKey:web', 'key'],
      ['principal=web', 'principal'],
      ['principal=apiKey:a%0Ab', 'principal'],
      ['principal=apiKey:web&from=2026-13-01', 'from'],
      ['principal=apiKey:web&to=yesterday', 'to'],
      ['principal=apiKey:web&day=2026-11-23', 'day'],
    ] as const
  ).map(([query, errorPath]) =>
    adminRow(
      'GET',
      `/admin/v1/usage?${query}`,
      query || 'no parameters',
      undefined,
      400,
      errorPath,
    ),
  ),
  ...getRoute('/admin/v1/usage/top', ADMIN),
  ...(
    [
      ['by=everything', 'by'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['from=2026-02-30', 'from'],
      ['principal=apiKey:web', 'principal'],
    ] as const
  ).map(([query, errorPath]) =>
    adminRow('GET', `/admin/v1/usage/top?${query}`, query, undefined, 400, errorPath),
  ),
]

const EXPLAIN_VALID = { caller: { key: 'web' }, action: 'read', origin: 'photos', key: 'a.jpg' }
const explainRow = (name: string, body: unknown, errorPath: string) =>
  adminRow('POST', '/admin/v1/explain', name, body, 400, errorPath)

const ADMIN_EXPLAIN_ROWS: BadInputCase[] = [
  ...jsonPostRoute(
    '/admin/v1/explain',
    EXPLAIN_VALID,
    MAX_SMALL_BODY_BYTES,
    ['GET', 'PUT', 'DELETE', 'PATCH'],
    ADMIN,
  ),
  explainRow('no caller', { ...EXPLAIN_VALID, caller: undefined }, 'caller'),
  explainRow(
    'a caller with both',
    { ...EXPLAIN_VALID, caller: { key: 'web', claims: {} } },
    'caller',
  ),
  explainRow('claims that are a list', { ...EXPLAIN_VALID, caller: { claims: [] } }, 'caller'),
  explainRow('a key id with SQL', { ...EXPLAIN_VALID, caller: { key: "x'--" } }, 'caller.key'),
  explainRow('an unknown action', { ...EXPLAIN_VALID, action: 'admin' }, 'action'),
  explainRow('no origin', { ...EXPLAIN_VALID, origin: undefined }, 'origin'),
  explainRow('a key of 1025 characters', { ...EXPLAIN_VALID, key: 'k'.repeat(1025) }, 'key'),
  explainRow('a negative length', { ...EXPLAIN_VALID, contentLength: -1 }, 'contentLength'),
  explainRow('an expiry past seven days', { ...EXPLAIN_VALID, expiresIn: 604_801 }, 'expiresIn'),
  explainRow('an unknown field', { ...EXPLAIN_VALID, colour: 'blue' }, 'colour'),
]

const ADMIN_AUDIT_ROWS: BadInputCase[] = [
  ...getRoute('/admin/v1/audit', ADMIN),
  ...(
    [
      ['action=nope', 'action'],
      ['action=key.destroy', 'action'],
      ['outcome=maybe', 'outcome'],
      ['from=yesterday', 'from'],
      ['to=2026-11-23', 'to'],
      ['key=a%20b', 'key'],
      ['cursor=..%2Fx', 'cursor'],
      ['limit=0', 'limit'],
      ['colour=blue', 'colour'],
    ] as const
  ).map(([query, errorPath]) =>
    adminRow('GET', `/admin/v1/audit?${query}`, query, undefined, 400, errorPath),
  ),
]

const importRow = (name: string, body: unknown, errorPath: string, status = 400) =>
  adminRow('POST', '/admin/v1/import', name, body, status, errorPath)
const SECRET = { prefix: 'wb_abcd', createdAt: '2026-11-23T00:00:00Z', expiresAt: null }
const IMPORTED_KEY = {
  id: 'imported',
  label: null,
  createdAt: '2026-11-23T00:00:00Z',
  expiresAt: null,
  revokedAt: null,
  secrets: [{ ...SECRET, sha256: 'a'.repeat(64) }],
}

const ADMIN_CONFIG_ROWS: BadInputCase[] = [
  ...getRoute('/admin/v1/export', ADMIN),
  adminRow('GET', '/admin/v1/export?secrets=all', 'secrets=all', undefined, 400, 'secrets'),
  adminRow('GET', '/admin/v1/export?colour=blue', 'colour=blue', undefined, 400, 'colour'),
  ...jsonPostRoute(
    '/admin/v1/import',
    { version: 1 },
    MAX_IMPORT_BODY_BYTES,
    ['GET', 'PUT', 'DELETE', 'PATCH'],
    ADMIN,
  ),
  importRow('no version', {}, 'version'),
  importRow('another version', { version: 2 }, 'version'),
  importRow('keys that are not a list', { version: 1, keys: {} }, 'keys'),
  importRow(
    'a key without its secrets',
    { version: 1, keys: [{ ...IMPORTED_KEY, secrets: [SECRET] }] },
    'keys.0.secrets.0.sha256',
  ),
  importRow(
    'a secret whose hash is not hex',
    { version: 1, keys: [{ ...IMPORTED_KEY, secrets: [{ ...SECRET, sha256: 'z'.repeat(64) }] }] },
    'keys.0.secrets.0.sha256',
  ),
  importRow(
    'a grant with an unknown action',
    {
      version: 1,
      grants: [
        {
          id: 'g_0000000000000000000',
          createdAt: '2026-11-23T00:00:00Z',
          grant: { to: 'apiKey:web', origin: 'photos', actions: ['fly'] },
        },
      ],
    },
    'grants.0.grant.actions.0',
  ),
  importRow(
    'a quota with no limit',
    {
      version: 1,
      quotas: [
        {
          id: 'q_0000000000000000000',
          createdAt: '2026-11-23T00:00:00Z',
          to: 'apiKey:web',
          origin: 'photos',
          maxObjects: null,
          maxBytes: null,
          windowS: 3600,
        },
      ],
    },
    'quotas.0.maxObjects',
  ),
  importRow(
    'a revocation of another kind',
    {
      version: 1,
      revocations: [
        { id: 'r_0000000000000000000', createdAt: '2026-11-23T00:00:00Z', kind: 'all' },
      ],
    },
    'revocations.0.kind',
  ),
  importRow('an unknown field', { version: 1, colour: 'blue' }, 'colour'),
]

/** Every row of the matrix. */
export const BAD_INPUT_CASES: readonly BadInputCase[] = [
  ...SIGN_ROWS,
  ...COOKIE_ROWS,
  ...REDIRECT_ROWS,
  ...LIST_ROWS,
  ...UPLOAD_ROWS,
  ...UPLOAD_RULES_ROWS,
  ...MULTIPART_ROWS,
  ...LINK_ROWS,
  ...OTHER_ROWS,
  ...ADMIN_KEY_ROWS,
  ...ADMIN_GRANT_ROWS,
  ...ADMIN_REVOCATION_ROWS,
  ...ADMIN_QUOTA_ROWS,
  ...ADMIN_USAGE_ROWS,
  ...ADMIN_AUDIT_ROWS,
  ...ADMIN_EXPLAIN_ROWS,
  ...ADMIN_CONFIG_ROWS,
]
