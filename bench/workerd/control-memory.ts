// How much memory the control plane's per-isolate caches hold when full (bench/control.mjs, in
// Node with --expose-gc, which workerd does not offer). The real ControlPlane and config, over a
// stand-in for D1 that answers each statement the plane sends with rows shaped as D1's: a key with
// one grant, a caller with one grant, no link revocations.

import { parseConfig } from '../../src/config/load'
import { ControlPlane } from '../../src/control/plane'
import type { Principal } from '../../src/principal'

// Node's, where this runs (the Worker types know no process).
declare const process: { memoryUsage(): { heapUsed: number } }

const encoder = new TextEncoder()
const sha256 = async (text: string) =>
  new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)))
const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')

const grant = (to: string, prefix: string) => ({
  to,
  origin: 'photos',
  prefix,
  actions: ['read', 'write'],
  maxExpiresIn: 3600,
  maxLinkExpiresIn: 3600,
  wildcard: false,
  deleteMismatched: false,
  overwrite: false,
})

/** Rows for a statement, by what it selects. */
function rowsFor(sql: string, values: unknown[]): unknown[] {
  if (sql.includes('FROM control_epoch')) return [{ epoch: 1 }]
  if (sql.includes('FROM api_key_secrets s')) {
    const id = `k_${String(values[0]).slice(0, 16)}`
    return [
      {
        id,
        expires_at: null,
        revoked_at: null,
        secret_expires_at: null,
        grants: JSON.stringify([[`g_${id}`, grant(`apiKey:${id}`, `tenants/${id}/`)]]),
        quotas: '[]',
      },
    ]
  }
  if (sql.includes('FROM revocations')) return []
  const [sub] = JSON.parse(String(values[0])) as string[]
  return [{ grants: JSON.stringify([[`g_${sub}`, grant(sub!, 'users/{sub}/')]]), quotas: '[]' }]
}

function fakeD1(): D1Database {
  const statement = (sql: string, values: unknown[] = []): D1PreparedStatement =>
    ({
      bind: (...bound: unknown[]) => statement(sql, bound),
      all: () => Promise.resolve({ results: rowsFor(sql, values) }),
      first: () => Promise.resolve(rowsFor(sql, values)[0] ?? null),
    }) as unknown as D1PreparedStatement
  return {
    prepare: (sql: string) => statement(sql),
    batch: (statements: D1PreparedStatement[]) => Promise.all(statements.map((s) => s.all())),
  } as unknown as D1Database
}

/**
 * Heap bytes the caches hold after `keys` key lookups, `callers` token callers and `links`
 * followed links, each distinct (so each a miss, then an entry), measured with `gc` between.
 */
export async function cacheMemory(
  counts: { keys: number; callers: number; links: number },
  gc: () => void,
): Promise<{ bytes: number }> {
  const result = parseConfig({
    WAYBILL_ORIGINS: JSON.stringify({
      photos: { type: 's3', bucket: 'photos', region: 'eu-west-1', credentials: 'BENCH' },
    }),
    BENCH_ACCESS_KEY_ID: 'AKIDBENCHMARK',
    BENCH_SECRET_ACCESS_KEY: 'bench/secret/not+real',
    WAYBILL_TOKEN_SECRETS: JSON.stringify([
      { id: 'b1', secret: 'bench-link-secret-not-a-secret-0' },
    ]),
    WAYBILL_DB: fakeD1(),
  })
  if (!result.ok) throw new Error(JSON.stringify(result.errors))
  const { config } = result
  const plane = new ControlPlane()
  const now = new Date('2026-11-23T10:00:00Z')
  const defer = () => undefined
  // Inputs made before the first reading, so that only the caches' growth is measured.
  const keys = await Promise.all(
    Array.from({ length: counts.keys }, async (_, i) => {
      const presented = `wb_${base64url(await sha256(`key ${i}`))}`
      return { presented, digest: await sha256(presented) }
    }),
  )
  const callers: Principal[] = Array.from({ length: counts.callers }, (_, i) => ({
    kind: 'jwt',
    id: `user-${i}`,
    claims: { sub: `user-${i}` },
    roles: new Set(['member']),
    email: undefined,
  }))
  const links = await Promise.all(
    Array.from({ length: counts.links }, async (_, i) => ({
      id: base64url(await sha256(`link ${i}`)).slice(0, 16),
      issuedAtMs: now.getTime(),
      origin: 'photos',
      issuer: 'AAAAAAAAAAA',
    })),
  )
  // The plane's first reading of the epoch, before the measure.
  await plane.configFor(config, callers[0]!, now, defer)
  gc()
  const before = process.memoryUsage().heapUsed
  for (const { presented, digest } of keys) {
    if ((await plane.apiKey(config, presented, digest, now, defer)) === undefined) {
      throw new Error('a key did not authenticate')
    }
  }
  for (const caller of callers) await plane.configFor(config, caller, now, defer)
  for (const link of links) await plane.linkRevoked(config, link, now, defer)
  gc()
  const bytes = process.memoryUsage().heapUsed - before
  // Kept alive to the measure: the inputs are not what is measured.
  if (keys.length + callers.length + links.length < 0) console.log(plane)
  return { bytes }
}
