// The Worker's own S3 API calls (ListObjectsV2, HeadObject, a conditional DeleteObject and the
// multipart lifecycle), signed with aws4fetch. One AwsClient per bucket per isolate; workerd pools
// connections per host, so calls reuse them.
// S3's error documents become problem responses that say what S3 said: a caller's mistake (an
// unknown upload id, a bad part list) is a 4xx, the store's or the configuration's a 502.

import { AwsClient } from 'aws4fetch'
import { S3_LIST_PAGE_MAX, S3_RETRIES, S3_TIMEOUT_MS } from '../../limits'
import { encodeKeyPath, encodeRfc3986 } from '../../core/sigv4/encoding'
import { WaybillError, type ErrorCode } from '../../errors'
import type { CompletedPart, ListPage, ListPageInput, ObjectHead, UploadedPart } from '../types'
import type { Bucket } from './settings'
import { elements, escapeXmlText, text } from './xml'

const clients = new WeakMap<Bucket, AwsClient>()

function clientFor(origin: Bucket): AwsClient {
  let client = clients.get(origin)
  if (client === undefined) {
    client = new AwsClient({
      accessKeyId: origin.credentials.accessKeyId,
      secretAccessKey: origin.credentials.secretAccessKey,
      sessionToken: origin.credentials.sessionToken,
      service: 's3',
      region: origin.region,
      retries: S3_RETRIES,
    })
    clients.set(origin, client)
  }
  return client
}

/** The URL of the bucket (no key) or of an object, with an already encoded query. */
function s3Url(origin: Bucket, key: string | undefined, query: string): string {
  const { protocol, host, basePath } = origin.endpoint
  const path = key === undefined ? `${basePath}/` : `${basePath}/${encodeKeyPath(key)}`
  return `${protocol}//${host}${path}${query === '' ? '' : `?${query}`}`
}

function queryString(params: Record<string, string | number | undefined>): string {
  return Object.entries(params)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => (value === '' ? name : `${name}=${encodeRfc3986(String(value))}`))
    .join('&')
}

// S3 error codes that mean the caller asked for something wrong, and how to answer them.
const CALLER_ERRORS: Readonly<Record<string, ErrorCode>> = {
  NoSuchUpload: 'not_found',
  NoSuchKey: 'not_found',
  InvalidPart: 'invalid_request',
  InvalidPartOrder: 'invalid_request',
  EntityTooSmall: 'invalid_request',
  EntityTooLarge: 'invalid_request',
  InvalidArgument: 'invalid_request',
  MalformedXML: 'invalid_request',
  PreconditionFailed: 'precondition_failed',
}

/** A problem for an S3 error document (or a failed response without one). */
export function s3Error(operation: string, status: number, body: string): WaybillError {
  const code = text(body, 'Code')
  const message = text(body, 'Message')
  const said = code === undefined ? `HTTP ${status}` : `${code}${message ? `: ${message}` : ''}`
  const callerCode = code === undefined ? undefined : CALLER_ERRORS[code]
  if (callerCode !== undefined) {
    return new WaybillError(callerCode, `${operation} was refused by the store: ${said}`)
  }
  return new WaybillError('upstream_error', `${operation} failed at the store: ${said}`)
}

/** One S3 call: the response, once it is known not to be an error (a 404 may be let through). */
async function send(
  origin: Bucket,
  operation: string,
  url: string,
  init: RequestInit,
  allowNotFound = false,
): Promise<{ status: number; headers: Headers; body: string }> {
  let response: Response
  try {
    response = await clientFor(origin).fetch(url, {
      ...init,
      signal: AbortSignal.timeout(S3_TIMEOUT_MS),
    })
  } catch (error) {
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${S3_TIMEOUT_MS / 1000} s`
        : 'the store could not be reached'
    throw new WaybillError('upstream_error', `${operation} failed: ${reason}`)
  }
  const body = await response.text()
  if (allowNotFound && response.status === 404) {
    return { status: 404, headers: response.headers, body }
  }
  // CompleteMultipartUpload can fail after a 200 status, with an Error document as the body.
  if (!response.ok || /^\s*(<\?xml[^>]*>\s*)?<Error>/.test(body)) {
    throw s3Error(operation, response.status, body)
  }
  return { status: response.status, headers: response.headers, body }
}

async function call(
  origin: Bucket,
  operation: string,
  url: string,
  init: RequestInit,
): Promise<string> {
  return (await send(origin, operation, url, init)).body
}

/**
 * HeadObject: the object's size, type, ETag, checksum and the metadata `tagName`; undefined when
 * there is none.
 */
export async function headObject(
  origin: Bucket,
  key: string,
  tagName: string,
): Promise<ObjectHead | undefined> {
  const { status, headers } = await send(
    origin,
    'HeadObject',
    s3Url(origin, key, ''),
    { method: 'HEAD', headers: { 'x-amz-checksum-mode': 'ENABLED' } },
    true,
  )
  if (status === 404) return undefined
  return {
    size: Number(headers.get('content-length') ?? -1),
    contentType: headers.get('content-type') ?? '',
    etag: headers.get('etag') ?? '',
    lastModified: headers.get('last-modified') ?? '',
    checksumSha256: headers.get('x-amz-checksum-sha256') ?? undefined,
    tag: headers.get(`x-amz-meta-${tagName}`) ?? undefined,
  }
}

/**
 * DeleteObject, only while the object is still the one with `etag` (`If-Match`): an object stored
 * since it was looked at is not deleted (the store answers 412, a `precondition_failed`).
 */
export async function deleteObjectIfMatch(
  origin: Bucket,
  key: string,
  etag: string,
): Promise<void> {
  await call(origin, 'DeleteObject', s3Url(origin, key, ''), {
    method: 'DELETE',
    headers: { 'if-match': etag },
  })
}

/** One ListObjectsV2 page. */
export async function listObjectsPage(origin: Bucket, input: ListPageInput): Promise<ListPage> {
  const query = queryString({
    'continuation-token': input.continuationToken,
    delimiter: input.delimiter,
    'list-type': 2,
    'max-keys': input.maxKeys,
    prefix: input.prefix,
    'start-after': input.startAfter,
  })
  const xml = await call(origin, 'ListObjectsV2', s3Url(origin, undefined, query), {})
  const objects = elements(xml, 'Contents').map((entry) => ({
    key: text(entry, 'Key') ?? '',
    size: Number(text(entry, 'Size') ?? 0),
    etag: text(entry, 'ETag') ?? '',
    lastModified: text(entry, 'LastModified') ?? '',
  }))
  const prefixes = elements(xml, 'CommonPrefixes').map((entry) => text(entry, 'Prefix') ?? '')
  const truncated = text(xml, 'IsTruncated') === 'true'
  return { objects, prefixes, next: truncated ? text(xml, 'NextContinuationToken') : undefined }
}

export interface CreateUploadInput {
  contentType: string
  metadata?: Readonly<Record<string, string>> | undefined
  /** Every part carries its SHA-256, and the object a composite checksum of them. */
  checksumSha256?: boolean | undefined
}

/** CreateMultipartUpload: the new upload's id. */
export async function createMultipartUpload(
  origin: Bucket,
  key: string,
  input: CreateUploadInput,
): Promise<string> {
  const headers: Record<string, string> = { 'content-type': input.contentType }
  if (input.checksumSha256 === true) {
    headers['x-amz-checksum-algorithm'] = 'SHA256'
    headers['x-amz-checksum-type'] = 'COMPOSITE'
  }
  for (const [name, value] of Object.entries(input.metadata ?? {})) {
    headers[`x-amz-meta-${name}`] = value
  }
  const xml = await call(origin, 'CreateMultipartUpload', s3Url(origin, key, 'uploads'), {
    method: 'POST',
    headers,
  })
  const uploadId = text(xml, 'UploadId')
  if (uploadId === undefined || uploadId === '') {
    throw new WaybillError('upstream_error', 'CreateMultipartUpload answered without an UploadId')
  }
  return uploadId
}

/**
 * CompleteMultipartUpload with the caller's parts (ascending part numbers). With `ifNoneMatch`,
 * an object already at the key is not replaced (the store answers 412, a `precondition_failed`).
 */
export async function completeMultipartUpload(
  origin: Bucket,
  key: string,
  uploadId: string,
  parts: readonly CompletedPart[],
  options: { ifNoneMatch: boolean },
): Promise<{ etag: string }> {
  let body = '<CompleteMultipartUpload>'
  for (const part of parts) {
    const checksum =
      part.checksumSha256 === undefined
        ? ''
        : `<ChecksumSHA256>${escapeXmlText(part.checksumSha256)}</ChecksumSHA256>`
    body += `<Part><PartNumber>${part.partNumber}</PartNumber><ETag>${escapeXmlText(part.etag)}</ETag>${checksum}</Part>`
  }
  body += '</CompleteMultipartUpload>'
  const headers: Record<string, string> = { 'content-type': 'application/xml' }
  if (options.ifNoneMatch) headers['if-none-match'] = '*'
  const xml = await call(
    origin,
    'CompleteMultipartUpload',
    s3Url(origin, key, queryString({ uploadId })),
    { method: 'POST', headers, body },
  )
  return { etag: text(xml, 'ETag') ?? '' }
}

/** ListParts, every page: the parts of an upload in progress, ascending. */
export async function listParts(
  origin: Bucket,
  key: string,
  uploadId: string,
): Promise<UploadedPart[]> {
  const parts: UploadedPart[] = []
  let marker: string | undefined
  for (;;) {
    const query = queryString({
      'max-parts': S3_LIST_PAGE_MAX,
      'part-number-marker': marker,
      uploadId,
    })
    const xml = await call(origin, 'ListParts', s3Url(origin, key, query), {})
    for (const part of elements(xml, 'Part')) {
      parts.push({
        partNumber: Number(text(part, 'PartNumber') ?? 0),
        etag: text(part, 'ETag') ?? '',
        size: Number(text(part, 'Size') ?? -1),
        checksumSha256: text(part, 'ChecksumSHA256'),
      })
    }
    marker = text(xml, 'NextPartNumberMarker')
    if (text(xml, 'IsTruncated') !== 'true' || marker === undefined || marker === '') return parts
  }
}

/** AbortMultipartUpload. */
export async function abortMultipartUpload(
  origin: Bucket,
  key: string,
  uploadId: string,
): Promise<void> {
  await call(origin, 'AbortMultipartUpload', s3Url(origin, key, queryString({ uploadId })), {
    method: 'DELETE',
  })
}
