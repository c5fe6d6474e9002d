// API keys: configured as SHA-256 hashes; a presented key is hashed and compared with every
// configured hash in constant time, so neither the match position nor the number of matching bytes
// shows in the timing.

import type { ApiKey } from '../config'

const encoder = new TextEncoder()

/** Byte equality whose running time depends only on the length. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

/** The configured key whose hash matches `presented`, checking every key whatever matches. */
export async function findApiKey(
  keys: readonly ApiKey[],
  presented: string,
): Promise<ApiKey | undefined> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(presented)))
  let found: ApiKey | undefined
  for (const key of keys) {
    if (constantTimeEqual(key.sha256, digest) && found === undefined) found = key
  }
  return found
}
