// API keys: configured as SHA-256 hashes; a presented key is hashed and compared with every
// configured hash in constant time, so neither the match position nor the number of matching bytes
// shows in the timing. The hash is the SigV4 hasher's (../core/sigv4/sha256.ts), synchronous: every
// request with an API key pays it, and it costs a fraction of a crypto.subtle.digest call in
// workerd. Keys made through the admin API are looked up by the same hash in D1
// (src/control/plane.ts), never stored otherwise.

import type { ApiKey } from '../config'
import { constantTimeEqual } from '../core/bytes'
import { sha256Text } from '../core/sigv4/sha256'

/** The SHA-256 of a presented key's UTF-8: what is configured or stored of it. */
export function keyDigest(presented: string): Uint8Array {
  return sha256Text(presented)
}

/** The configured key whose hash matches `presented`, checking every key whatever matches. */
export function findApiKey(
  keys: readonly ApiKey[],
  presented: string,
  digest: Uint8Array = keyDigest(presented),
): ApiKey | undefined {
  let found: ApiKey | undefined
  for (const key of keys) {
    if (constantTimeEqual(key.sha256, digest) && found === undefined) found = key
  }
  return found
}
