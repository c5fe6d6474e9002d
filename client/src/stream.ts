// waybill-client/stream: the NDJSON forms of signing and listing, for batches of many thousands:
// each object as soon as waybill has signed it. Apart from the core entry, which most pages load
// without needing them.

import type { ListOptions, WaybillClient } from './client.ts'
import { listQuery } from './client.ts'
import { contextOf } from './context.ts'
import { WaybillError } from './errors.ts'
import type { CallOptions } from './http.ts'
import { ndjsonLines } from './ndjson.ts'
import type { ListedObject, SignedUrl, SignRequest } from './types.ts'

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null

/**
 * `POST /v1/sign` as NDJSON: each `{ key, url }` as soon as it is signed, for batches too large
 * to wait for (the expiry is the answer's `Waybill-Expires-At` header).
 *
 * @example
 * import { signStream } from 'waybill-client/stream'
 * for await (const { key, url } of signStream(waybill, { origin: 'photos', keys })) show(key, url)
 */
export async function* signStream(
  client: WaybillClient,
  request: SignRequest,
  options?: CallOptions,
): AsyncGenerator<SignedUrl, void, undefined> {
  const response = await contextOf(client).http.open(
    { method: 'POST', path: '/v1/sign', body: request, accept: 'application/x-ndjson' },
    options,
  )
  for await (const line of ndjsonLines(response, options?.signal)) {
    if (isRecord(line) && typeof line.key === 'string') yield line as SignedUrl
  }
}

/**
 * `GET /v1/list/{origin}` as NDJSON: objects as they are signed, across pages.
 *
 * @example
 * import { listStream } from 'waybill-client/stream'
 * for await (const object of listStream(waybill, 'photos', { limit: 10000 })) index(object)
 */
export async function* listStream(
  client: WaybillClient,
  origin: string,
  options: ListOptions = {},
): AsyncGenerator<ListedObject, void, undefined> {
  const { http } = contextOf(client)
  let cursor = options.cursor
  do {
    const response = await http.open(
      {
        method: 'GET',
        path: `/v1/list/${encodeURIComponent(origin)}`,
        query: listQuery({ ...options, cursor }),
        accept: 'application/x-ndjson',
        cache: options.cache ?? 'no-cache',
      },
      options,
    )
    let ended = false
    for await (const line of ndjsonLines(response, options.signal)) {
      if (!isRecord(line)) continue
      if (typeof line.key === 'string') yield line as ListedObject
      else if ('cursor' in line) {
        // The last line: `{ prefixes, cursor }`.
        ended = true
        cursor = typeof line.cursor === 'string' ? line.cursor : undefined
      }
    }
    if (!ended) {
      throw new WaybillError('bad_answer', 'waybill ended the listing without its last line.')
    }
  } while (cursor !== undefined)
}
