// A body read whole, but never past a limit: request bodies (src/middleware/json-body.ts) and what
// the Worker fetches (a JWKS, src/auth/jwks.ts).

/**
 * Reads a whole body, stopping (and cancelling the stream) as soon as it passes `limitBytes`.
 * Returns undefined when the body is too large, so a caller never buffers more than the limit.
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  limitBytes: number,
): Promise<Uint8Array | undefined> {
  if (body === null) return new Uint8Array(0)
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limitBytes) {
      await reader.cancel()
      return undefined
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}
