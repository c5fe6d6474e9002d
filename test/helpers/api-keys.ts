// API keys in the form `WAYBILL_API_KEYS` takes, for any test's env (no server needed).

import { sha256Hex } from './hex'

/** `WAYBILL_API_KEYS` for these keys: each one's SHA-256, never the key itself. */
export async function apiKeysBinding(
  keys: readonly { id: string; key: string; label?: string }[],
): Promise<string> {
  const entries = keys.map(async ({ id, key, label }) => ({
    id,
    sha256: await sha256Hex(key),
    label,
  }))
  return JSON.stringify(await Promise.all(entries))
}
