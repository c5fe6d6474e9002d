// Browser upload forms for an R2 origin, which R2 itself does not take (its S3 API answers a POST
// 501): waybill signs the form's policy as a sealed token and, when the form comes back to the
// Worker, checks every field against it and the file's size against its range before a byte of
// the file is stored. The form is S3's shape (`key`, `Content-Type`, `x-amz-meta-*`,
// `x-amz-checksum-sha256`, `success_action_status`, `policy`, then the file), so browsers, the
// client and Uppy send it as they send one to S3.

import * as v from 'valibot'
import { base64Decode, base64UrlEncode } from '../../core/bytes'
import { boundaryOf, formTrailer, parseFormHead, type FormHead } from '../../core/own/form'
import { ownPath } from '../../core/own/url'
import { checkObjectKey } from '../../core/keys'
import { unsafeKeyReason } from '../../core/key-safety'
import { conceal, reveal, type TokenSecret } from '../../core/token'
import { WaybillError, type FieldError } from '../../errors'
import { MAX_FORM_HEAD_BYTES } from '../../limits'
import { sealed } from '../../schemas/sealed'
import type { ServeContext, UploadTerms } from '../types'
import { forgetCached } from './deliver'
import type { R2Settings } from './settings'
import { bodyLength, storeFailure } from './store'

/** A form policy: what its fields must say, until when, and who answers for it. */
const Policy = v.object({
  /** The key, or the prefix every key starts with (`p`). */
  k: v.string(),
  p: v.boolean(),
  /** The content type, exact; the file's size range; its SHA-256 (base64). */
  t: v.string(),
  lo: v.pipe(v.number(), v.integer()),
  hi: v.pipe(v.number(), v.integer()),
  c: v.optional(v.string()),
  /** Metadata, exact (the upload's tag among it). */
  m: v.record(v.string(), v.string()),
  /** Whether it may replace an object. */
  w: v.boolean(),
  /** success_action_status, when the form sets one. */
  s: v.optional(v.picklist([200, 201, 204])),
  /** Expires (epoch seconds); its id; its issuer, concealed under the id. */
  x: v.pipe(v.number(), v.integer()),
  j: v.string(),
  a: v.string(),
})
type Policy = v.InferOutput<typeof Policy>

const policies = sealed('o-form', Policy, (origin: string) => origin)

const issuerLabel = (id: string) => `o-form-issuer.${id}`

/** A form for `terms` on the R2 origin `origin`: its URL and fields, the file to come last. */
export function signForm(
  origin: string,
  terms: UploadTerms & { successActionStatus?: 200 | 201 | 204 | undefined },
  maxBodyBytes: number,
): { url: string; fields: Record<string, string>; expiresAt: Date } {
  const { minting, length } = terms
  const secret = minting.secrets[0]
  if (secret === undefined) throw new Error('signing needs a secret')
  const expires = Math.floor(terms.now.getTime() / 1000) + terms.expiresIn
  const id = base64UrlEncode(crypto.getRandomValues(new Uint8Array(12)))
  const issuer = minting.issuer === null ? 't' : `k:${minting.issuer}`
  const policy: Policy = {
    k: terms.key,
    p: terms.keyIsPrefix,
    t: terms.contentType,
    lo: length !== undefined && 'exact' in length ? length.exact : 0,
    hi:
      length === undefined
        ? maxBodyBytes
        : 'exact' in length
          ? length.exact
          : Math.min(length.atMost, maxBodyBytes),
    ...(terms.checksumSha256 === undefined ? {} : { c: terms.checksumSha256 }),
    m: { ...terms.metadata },
    w: terms.overwrite,
    ...(terms.successActionStatus === undefined ? {} : { s: terms.successActionStatus }),
    x: expires,
    j: id,
    a: conceal(minting.secrets, secret.id, issuerLabel(id), issuer)!,
  }
  const fields: Record<string, string> = {
    key: terms.keyIsPrefix ? `${terms.key}\${filename}` : terms.key,
    'Content-Type': terms.contentType,
  }
  if (terms.checksumSha256 !== undefined) fields['x-amz-checksum-sha256'] = terms.checksumSha256
  if (terms.successActionStatus !== undefined) {
    fields.success_action_status = String(terms.successActionStatus)
  }
  for (const [name, value] of Object.entries(terms.metadata)) fields[`x-amz-meta-${name}`] = value
  fields.policy = policies.seal(minting.secrets, policy, origin)
  return { url: `${minting.base}/o/${origin}`, fields, expiresAt: new Date(expires * 1000) }
}

/** The form's fields are refused: nothing was stored. */
const refused = (errors: FieldError[]) =>
  new WaybillError(
    'forbidden',
    `The form is not what its policy allows: ${errors[0]!.path} ${errors[0]!.message}. Nothing was stored.`,
    { errors },
  )

/** The issuer a policy names (an API key's id, or null for a token's caller), or undefined. */
function issuerOf(secrets: readonly TokenSecret[], token: string, policy: Policy) {
  const text = reveal(secrets, token.slice(0, token.indexOf('.')), issuerLabel(policy.j), policy.a)
  if (text === 't') return null
  return text?.startsWith('k:') === true ? text.slice(2) : undefined
}

/** What the form's fields say, checked against the policy: the key it stores at. */
function checkFields(
  head: FormHead,
  policy: Policy,
  settings: R2Settings,
): { key: string; errors: FieldError[] } {
  const errors: FieldError[] = []
  const { fields } = head
  const expected = new Map<string, string>([['Content-Type', policy.t]])
  if (policy.c !== undefined) expected.set('x-amz-checksum-sha256', policy.c)
  if (policy.s !== undefined) expected.set('success_action_status', String(policy.s))
  for (const [name, value] of Object.entries(policy.m)) expected.set(`x-amz-meta-${name}`, value)
  for (const name of fields.keys()) {
    if (name !== 'key' && name !== 'policy' && !expected.has(name)) {
      errors.push({ path: name, message: 'is not a field this form’s policy signs' })
    }
  }
  for (const [name, value] of expected) {
    const sent = fields.get(name)
    if (sent !== value) {
      errors.push({
        path: name,
        message: sent === undefined ? `is required: "${value}"` : `must be "${value}"`,
      })
    }
  }
  const template = fields.get('key')
  if (template === undefined) {
    errors.push({ path: 'key', message: 'is required' })
    return { key: '', errors }
  }
  // S3's substitution: the file's own name where the key says ${filename}.
  const key = template.replaceAll('${filename}', head.filename ?? '')
  const problem =
    checkObjectKey(key) ?? (settings.keys === 'safe' ? unsafeKeyReason(key) : undefined)
  if (problem !== undefined) errors.push({ path: 'key', message: problem })
  else if (policy.p ? !key.startsWith(policy.k) || key === policy.k : key !== policy.k) {
    errors.push({
      path: 'key',
      message: policy.p ? `must start with "${policy.k}"` : `must be "${policy.k}"`,
    })
  }
  return { key, errors }
}

/** Reads the body up to the file's first byte: the form's head, and what was read past it. */
async function readHead(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  boundary: string,
): Promise<{ head: FormHead; rest: Uint8Array }> {
  let bytes = new Uint8Array(0)
  for (;;) {
    const parsed = parseFormHead(bytes, boundary)
    if ('head' in parsed) return { head: parsed.head, rest: bytes.subarray(parsed.head.fileStart) }
    if ('fault' in parsed) throw malformed(parsed.fault)
    if (bytes.length > MAX_FORM_HEAD_BYTES) {
      throw malformed(`has more than ${MAX_FORM_HEAD_BYTES} bytes of fields before its file`)
    }
    const { done, value } = await reader.read()
    if (done) throw malformed('ends before its file')
    const grown = new Uint8Array(bytes.length + value.length)
    grown.set(bytes)
    grown.set(value, bytes.length)
    bytes = grown
  }
}

const malformed = (fault: string) =>
  new WaybillError('invalid_request', `The form ${fault}; nothing was stored.`, {
    errors: [{ path: 'body', message: fault }],
  })

/**
 * The file's bytes, `size` of them, from `rest` and then the reader, followed (and checked to be
 * followed) by exactly the closing delimiter: its last byte is handed over only then, so a body
 * that goes on otherwise stores nothing.
 */
function fileStream(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  rest: Uint8Array,
  size: number,
  trailer: Uint8Array,
): { readonly stream: ReadableStream<Uint8Array>; failure(): unknown } {
  const fixed = new FixedLengthStream(size)
  const writer = fixed.writable.getWriter()
  const pump = async () => {
    // Everything but the file's last byte goes as it comes; that byte and the trailer are held.
    const tail = new Uint8Array(trailer.length + 1)
    let sent = 0
    let tailLength = 0
    const take = async (chunk: Uint8Array) => {
      let at = 0
      const pass = Math.max(0, Math.min(chunk.length, size - 1 - sent))
      if (pass > 0) {
        await writer.write(chunk.subarray(0, pass))
        sent += pass
        at = pass
      }
      const left = chunk.length - at
      if (tailLength + left > tail.length) throw malformed('goes on after its closing boundary')
      tail.set(chunk.subarray(at), tailLength)
      tailLength += left
    }
    await take(rest)
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      await take(value)
    }
    const last = size === 0 ? 0 : 1
    const ending = tail.subarray(last, tailLength)
    if (tailLength !== trailer.length + last || ending.some((byte, i) => byte !== trailer[i])) {
      // RFC 2046 lets the CRLF after the closing delimiter go; the file's size is known from the
      // body's length only with it, as browsers, undici, curl and Go send it (workerd's does not).
      const bare = trailer.subarray(0, trailer.length - 2)
      const cut = tail.subarray(tailLength - bare.length, tailLength)
      throw malformed(
        tailLength >= bare.length && cut.every((byte, i) => byte === bare[i])
          ? 'ends without the CRLF after its closing boundary, which waybill needs'
          : 'does not end with its closing boundary after the file',
      )
    }
    if (last === 1) await writer.write(tail.subarray(0, 1))
    await writer.close()
  }
  let failure: unknown
  pump().catch((error: unknown) => {
    failure = error
    return writer.abort(error).catch(() => undefined)
  })
  return { stream: fixed.readable, failure: () => failure }
}

/**
 * Stores a form's file when its policy opens, stands and allows every field and the file's size;
 * answers as S3 does (204, or the form's success_action_status; 201 with S3's XML).
 */
export async function postForm(
  request: Request,
  origin: string,
  settings: R2Settings,
  context: ServeContext,
): Promise<Response> {
  const boundary = boundaryOf(request.headers.get('content-type'))
  if (boundary === undefined) {
    throw new WaybillError('unsupported_media_type', 'A form upload is multipart/form-data.', {
      errors: [{ path: 'Content-Type', message: 'must be multipart/form-data with a boundary' }],
    })
  }
  const total = bodyLength(request, settings)
  const body = request.body as ReadableStream<Uint8Array> | null
  if (body === null) throw malformed('has no body')
  const reader = body.getReader()
  const { head, rest } = await readHead(reader, boundary)
  const token = head.fields.get('policy')
  const opened = token === undefined ? undefined : policies.open(context.secrets, token, origin)
  if (token === undefined || opened === undefined || 'fault' in opened) {
    throw new WaybillError(
      'forbidden',
      'This form carries no policy waybill signed for this origin.',
      {
        errors: [
          {
            path: 'policy',
            message: token === undefined ? 'is required' : 'is not a policy waybill signed here',
          },
        ],
      },
    )
  }
  const policy = opened.value
  const nowS = Math.floor(context.now.getTime() / 1000)
  if (nowS >= policy.x) {
    throw new WaybillError(
      'forbidden',
      `This form's policy expired at ${new Date(policy.x * 1000).toISOString()}.`,
      {
        errors: [{ path: 'policy', message: 'has expired' }],
      },
    )
  }
  const issuer = issuerOf(context.secrets, token, policy)
  const fallen = issuer === undefined ? 'is not known' : await context.fallen(issuer)
  if (fallen !== undefined) {
    throw new WaybillError('forbidden', `The API key that issued this form ${fallen}.`, {
      errors: [{ path: 'policy', message: `was issued by a key that ${fallen}` }],
    })
  }
  const { key, errors } = checkFields(head, policy, settings)
  const trailer = formTrailer(boundary)
  const size = total - head.fileStart - trailer.length
  if (size < 0) throw malformed('is shorter than its Content-Length says')
  if (size < policy.lo || size > policy.hi) {
    errors.push({
      path: 'file',
      message:
        policy.lo === policy.hi
          ? `is ${size} bytes; must be exactly ${policy.lo}`
          : `is ${size} bytes; must be from ${policy.lo} to ${policy.hi}`,
    })
  }
  if (errors.length > 0) throw refused(errors)
  const sha256 = policy.c === undefined ? undefined : base64Decode(policy.c)
  let stored: R2Object | null
  const file = fileStream(reader, rest, size, trailer)
  try {
    stored = await settings.bucket.put(key, file.stream, {
      httpMetadata: { contentType: policy.t },
      customMetadata: policy.m,
      sha256: sha256?.buffer as ArrayBuffer | undefined,
      onlyIf: policy.w ? undefined : { etagDoesNotMatch: '*' },
    })
  } catch (error) {
    // The body's own fault (it went on past its file, or ended early) first, then R2's.
    const fault = file.failure()
    if (fault instanceof WaybillError) throw fault
    if (error instanceof Error && /\(10037\)|SHA-256 checksum/i.test(error.message)) {
      throw new WaybillError(
        'invalid_request',
        'The file does not match the SHA-256 its policy signs; nothing was stored.',
        {
          errors: [{ path: 'file', message: 'does not match the signed SHA-256' }],
        },
      )
    }
    throw storeFailure('PostObject', error)
  }
  if (stored === null) {
    throw new WaybillError(
      'precondition_failed',
      'An object is already stored at this key, and this form may not replace it; nothing was stored.',
      {
        errors: [{ path: 'key', message: 'already holds an object' }],
      },
    )
  }
  const url = new URL(request.url)
  context.waitUntil(forgetCached(origin, key, settings))
  const location = `${url.origin}${ownPath(origin, key)}`
  const headers = { etag: stored.httpEtag, location }
  if (policy.s === 201) {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<PostResponse><Location>${escapeXml(location)}</Location><Bucket>${escapeXml(origin)}</Bucket><Key>${escapeXml(key)}</Key><ETag>${escapeXml(stored.httpEtag)}</ETag></PostResponse>`
    return new Response(xml, {
      status: 201,
      headers: { ...headers, 'content-type': 'application/xml' },
    })
  }
  return new Response(null, { status: policy.s ?? 204, headers })
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (ch) => `&#${ch.charCodeAt(0)};`)
}
