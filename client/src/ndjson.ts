// NDJSON answers (`Accept: application/x-ndjson`): one JSON value per line, read as they arrive.

import { WaybillError } from './errors.ts'
import { throwIfAborted } from './retry.ts'

/** Each line of `response`'s body, parsed; blank lines are skipped. */
export async function* ndjsonLines(
  response: Response,
  signal?: AbortSignal,
): AsyncGenerator<unknown, void, undefined> {
  if (response.body === null) return
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let buffered = ''
  const parse = (line: string) => {
    try {
      return JSON.parse(line) as unknown
    } catch (error) {
      throw new WaybillError('bad_answer', 'waybill sent a line that is not JSON.', {
        status: response.status,
        cause: error,
      })
    }
  }
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>
      try {
        chunk = await reader.read()
      } catch (error) {
        throwIfAborted(signal)
        throw new WaybillError('network_error', 'waybill stopped sending its answer midway.', {
          status: response.status,
          cause: error,
        })
      }
      buffered += decoder.decode(chunk.value, { stream: !chunk.done })
      let end: number
      while ((end = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, end)
        buffered = buffered.slice(end + 1)
        if (line.trim() !== '') yield parse(line)
      }
      if (chunk.done) break
    }
    if (buffered.trim() !== '') yield parse(buffered)
  } finally {
    // Stops the download when the caller leaves the loop early.
    await reader.cancel().catch(() => {})
  }
}
