// The API's request and answer types, taken from the OpenAPI document (openapi.d.ts is generated
// from the server's schemas by `npm run openapi`; never edited by hand).

import type { operations } from './openapi.js'

type JsonBody<K extends keyof operations> = operations[K] extends {
  requestBody: { content: { 'application/json': infer B } }
}
  ? B
  : never
type JsonAnswer<K extends keyof operations> = operations[K] extends {
  responses: { 200: { content: { 'application/json': infer A } } }
}
  ? A
  : never
/**
 * A body that names objects by `keys`, or by `items` with options of their own: either one, per
 * variant of the body (a method's items take that method's options only).
 */
type KeysOrItems<B> = B extends { keys?: unknown; items?: unknown }
  ? Omit<B, 'keys' | 'items'> &
      (
        | { keys: NonNullable<B['keys']>; items?: never }
        | { items: NonNullable<B['items']>; keys?: never }
      )
  : never
/** `POST /v1/sign`: `keys`, or `items` with per-object options (`download`, `inline`, `response` for GET and HEAD). */
export type SignRequest = KeysOrItems<JsonBody<'signUrls'>>
export type SignAnswer = JsonAnswer<'signUrls'>
/** One line of a streamed `POST /v1/sign`. */
export type SignedUrl = SignAnswer['urls'][number]

export type ListPage = JsonAnswer<'listObjects'>
export type ListedObject = ListPage['items'][number]

/** `POST /v1/links`: `keys`, or `items` with `download`, `inline` and `contentType`. */
export type LinksRequest = KeysOrItems<JsonBody<'createLinks'>>
export type LinksAnswer = JsonAnswer<'createLinks'>

export type CreateUploadRequest = JsonBody<'createUpload'>
export type CreateUploadAnswer = JsonAnswer<'createUpload'>
/** One upload as `POST /v1/uploads` answers it: a PUT URL, a POST policy or a multipart upload. */
export type UploadGrant = Exclude<CreateUploadAnswer, { uploads: unknown }>
export type PutGrant = Extract<UploadGrant, { mode: 'put' }>
export type PostGrant = Extract<UploadGrant, { mode: 'post' }>
export type MultipartGrant = Extract<UploadGrant, { mode: 'multipart' }>

export type SignPartsRequest = JsonBody<'signUploadParts'>
export type SignPartsAnswer = JsonAnswer<'signUploadParts'>
export type ListPartsRequest = JsonBody<'listUploadParts'>
export type ListPartsAnswer = JsonAnswer<'listUploadParts'>
export type CompleteMultipartRequest = JsonBody<'completeUpload'>
export type CompleteMultipartAnswer = JsonAnswer<'completeUpload'>
export type AbortMultipartRequest = JsonBody<'abortUpload'>
export type CheckUploadRequest = JsonBody<'checkUpload'>
export type CheckUploadAnswer = JsonAnswer<'checkUpload'>

/** `GET /v1/uploads/rules`: the caller's upload rules on an origin. */
export type UploadRulesAnswer = JsonAnswer<'getUploadRules'>
/** What one write grant lets the caller upload (see docs/openapi.json for each field). */
export type UploadRule = UploadRulesAnswer['rules'][number]
