// The upload routes, one typed call each: what `upload()` is built from, and what an adapter for
// another uploader (Uppy's AwsS3 plugin) needs.

import type { CallOptions, Http } from './http.ts'
import type {
  AbortMultipartRequest,
  CheckUploadAnswer,
  CheckUploadRequest,
  CompleteMultipartAnswer,
  CompleteMultipartRequest,
  CreateUploadAnswer,
  CreateUploadRequest,
  ListPartsAnswer,
  ListPartsRequest,
  SignPartsAnswer,
  SignPartsRequest,
} from './types.ts'

/** The upload routes of waybill, with the client's credential, retries and error handling. */
export interface UploadCalls {
  /**
   * `POST /v1/uploads`: a PUT URL, a POST policy or a multipart upload; with `items`, many PUT
   * or POST uploads at once (`{ uploads }`).
   *
   * @example
   * const grant = await client.createUpload({
   *   origin: 'photos', mode: 'put', key: 'a.png', contentType: 'image/png', contentLength: 1234,
   * })
   */
  createUpload(request: CreateUploadRequest, options?: CallOptions): Promise<CreateUploadAnswer>
  /**
   * `POST /v1/uploads/multipart/parts`: URLs for more parts (or fresh ones for expiring URLs).
   *
   * @example
   * const { parts } = await client.signParts({ origin, key, uploadId, partNumbers: [101, 102] })
   */
  signParts(request: SignPartsRequest, options?: CallOptions): Promise<SignPartsAnswer>
  /**
   * `POST /v1/uploads/multipart/list`: the upload's plan and the parts the store holds.
   *
   * @example
   * const { partCount, parts } = await client.listParts({ origin, key, uploadId })
   */
  listParts(request: ListPartsRequest, options?: CallOptions): Promise<ListPartsAnswer>
  /**
   * `POST /v1/uploads/multipart/complete`, once the parts are checked; without `parts`, the
   * store's list of them is used.
   *
   * @example
   * const stored = await client.completeMultipart({ origin, key, uploadId })
   */
  completeMultipart(
    request: CompleteMultipartRequest,
    options?: CallOptions,
  ): Promise<CompleteMultipartAnswer>
  /**
   * `POST /v1/uploads/multipart/abort`: drops the upload and its parts.
   *
   * @example
   * await client.abortMultipart({ origin, key, uploadId })
   */
  abortMultipart(request: AbortMultipartRequest, options?: CallOptions): Promise<void>
  /**
   * `POST /v1/uploads/complete`: checks a finished PUT or POST upload against its receipt; a
   * 422 `upload_mismatch` names each difference.
   *
   * @example
   * const stored = await client.checkUpload({ origin, key: grant.key, receipt: grant.receipt })
   */
  checkUpload(request: CheckUploadRequest, options?: CallOptions): Promise<CheckUploadAnswer>
}

export function uploadCalls(http: Http): UploadCalls {
  const post = <T>(path: string) => {
    return (body: unknown, options?: CallOptions) =>
      http.json<T>({ method: 'POST', path, body }, options)
  }
  return {
    createUpload: post<CreateUploadAnswer>('/v1/uploads'),
    signParts: post<SignPartsAnswer>('/v1/uploads/multipart/parts'),
    listParts: post<ListPartsAnswer>('/v1/uploads/multipart/list'),
    completeMultipart: post<CompleteMultipartAnswer>('/v1/uploads/multipart/complete'),
    // Answered 204: no body.
    abortMultipart: post<undefined>('/v1/uploads/multipart/abort'),
    checkUpload: post<CheckUploadAnswer>('/v1/uploads/complete'),
  }
}
