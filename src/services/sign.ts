// Signing a batch for POST /v1/sign: authorize it whole, then sign it as JSON or as NDJSON lines.

import { actionFor, type Permit } from '../auth/policy'
import type { Principal } from '../principal'
import type { Config, Origin } from '../config'
import { STREAM_CHUNK_ITEMS } from '../limits'
import { commonKeyPrefix } from '../core/keys'
import type { ObjectItem } from '../origins/types'
import { WaybillError, type FieldError } from '../errors'
import type { SignBody } from '../schemas/sign'
import { objectItem } from './objects'
import { mintingFor, permitFor } from './permits'
import { quotaFor } from '../control/quota'
import { batchSigner, type BatchSigner } from './signers'

/** What the request asks that the origin cannot serve. */
function originFits(origin: Origin, body: SignBody, items: readonly ObjectItem[]): FieldError[] {
  const errors: FieldError[] = []
  if (body.policy !== undefined && origin.wildcards === undefined) {
    errors.push({
      path: 'policy',
      message: 'applies to origins with wildcard policies (CloudFront)',
    })
  }
  if (!origin.urls.methods.includes(body.method)) {
    errors.push({
      path: 'method',
      message: `must be ${origin.urls.methods.join(', ')} for origin "${origin.name}"`,
    })
  }
  if (!origin.urls.versions) {
    items.forEach((item, i) => {
      if (item.versionId !== undefined) {
        errors.push({
          path: `items.${i}`,
          message: `versionId is not supported by origin "${origin.name}"`,
        })
      }
    })
  }
  return errors
}

/** An authorized batch, ready to sign as one JSON answer or as NDJSON lines. */
export interface SignedBatch {
  readonly permit: Permit
  readonly size: number
  /** When the batch's URLs expire (all alike). */
  readonly expiresAt: Date
  /** The JSON answer in chunks, signed one chunk per call: `{"origin", …, "urls": […]}`. */
  json(): () => Promise<string | undefined>
  /** Chunks of NDJSON lines, signed one chunk per call. */
  lines(): () => Promise<string | undefined>
}

/**
 * Authorizes a batch (and its debug view, which is its own grant) and prepares its signer.
 *
 * @example
 * const batch = signBatch(config, principal, { origin: 'photos', method: 'GET', keys: ['a.jpg'], debug: false }, now, base)
 * const next = batch.json() // then await next() until it answers undefined
 */
export function signBatch(
  config: Config,
  principal: Principal,
  body: SignBody,
  now: Date,
  base: string,
): SignedBatch {
  const items: readonly ObjectItem[] =
    body.items?.map(objectItem) ?? (body.keys ?? []).map((key) => ({ key }))
  const field = body.keys !== undefined ? 'keys' : 'items'
  const itemPath = field === 'keys' ? (i: number) => `keys.${i}` : (i: number) => `items.${i}.key`
  const common = {
    origin: body.origin,
    items,
    itemPath,
    overridePath: (i: number) => `${field}.${i}.response.contentType`,
    expiresIn: body.expiresIn,
    signingWindow: body.signingWindow,
    fits: (origin: Origin) => originFits(origin, body, items),
  }
  // A wildcard policy reaches every key under the batch's common prefix, not only these.
  const permit = permitFor(
    config,
    principal,
    body.policy === 'wildcard'
      ? {
          ...common,
          kind: 'wildcard',
          pattern: { prefix: commonKeyPrefix(items.map((item) => item.key)), path: 'policy' },
          count: { n: items.length, path: field },
        }
      : { ...common, kind: 'urls', action: actionFor(body.method) },
  )
  if (body.debug) {
    permitFor(config, principal, { kind: 'debug', origin: body.origin, items, itemPath })
  }
  // A bare PUT URL admits any size, which no quota can count: where one counts the caller's
  // uploads, uploads go through POST /v1/uploads, which reserves them.
  const quota =
    permit.action === 'write' ? quotaFor(config.quotas, principal, permit.origin.name) : undefined
  if (quota !== undefined) {
    throw new WaybillError(
      'forbidden',
      `Upload quota ${quota.id} counts this caller's uploads on this origin, and a bare PUT URL admits any size: use POST /v1/uploads.`,
      { errors: [{ path: 'method', message: `PUT is not counted by quota ${quota.id}` }] },
    )
  }
  const signer = batchSigner(permit, {
    method: body.method,
    now,
    minting: mintingFor(config, principal, base),
  })
  const expiresAt = signer.expiresAt.toISOString()
  const line = (item: ObjectItem, url: string) =>
    body.debug
      ? `{"key":${JSON.stringify(item.key)},"url":"${url}","debug":${JSON.stringify(signer.explain(item))}}`
      : `{"key":${JSON.stringify(item.key)},"url":"${url}"}`
  return {
    permit,
    size: items.length,
    expiresAt: signer.expiresAt,
    json: () =>
      chunks(signer, items, line, {
        head: `{"origin":${JSON.stringify(permit.origin.name)},"method":"${body.method}","expiresAt":"${expiresAt}","urls":[`,
        between: ',',
        end: ']}',
      }),
    lines: () => chunks(signer, items, line, { head: '', between: '', end: '', after: '\n' }),
  }
}

/**
 * The batch's answer as chunks of `STREAM_CHUNK_ITEMS` lines, signed one chunk per call: `head`,
 * then each line (followed by `after`, separated by `between`), then `end`. Built whole, a
 * 10,000-URL answer is one 3.7 MB string whose assembly and garbage cost more than a third of
 * its signing; in chunks, each one is encoded and sent while the next is signed.
 */
function chunks(
  signer: BatchSigner,
  items: readonly ObjectItem[],
  line: (item: ObjectItem, url: string) => string,
  shape: { head: string; between: string; end: string; after?: string },
): () => Promise<string | undefined> {
  let next = 0
  let ended = false
  return async () => {
    if (ended) return undefined
    if (next >= items.length) {
      ended = true
      return next === 0 ? shape.head + shape.end : shape.end
    }
    const from = next
    next = Math.min(items.length, next + STREAM_CHUNK_ITEMS)
    // A signed URL needs no JSON escaping: it is printable ASCII with every quote and backslash
    // percent-encoded (S3 query and path encoding; CloudFront URLs go through the same encoder).
    const urls = await signer.sign(from, next)
    // Joined once from flat pieces: appending line after line would build a rope of ropes, and
    // flattening that (to encode it) costs more than writing the pieces out.
    const parts: string[] = [from === 0 ? shape.head : shape.between]
    for (let i = 0; i < urls.length; i++) {
      if (i > 0) parts.push(shape.between)
      parts.push(line(items[from + i]!, urls[i]!))
      if (shape.after !== undefined) parts.push(shape.after)
    }
    if (next >= items.length) {
      ended = true
      parts.push(shape.end)
    }
    return parts.join('')
  }
}
