// A fake waybill and bucket behind one fetch function, for the client's unit tests: the routes the
// client calls, and a bucket that stores PUTs, POST forms and multipart parts. Every request is
// logged; hooks inject failures.
//
// It is held to the server's own schemas, those docs/openapi.json is generated from: a request
// they refuse is answered 400 as waybill answers it, and an answer of the fake's (or a hook's)
// that they would not describe is a violation, which fails the test that made it. Its part plan
// is the server's (src/core/s3/parts.ts).

import * as v from 'valibot'
import { onTestFinished, expect } from 'vitest'
import type { ProblemCode } from '../../client/src/errors.ts'
import { choosePartSize, partCountOf } from '../../src/core/s3/parts.ts'
import { LinksAnswer, LinksBody } from '../../src/schemas/links.ts'
import { ListAnswer, ListQuery } from '../../src/schemas/list.ts'
import { SignAnswer, SignBody } from '../../src/schemas/sign.ts'
import {
  AbortBody,
  CheckAnswer,
  CheckBody,
  CompleteAnswer,
  CompleteBody,
  ListPartsAnswer,
  ListPartsBody,
  PartsAnswer,
  PartsBody,
  UploadAnswer,
  UploadBody,
} from '../../src/schemas/uploads.ts'
import { UploadRulesAnswer, UploadRulesQuery } from '../../src/schemas/upload-rules.ts'
import type { UploadRule } from '../../client/src/types.ts'

export const WAYBILL = 'https://waybill.test'
export const BUCKET = 'https://bucket.test'

/** Each route the client calls: what waybill validates its request with, and describes its answer by. */
const ROUTES: ReadonlyArray<{
  path: RegExp
  request: v.GenericSchema
  answer?: v.GenericSchema
  query?: true
}> = [
  { path: /^\/v1\/sign$/, request: SignBody, answer: SignAnswer },
  { path: /^\/v1\/list\/[^/]+$/, request: ListQuery, answer: ListAnswer, query: true },
  { path: /^\/v1\/links$/, request: LinksBody, answer: LinksAnswer },
  { path: /^\/v1\/uploads$/, request: UploadBody, answer: UploadAnswer },
  {
    path: /^\/v1\/uploads\/rules$/,
    request: UploadRulesQuery,
    answer: UploadRulesAnswer,
    query: true,
  },
  { path: /^\/v1\/uploads\/multipart\/parts$/, request: PartsBody, answer: PartsAnswer },
  { path: /^\/v1\/uploads\/multipart\/list$/, request: ListPartsBody, answer: ListPartsAnswer },
  { path: /^\/v1\/uploads\/multipart\/complete$/, request: CompleteBody, answer: CompleteAnswer },
  { path: /^\/v1\/uploads\/multipart\/abort$/, request: AbortBody },
  { path: /^\/v1\/uploads\/complete$/, request: CheckBody, answer: CheckAnswer },
]

/** A token shaped as waybill's sealed ones (payload, dot, 22-character tag), holding `value`. */
/** A token shaped as waybill's sealed tokens are (`<kid>.<payload>.<tag>`, src/core/token.ts). */
export const seal = (value: unknown) =>
  `fake.${btoa(JSON.stringify(value)).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '')}.${'t'.repeat(22)}`
const unseal = (token: string): unknown => {
  try {
    return JSON.parse(atob(token.split('.')[1]!.replaceAll('-', '+').replaceAll('_', '/')))
  } catch {
    return undefined
  }
}

const issuesOf = (issues: readonly v.BaseIssue<unknown>[]) =>
  issues.map((issue) => ({ path: v.getDotPath(issue) ?? '', message: issue.message }))

/** The query as Hono's validator gives it: a repeated parameter as an array. */
function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {}
  for (const name of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(name)
    query[name] = all.length === 1 ? all[0]! : all
  }
  return query
}

export interface LoggedRequest {
  method: string
  url: URL
  headers: Headers
  /** The JSON body of an API call. */
  body?: Record<string, unknown>
  /** The status it was answered with (unset for a network error). */
  status?: number
}

interface StoredObject {
  bytes: Uint8Array
  contentType: string
  etag: string
  /** The SHA-256 the upload signed (base64), kept by the store as S3 keeps it. */
  checksum?: string | undefined
}

interface MultipartUpload {
  key: string
  contentLength: number
  contentType: string
  partSize: number
  parts: Map<number, { etag: string; bytes: Uint8Array; checksum?: string | undefined }>
  /** Created with partChecksums: every part carries its SHA-256. */
  checksums: boolean
}

/** The base64 SHA-256 of `bytes`, as a store checks `x-amz-checksum-sha256`. */
async function sha256Base64(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))
  return btoa(String.fromCharCode(...digest))
}

export interface FakeOptions {
  /** The origin's store takes no POST uploads (waybill answers 400 on `mode`). */
  noPost?: boolean
  /** Content types the grant admits; anything else is a 400 naming contentType. */
  contentTypes?: readonly string[]
  /** How long signed URLs live, in ms. Default 900 s. */
  urlLifeMs?: number
  /** Part URLs in the answer that starts a multipart upload. Default 100, as waybill's. */
  firstParts?: number
  /** Objects a listing answers, in order. */
  listing?: ReadonlyArray<{ key: string; size: number }>
  /** Bucket answers carry no ETag (CORS rules that do not expose it). */
  hideEtag?: boolean
  /** What `GET /v1/uploads/rules` answers. Default: one rule that admits anything. */
  rules?: readonly UploadRule[]
}

/** An upload rule of a grant that limits nothing but the action. */
export const ANY_RULE: UploadRule = {
  prefix: '',
  uploadKey: null,
  contentTypes: null,
  admittedTypes: null,
  maxContentLength: null,
  modes: ['put', 'multipart'],
  overwrite: false,
  maxExpiresIn: 604_800,
  maxBatch: 10_000,
}

/** Runs before a request is served: a Response answers it, a thrown error is a network error. */
type Hook = (request: LoggedRequest) => Response | undefined | Promise<Response | undefined>

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', date: new Date().toUTCString(), ...headers },
  })

export const problem = (status: number, code: ProblemCode, detail: string, errors?: unknown[]) =>
  new Response(
    JSON.stringify({ type: `urn:waybill:problem:${code}`, title: code, status, detail, errors }),
    {
      status,
      headers: { 'content-type': 'application/problem+json', 'waybill-request-id': 'req-1' },
    },
  )

const s3Error = (status: number, code: string, message: string) =>
  new Response(`<Error><Code>${code}</Code><Message>${message}</Message></Error>`, {
    status,
    headers: { 'content-type': 'application/xml' },
  })

const str = (value: unknown) => (typeof value === 'string' ? value : undefined)
const num = (value: unknown) => (typeof value === 'number' ? value : undefined)
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export function fakeWaybill(options: FakeOptions = {}) {
  const violations: string[] = []
  onTestFinished(() => {
    expect(violations, "the fake's requests and answers against waybill's schemas").toEqual([])
  })
  const log: LoggedRequest[] = []
  const objects = new Map<string, StoredObject>()
  const uploads = new Map<string, MultipartUpload>()
  const hooks: { api?: Hook; bucket?: Hook } = {}
  const forms: string[][] = []
  let nextId = 0
  let inFlight = 0
  let maxInFlight = 0
  const life = () => options.urlLifeMs ?? 900_000

  const expiry = () => {
    const at = Date.now() + life()
    return { exp: at, expiresAt: new Date(at).toISOString() }
  }
  const partUrl = (uploadId: string, n: number, exp: number) =>
    `${BUCKET}/part/${encodeURIComponent(uploadId)}?partNumber=${n}&exp=${exp}`

  function issue(mode: string, item: Record<string, unknown>, at: string) {
    const filename = str(item.filename)
    const key = str(item.key) ?? `uploads/k/${++nextId}-${filename}`
    const contentType = str(item.contentType) ?? ''
    if (options.contentTypes && !options.contentTypes.includes(contentType)) {
      return {
        error: {
          path: `${at}contentType`,
          message: `"${contentType}" is not a type the grant admits`,
        },
      }
    }
    const size = num(item.contentLength)
    const checksum = str(item.checksumSha256)
    const receipt = seal({ key, contentType, size, mode, checksum })
    const { exp, expiresAt } = expiry()
    if (mode === 'post') {
      return {
        grant: {
          mode: 'post',
          method: 'POST',
          key,
          url: `${BUCKET}/post?exp=${exp}`,
          fields: {
            key,
            'Content-Type': contentType,
            ...(checksum === undefined ? {} : { 'x-amz-checksum-sha256': checksum }),
            policy: 'p',
            'x-amz-signature': 's',
          },
          receipt,
          expiresAt,
        },
      }
    }
    return {
      grant: {
        mode: 'put',
        method: 'PUT',
        key,
        url: `${BUCKET}/object/${encodeURIComponent(key)}?exp=${exp}`,
        headers: {
          'content-type': contentType,
          'content-length': String(size),
          // As waybill: never replacing an object unless asked, and signing the checksum given.
          ...(item.overwrite === true ? {} : { 'if-none-match': '*' }),
          ...(checksum === undefined ? {} : { 'x-amz-checksum-sha256': checksum }),
        },
        receipt,
        expiresAt,
      },
    }
  }

  function api(request: LoggedRequest): Response {
    const { url, body = {} } = request
    const path = url.pathname
    const origin = str(body.origin) ?? ''
    if (path === '/v1/sign') {
      const keys = Array.isArray(body.keys) ? body.keys.map(String) : []
      const { expiresAt } = expiry()
      const urls = keys.map((key) => ({ key, url: `${BUCKET}/object/${encodeURIComponent(key)}` }))
      if (request.headers.get('accept') === 'application/x-ndjson') {
        // Split mid-line, to prove lines are put back together.
        const text = urls.map((u) => JSON.stringify(u) + '\n').join('')
        const cut = Math.floor(text.length / 2)
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(text.slice(0, cut)))
            controller.enqueue(new TextEncoder().encode(text.slice(cut)))
            controller.close()
          },
        })
        return new Response(stream, {
          headers: { 'content-type': 'application/x-ndjson', 'waybill-expires-at': expiresAt },
        })
      }
      return json({ origin, method: 'GET', expiresAt, urls })
    }
    if (path.startsWith('/v1/list/')) {
      const all = options.listing ?? []
      const limit = Number(url.searchParams.get('limit') ?? 1000)
      const cursor0 = url.searchParams.get('cursor')
      const from = cursor0 === null ? 0 : Number(unseal(cursor0))
      const items = all.slice(from, from + limit).map((o) => ({
        ...o,
        etag: '"e"',
        lastModified: '2026-11-23T10:00:00.000Z',
        url: `${BUCKET}/object/${encodeURIComponent(o.key)}`,
      }))
      const cursor = from + limit < all.length ? seal(from + limit) : null
      if (request.headers.get('accept') === 'application/x-ndjson') {
        const lines = [...items, { prefixes: [], cursor }].map((l) => JSON.stringify(l) + '\n')
        return new Response(lines.join(''), {
          headers: { 'content-type': 'application/x-ndjson' },
        })
      }
      return json({
        origin: path.slice('/v1/list/'.length),
        items,
        prefixes: [],
        cursor,
        expiresAt: null,
      })
    }
    if (path === '/v1/uploads/rules') {
      return json({ origin: url.searchParams.get('origin'), rules: options.rules ?? [ANY_RULE] })
    }
    if (path === '/v1/links') {
      const keys = Array.isArray(body.keys) ? body.keys.map(String) : []
      return json({
        origin,
        expiresAt: expiry().expiresAt,
        ...(typeof body.maxUses === 'number' ? { maxUses: body.maxUses } : {}),
        links: keys.map((key, i) => ({
          key,
          url: `${WAYBILL}/l/${encodeURIComponent(key)}`,
          id: `link${i}`,
        })),
      })
    }
    if (path === '/v1/uploads') {
      const mode = str(body.mode) ?? 'put'
      if (mode === 'post' && body.overwrite !== true) {
        // As waybill: a POST form replaces what is at its key, so the request must say so.
        return problem(400, 'invalid_request', 'overwrite: must be true for mode "post"', [
          { path: 'overwrite', message: 'must be true for mode "post"' },
        ])
      }
      if (mode === 'post' && options.noPost) {
        return problem(
          400,
          'invalid_request',
          'mode: this origin\'s store does not accept POST uploads (postPolicy: false); use "put" or "multipart"',
          [{ path: 'mode', message: "this origin's store does not accept POST uploads" }],
        )
      }
      if (mode === 'multipart') {
        const contentLength = num(body.contentLength) ?? 0
        const partSize = choosePartSize(contentLength, num(body.partSize))
        const filename = str(body.filename)
        const key = str(body.key) ?? `uploads/k/${++nextId}-${filename}`
        const uploadId = seal(`upload-${++nextId}`)
        const partChecksums = Array.isArray(body.partChecksums)
          ? body.partChecksums.map(String)
          : undefined
        uploads.set(uploadId, {
          key,
          contentLength,
          contentType: str(body.contentType) ?? '',
          partSize,
          parts: new Map(),
          checksums: partChecksums !== undefined,
        })
        const partCount = partCountOf(contentLength, partSize)
        const { exp, expiresAt } = expiry()
        const first = Math.min(partChecksums?.length ?? partCount, options.firstParts ?? 100)
        return json({
          mode: 'multipart',
          method: 'MULTIPART',
          key,
          uploadId,
          partSize,
          partCount,
          parts: Array.from({ length: first }, (_, i) => ({
            partNumber: i + 1,
            url: partUrl(uploadId, i + 1, exp),
          })),
          expiresAt,
        })
      }
      const items = Array.isArray(body.items) ? body.items.filter(isRecord) : undefined
      const issued = (items ?? [body]).map((item, i) =>
        issue(mode, item, items ? `items.${i}.` : ''),
      )
      const errors = issued.flatMap((one) => (one.error ? [one.error] : []))
      if (errors.length > 0) {
        return problem(400, 'invalid_request', `${errors[0]!.path}: ${errors[0]!.message}`, errors)
      }
      const grants = issued.map((one) => one.grant)
      return json(items ? { uploads: grants } : grants[0])
    }
    if (path === '/v1/uploads/complete') {
      const receipt = (unseal(str(body.receipt) ?? '') ?? {}) as Record<string, unknown>
      const key = str(body.key) ?? ''
      const stored = objects.get(key)
      if (stored === undefined)
        return problem(404, 'not_found', 'Nothing has been uploaded at this key yet.')
      // Only this upload's bytes pass: its checksum, or the ETag the store answered it with.
      // As waybill: the signed checksum, unless the store keeps none and the ETag is given.
      const byChecksum =
        typeof receipt.checksum === 'string' &&
        (stored.checksum !== undefined || body.etag === undefined)
      const ours = byChecksum
        ? receipt.checksum === stored.checksum
        : body.etag !== undefined && body.etag === stored.etag
      if (!ours) {
        return problem(
          422,
          'upload_mismatch',
          'The object at this key is not the one this upload stored.',
        )
      }
      if (receipt.size !== undefined && receipt.size !== stored.bytes.length) {
        return problem(
          422,
          'upload_mismatch',
          `The object at this key is not what was signed: size is ${stored.bytes.length} bytes.`,
        )
      }
      return json({
        origin,
        key,
        size: stored.bytes.length,
        contentType: stored.contentType,
        etag: stored.etag,
        lastModified: new Date().toISOString(),
        mode: receipt.mode,
      })
    }
    const uploadId = str(body.uploadId) ?? ''
    const upload = uploads.get(uploadId)
    if (upload === undefined || upload.key !== body.key) {
      return problem(404, 'not_found', 'The store does not know this multipart upload.')
    }
    const partCount = partCountOf(upload.contentLength, upload.partSize)
    if (path === '/v1/uploads/multipart/parts') {
      const { exp, expiresAt } = expiry()
      const numbers = Array.isArray(body.partNumbers) ? body.partNumbers.map(Number) : []
      if (upload.checksums !== Array.isArray(body.checksums)) {
        return problem(
          400,
          'invalid_request',
          'checksums: must be sent exactly when the upload has them',
          [{ path: 'checksums', message: 'must be sent exactly when the upload has them' }],
        )
      }
      return json({
        parts: numbers.map((n) => ({ partNumber: n, url: partUrl(uploadId, n, exp) })),
        expiresAt,
      })
    }
    if (path === '/v1/uploads/multipart/list') {
      return json({
        key: upload.key,
        contentLength: upload.contentLength,
        contentType: upload.contentType,
        partSize: upload.partSize,
        partCount,
        parts: [...upload.parts.entries()]
          .sort(([a], [b]) => a - b)
          .map(([partNumber, part]) => ({
            partNumber,
            etag: part.etag,
            size: part.bytes.length,
            ...(part.checksum === undefined ? {} : { checksumSha256: part.checksum }),
          })),
      })
    }
    if (path === '/v1/uploads/multipart/abort') {
      uploads.delete(uploadId)
      return new Response(null, { status: 204 })
    }
    if (path === '/v1/uploads/multipart/complete') {
      const given = Array.isArray(body.parts) ? body.parts.filter(isRecord) : undefined
      const numbers = given
        ? given.map((p) => Number(p.partNumber))
        : Array.from({ length: partCount }, (_, i) => i + 1)
      const chunks: Uint8Array[] = []
      for (const [i, n] of numbers.entries()) {
        const part = upload.parts.get(n)
        if (part === undefined)
          return problem(400, 'invalid_request', `parts: part ${n} has not been uploaded`)
        if (given && given[i]!.etag !== part.etag) {
          return problem(
            400,
            'invalid_request',
            `parts.${i}.etag: is not the ETag of the uploaded part`,
          )
        }
        chunks.push(part.bytes)
      }
      const bytes = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0))
      let at = 0
      for (const chunk of chunks) {
        bytes.set(chunk, at)
        at += chunk.length
      }
      if (bytes.length !== upload.contentLength) {
        return problem(400, 'invalid_request', `parts: add up to ${bytes.length} bytes`)
      }
      uploads.delete(uploadId)
      const etag = `"mp-${numbers.length}"`
      objects.set(upload.key, { bytes, contentType: upload.contentType, etag })
      return json({
        origin,
        key: upload.key,
        size: bytes.length,
        contentType: upload.contentType,
        etag,
      })
    }
    return problem(404, 'not_found', 'No such route.')
  }

  async function bucket(request: Request, logged: LoggedRequest): Promise<Response> {
    const { url } = logged
    const exp = Number(url.searchParams.get('exp') ?? Infinity)
    if (Date.now() > exp) return s3Error(403, 'AccessDenied', 'Request has expired')
    const etagHeaders = (etag: string): Record<string, string> => (options.hideEtag ? {} : { etag })
    if (request.method === 'PUT' && url.pathname.startsWith('/object/')) {
      const key = decodeURIComponent(url.pathname.slice('/object/'.length))
      if (request.headers.get('if-none-match') === '*' && objects.has(key)) {
        return s3Error(412, 'PreconditionFailed', 'At least one of the pre-conditions failed')
      }
      const bytes = new Uint8Array(await request.arrayBuffer())
      const checksum = request.headers.get('x-amz-checksum-sha256') ?? undefined
      if (checksum !== undefined && checksum !== (await sha256Base64(bytes))) {
        return s3Error(
          400,
          'BadDigest',
          'The SHA256 you specified did not match the calculated checksum.',
        )
      }
      const etag = `"put-${bytes.length}"`
      objects.set(key, {
        bytes,
        contentType: request.headers.get('content-type') ?? '',
        etag,
        checksum,
      })
      return new Response(null, { status: 200, headers: etagHeaders(etag) })
    }
    if (request.method === 'POST' && url.pathname === '/post') {
      const form = await request.formData()
      const names: string[] = []
      form.forEach((_, name) => names.push(name))
      forms.push(names)
      const key = str(form.get('key')) ?? ''
      const file = form.get('file')
      if (!(file instanceof Blob)) return s3Error(400, 'InvalidArgument', 'no file')
      const bytes = new Uint8Array(await file.arrayBuffer())
      const checksum = str(form.get('x-amz-checksum-sha256'))
      if (checksum !== undefined && checksum !== (await sha256Base64(bytes))) {
        return s3Error(
          400,
          'BadDigest',
          'The SHA256 you specified did not match the calculated checksum.',
        )
      }
      const etag = `"post-${bytes.length}"`
      objects.set(key, { bytes, contentType: str(form.get('Content-Type')) ?? '', etag, checksum })
      return new Response(null, { status: 204, headers: etagHeaders(etag) })
    }
    if (request.method === 'PUT' && url.pathname.startsWith('/part/')) {
      const uploadId = decodeURIComponent(url.pathname.slice('/part/'.length))
      const n = Number(url.searchParams.get('partNumber'))
      const upload = uploads.get(uploadId)
      if (upload === undefined) return s3Error(404, 'NoSuchUpload', 'The upload does not exist')
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      try {
        const bytes = new Uint8Array(await request.arrayBuffer())
        // Parts overlap only if they take a moment.
        await new Promise((resolve) => setTimeout(resolve, 2))
        const checksum = request.headers.get('x-amz-checksum-sha256') ?? undefined
        if (upload.checksums && checksum !== (await sha256Base64(bytes))) {
          return s3Error(
            400,
            'BadDigest',
            'The SHA256 you specified did not match the calculated checksum.',
          )
        }
        const etag = `"part-${n}-${bytes.length}"`
        upload.parts.set(n, { etag, bytes, checksum })
        return new Response(null, { status: 200, headers: etagHeaders(etag) })
      } finally {
        inFlight--
      }
    }
    return s3Error(400, 'InvalidRequest', 'not a request this bucket knows')
  }

  /** What waybill's schemas say of a request: undefined when they take it, else its 400. */
  function refused(logged: LoggedRequest): Response | undefined {
    const route = ROUTES.find((r) => r.path.test(logged.url.pathname))
    if (route === undefined) {
      violations.push(`${logged.method} ${logged.url.pathname}: not a route of waybill's`)
      return undefined
    }
    const input = route.query ? queryOf(logged.url) : logged.body
    const result = v.safeParse(route.request, input)
    if (result.success) return undefined
    const errors = issuesOf(result.issues)
    return problem(400, 'invalid_request', `${errors[0]!.path}: ${errors[0]!.message}`, errors)
  }

  /** Checks a 200 answer to `logged` against the schema waybill describes it with. */
  async function conforms(logged: LoggedRequest, response: Response): Promise<void> {
    const route = ROUTES.find((r) => r.path.test(logged.url.pathname))
    const type = response.headers.get('content-type') ?? ''
    if (
      route?.answer === undefined ||
      response.status !== 200 ||
      !type.startsWith('application/json')
    ) {
      return
    }
    const result = v.safeParse(route.answer, await response.clone().json())
    if (!result.success) {
      violations.push(
        `${logged.url.pathname} answered what waybill would not: ${JSON.stringify(issuesOf(result.issues))}`,
      )
    }
  }

  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init)
    const url = new URL(request.url)
    const logged: LoggedRequest = { method: request.method, url, headers: request.headers }
    if (url.origin === WAYBILL) {
      const text = await request.clone().text()
      if (text) logged.body = JSON.parse(text) as Record<string, unknown>
      log.push(logged)
      const response = (await hooks.api?.(logged)) ?? refused(logged) ?? api(logged)
      await conforms(logged, response)
      logged.status = response.status
      return response
    }
    log.push(logged)
    const response = (await hooks.bucket?.(logged)) ?? (await bucket(request, logged))
    logged.status = response.status
    return response
  }

  return {
    fetch,
    log,
    violations,
    objects,
    uploads,
    hooks,
    /** The field names of each POST form, in order. */
    forms,
    /** The most part PUTs the bucket held at once. */
    maxInFlight: () => maxInFlight,
    /** API calls to one path. */
    calls: (path: string) => log.filter((r) => r.url.origin === WAYBILL && r.url.pathname === path),
    /** Part PUTs sent to the bucket, as part numbers. */
    partPuts: () =>
      log
        .filter((r) => r.url.origin === BUCKET && r.url.pathname.startsWith('/part/'))
        .map((r) => Number(r.url.searchParams.get('partNumber'))),
  }
}

/** A Map-backed ResumeStorage, to look into. */
export function memoryStorage() {
  const map = new Map<string, string>()
  return {
    map,
    getItem: (key: string) => map.get(key) ?? null,
    setItem: (key: string, value: string) => void map.set(key, value),
    removeItem: (key: string) => void map.delete(key),
  }
}

/** S3's smallest part, of which multipart tests make their files (waybill refuses smaller ones). */
export const PART = 5 * 1024 * 1024

/**
 * The hex SHA-256 of `bytes`: large ones are compared by it (a deep comparison of tens of MiB
 * takes down the test's worker).
 */
export async function digestOf(bytes: Uint8Array | undefined): Promise<string> {
  if (bytes === undefined) return 'nothing'
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes.slice()))
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** `size` bytes, each different from its neighbours, so a misplaced part shows. */
export function patternBytes(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size)
  for (let i = 0; i < size; i++) bytes[i] = (Math.imul(i + 1, 2654435761) >>> 24) ^ (i & 0xff)
  return bytes
}
