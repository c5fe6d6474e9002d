// waybill-client: a browser client for waybill. Re-exports only.

export { createClient } from './client.ts'
export type { ListOptions, WaybillClient, WaybillClientOptions } from './client.ts'
export type { UploadCalls } from './calls.ts'
export { WaybillError } from './errors.ts'
export type { ClientErrorCode, ErrorCode, FieldError, ProblemCode } from './errors.ts'
export type { AuthProvider, CallOptions, ClientOptions } from './http.ts'
export type { RecordedPart, ResumeRecord, ResumeStorage } from './resume.ts'
export type {
  AbortMultipartRequest,
  CheckUploadAnswer,
  CheckUploadRequest,
  CompleteMultipartAnswer,
  CompleteMultipartRequest,
  CreateUploadAnswer,
  CreateUploadRequest,
  LinksAnswer,
  LinksRequest,
  ListedObject,
  ListPage,
  ListPartsAnswer,
  ListPartsRequest,
  MultipartGrant,
  PostGrant,
  PutGrant,
  SignAnswer,
  SignedUrl,
  SignPartsAnswer,
  SignPartsRequest,
  SignRequest,
  UploadGrant,
  UploadRule,
  UploadRulesAnswer,
} from './types.ts'
export type { UploadState, UploadStatus, UploadTask } from './task.ts'
export type { UploadBatch, UploadEntry, UploadManyOptions } from './upload.ts'
export type { UploadMode, UploadOptions, UploadProgress, UploadResult } from './upload-common.ts'
