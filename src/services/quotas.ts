// Upload quotas on the signing path: the uploads a request signs are reserved, at their declared
// sizes, against the caller's counter (a Durable Object, src/control/quota-counter.ts) before
// anything is signed; the completion check settles each to its real size, an abort frees it.
// Reads never come here.

import type { Config } from '../config'
import { unavailable } from '../control/plane'
import { quotaFor, quotaWindow, type ReserveAnswer } from '../control/quota'
import type { QuotaCounter } from '../control/quota-counter'
import { invalid, WaybillError } from '../errors'
import { CONTROL_RETRY_AFTER_S } from '../limits'
import { principalName, type Principal } from '../principal'

/** An upload's reservation, sealed into its receipt or handle: the quota and the reservation id. */
export interface Reservation {
  q: string
  r: string
}

function counter(config: Config, quotaId: string, principal: Principal) {
  const counters = config.control?.quotaCounters
  if (counters === undefined) {
    throw new WaybillError(
      'control_unavailable',
      'An upload quota applies to this caller, but no quota counters are bound (WAYBILL_QUOTAS), so nothing can be signed.',
      { headers: { 'retry-after': String(CONTROL_RETRY_AFTER_S) } },
    )
  }
  // The binding's class, as wrangler.jsonc binds it (config checks it is a namespace).
  const typed = counters as unknown as DurableObjectNamespace<QuotaCounter>
  return typed.get(typed.idFromName(`${quotaId}\n${principalName(principal)}`))
}

/** The caller's counter could not be reached (src/control/plane.ts logs why). */
const unreachable = (error: unknown) =>
  unavailable(
    error,
    'The upload quota counter cannot be reached, so nothing was signed; retry shortly.',
  )

const bytesText = (n: number) => `${n} byte${n === 1 ? '' : 's'}`

/**
 * Reserves a request's uploads (all or none) against the quota that counts the caller's uploads on
 * `origin`, if any: undefined without one. Each upload's `bytes` is what its signature admits
 * (undefined: any size, which a byte quota cannot count, so it needs `contentLength`). A 429
 * naming the quota, with Retry-After (the window's end), when they do not fit.
 */
export async function reserveUploads(
  config: Config,
  principal: Principal,
  origin: string,
  uploads: readonly { bytes: number | undefined; path: string }[],
  now: Date,
): Promise<Reservation[] | undefined> {
  const quota = quotaFor(config.quotas, principal, origin)
  if (quota === undefined) return undefined
  if (quota.maxBytes !== undefined) {
    const unsized = uploads.filter((upload) => upload.bytes === undefined)
    if (unsized.length > 0) {
      throw invalid(
        unsized.map(({ path }) => ({
          path,
          message: `is required: a byte quota (${quota.id}) counts this caller's uploads on this origin`,
        })),
      )
    }
  }
  const reservations = uploads.map(() => ({ q: quota.id, r: crypto.randomUUID() }))
  const limits = { maxObjects: quota.maxObjects, maxBytes: quota.maxBytes, windowS: quota.windowS }
  let answer: ReserveAnswer
  try {
    answer = await counter(config, quota.id, principal).reserve(
      reservations.map(({ r }, i) => ({ id: r, bytes: uploads[i]!.bytes ?? 0 })),
      limits,
      now.getTime(),
    )
  } catch (error) {
    throw error instanceof WaybillError ? error : unreachable(error)
  }
  if (answer.ok) return reservations
  const { end } = quotaWindow(quota, now.getTime())
  const until = new Date(end).toISOString()
  const message =
    answer.over === 'objects'
      ? `allows ${quota.maxObjects} uploads per ${quota.windowS} s; ${answer.used.objects} are signed in this window (until ${until}), and this request adds ${uploads.length}`
      : `allows ${bytesText(quota.maxBytes!)} per ${quota.windowS} s; ${bytesText(answer.used.bytes)} are signed in this window (until ${until}), and this request adds ${bytesText(uploads.reduce((sum, u) => sum + (u.bytes ?? 0), 0))}`
  throw new WaybillError('quota_exceeded', `Upload quota ${quota.id} is full: it ${message}.`, {
    errors: [{ path: 'quota', message: `${quota.id} ${message}` }],
    headers: { 'retry-after': String(answer.retryAfterS) },
  })
}

/**
 * The upload finished at `bytes` (its completion check passed, or its multipart upload
 * completed): its reservation counts that from now on. Best effort, never the caller's failure: a
 * counter that cannot be reached keeps the declared size.
 */
export async function settleUpload(
  config: Config,
  principal: Principal,
  reservation: Reservation | undefined,
  bytes: number,
): Promise<void> {
  if (reservation === undefined) return
  try {
    await counter(config, reservation.q, principal).settle(reservation.r, bytes)
  } catch (error) {
    unreachable(error)
  }
}

/** The upload will not land (aborted, deleted, or never signed): its room comes back. */
export async function releaseUploads(
  config: Config,
  principal: Principal,
  reservations: readonly Reservation[] | undefined,
): Promise<void> {
  // One call per counter (a quota's), whatever the number of uploads it held.
  const byQuota = new Map<string, string[]>()
  for (const { q, r } of reservations ?? []) byQuota.set(q, [...(byQuota.get(q) ?? []), r])
  for (const [q, ids] of byQuota) {
    try {
      await counter(config, q, principal).release(ids)
    } catch (error) {
      unreachable(error)
    }
  }
}
