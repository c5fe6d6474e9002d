// What the other entries (waybill-client/uppy, waybill-client/stream) run on: the connection
// and upload engine of a client createClient made, not copies of them.

import { WaybillError } from './errors.ts'
import type { UploadContext } from './upload-common.ts'

const contexts = new WeakMap<object, UploadContext>()

/** Records the context of a client createClient made. */
export const register = <T extends object>(client: T, ctx: UploadContext): T => {
  contexts.set(client, ctx)
  return client
}

/** The context of a client createClient made. */
export function contextOf(client: object): UploadContext {
  const ctx = contexts.get(client)
  if (ctx === undefined) {
    throw new WaybillError('invalid_argument', 'Give the client createClient() answered.')
  }
  return ctx
}
