// Remote JWKS, cached per isolate. A key set is fetched with a timeout and a size cap, trusted for
// JWKS_MAX_AGE_MS, and refetched at most once per JWKS_COOLDOWN_MS when a token names a `kid` the
// cached set lacks (key rotation). When no fetch succeeds and no cached key fits, verification fails
// with `auth_unavailable` (503): an unreachable issuer never lets a token through.
// Not jose's createRemoteJWKSet: once a refetch fails it uses none of its keys and fetches on every
// call, so an issuer outage would refuse every token (test/auth/jwks.test.ts).

import { createLocalJwkSet } from '../core/jwt/jwk-set'
import type { JwkSet, JwsHeader, KeyResolver } from '../core/jwt/types'
import {
  JWKS_COOLDOWN_MS,
  JWKS_MAX_AGE_MS,
  JWKS_MAX_BYTES,
  JWKS_RETRY_AFTER_S,
  JWKS_TIMEOUT_MS,
} from '../limits'
import { WaybillError } from '../errors'
import { readCapped } from '../http/read-capped'

export type Fetch = (input: Request | string, init?: RequestInit) => Promise<Response>

interface Entry {
  resolver?: KeyResolver
  fetchedAt: number
  attemptedAt: number
  /** Whether the last fetch failed. */
  failed: boolean
  pending?: Promise<void> | undefined
}

function unavailable(): WaybillError {
  return new WaybillError(
    'auth_unavailable',
    "The token issuer's keys cannot be fetched right now; try again shortly.",
    { headers: { 'retry-after': String(JWKS_RETRY_AFTER_S) } },
  )
}

/** Fetches one JWK set, or throws. */
async function fetchJwks(url: string, fetchImpl: Fetch): Promise<JwkSet> {
  const response = await fetchImpl(url, {
    headers: { accept: 'application/jwk-set+json, application/json' },
    redirect: 'manual',
    signal: AbortSignal.timeout(JWKS_TIMEOUT_MS),
  })
  if (response.status !== 200) {
    await response.body?.cancel()
    throw new Error(`JWKS answered ${response.status}`)
  }
  if (Number(response.headers.get('content-length') ?? '0') > JWKS_MAX_BYTES) {
    await response.body?.cancel()
    throw new Error('JWKS too large')
  }
  const bytes = await readCapped(response.body, JWKS_MAX_BYTES)
  if (bytes === undefined) throw new Error('JWKS too large')
  const json: unknown = JSON.parse(new TextDecoder().decode(bytes))
  if (typeof json !== 'object' || json === null || !('keys' in json) || !Array.isArray(json.keys)) {
    throw new Error('not a JWK set')
  }
  return json as unknown as JwkSet
}

/**
 * A cache of remote key sets, one per URL. Create one per isolate (the app does) and share it.
 *
 * @example
 * const jwks = new RemoteJwksCache(fetch, Date.now)
 * await jwtVerify(token, jwks.resolver('https://issuer/.well-known/jwks.json'), options)
 */
export class RemoteJwksCache {
  readonly #entries = new Map<string, Entry>()
  readonly #fetch: Fetch
  readonly #now: () => number

  constructor(fetchImpl: Fetch, now: () => number) {
    this.#fetch = fetchImpl
    this.#now = now
  }

  #refresh(url: string, entry: Entry): Promise<void> {
    entry.pending ??= (async () => {
      entry.attemptedAt = this.#now()
      try {
        entry.resolver = createLocalJwkSet(await fetchJwks(url, this.#fetch))
        entry.fetchedAt = this.#now()
        entry.failed = false
      } catch (error) {
        entry.failed = true
        console.error(
          JSON.stringify({
            level: 'warn',
            message: 'JWKS fetch failed',
            url,
            error: error instanceof Error ? error.message : String(error),
          }),
        )
      } finally {
        entry.pending = undefined
      }
    })()
    return entry.pending
  }

  /** A key resolver (src/core/jwt) for tokens whose keys live at `url`. */
  resolver(url: string): KeyResolver {
    return async (header: JwsHeader) => {
      let entry = this.#entries.get(url)
      if (entry === undefined) {
        entry = { fetchedAt: -Infinity, attemptedAt: -Infinity, failed: false }
        this.#entries.set(url, entry)
      }
      const now = this.#now()
      const fresh = now - entry.fetchedAt < JWKS_MAX_AGE_MS
      const mayFetch = now - entry.attemptedAt >= JWKS_COOLDOWN_MS
      if (fresh && entry.resolver !== undefined) {
        try {
          return await entry.resolver(header)
        } catch (error) {
          // An unknown kid may mean the issuer rotated keys: refetch, at most once per cooldown.
          if (!mayFetch) throw error
        }
      }
      if (mayFetch || entry.pending !== undefined) await this.#refresh(url, entry)
      if (entry.resolver === undefined) throw unavailable()
      try {
        // After a failed fetch this is the stale set: a key it still has is better than refusing
        // everyone while the issuer is down.
        return await entry.resolver(header)
      } catch (error) {
        if (entry.failed) throw unavailable()
        throw error
      }
    }
  }
}
