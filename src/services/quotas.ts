// Upload quotas on the signing path: the uploads a request signs are reserved against the caller's
// counter (a Durable Object, src/control/quota-counter.ts) before anything is signed, each at the
// most its artifact can store, held while the artifact lives (the store accepts a PUT URL or a
// POST policy again and again until it expires); a completion check after that settles it to its
// real size, an abort frees a multipart upload's at once. An artifact whose uses no quota can
// bound (a POST form choosing any key under a prefix) is refused where a quota counts. Reads
// never come here.

import type { Config } from '../config'
import { unavailable } from '../control/plane'
import { counterName, quotaFor, quotaWindow, type ReserveAnswer } from '../control/quota'
import type { QuotaCounter } from '../control/quota-counter'
import { invalid, WaybillError } from '../errors'
import { CONTROL_RETRY_AFTER_S } from '../limits'
import { principalBinding, type Principal } from '../principal'

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
  return typed.get(typed.idFromName(counterName(quotaId, principalBinding(principal))))
}

/** The caller's counter could not be reached (src/control/plane.ts logs why). */
const unreachable = (error: unknown) =>
  unavailable(
    error,
    'The upload quota counter cannot be reached, so nothing was signed; retry shortly.',
  )

const bytesText = (n: number) => `${n} byte${n === 1 ? '' : 's'}`

/** An upload to reserve: the most it can store, and until when its artifact can store it. */
export interface QuotaClaim {
  /** The most bytes its signature admits; undefined: any size (a byte quota cannot count it). */
  bytes: number | undefined
  /** The field that sets the size, to name when it is missing. */
  path: string
  /** Epoch ms until which the store may accept its artifact again: 0 for a multipart upload. */
  heldUntil: number
  /** Set when the artifact may store any number of objects (a POST form's keyPrefix): its field. */
  unbounded?: string | undefined
}

/**
 * Reserves a request's uploads (all or none) against the quota that counts the caller's uploads on
 * `origin`, if any: undefined without one. A 400 for an upload no quota can count (no size under a
 * byte quota, any number of objects); a 429 naming the quota, with Retry-After (the window's
 * end), when they do not fit.
 */
export async function reserveUploads(
  config: Config,
  principal: Principal,
  origin: string,
  uploads: readonly QuotaClaim[],
  now: Date,
): Promise<Reservation[] | undefined> {
  const quota = quotaFor(config.quotas, principal, origin)
  if (quota === undefined) return undefined
  const unbounded = uploads.flatMap(({ unbounded }) => (unbounded === undefined ? [] : [unbounded]))
  if (unbounded.length > 0) {
    throw invalid(
      unbounded.map((path) => ({
        path,
        message: `cannot be used while an upload quota (${quota.id}) counts this caller's uploads on this origin: a form that chooses its key under a prefix may store any number of objects until it expires, which no quota can bound; send the exact "key"`,
      })),
    )
  }
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
      reservations.map(({ r }, i) => ({
        id: r,
        bytes: uploads[i]!.bytes ?? 0,
        heldUntil: uploads[i]!.heldUntil,
      })),
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
 * The upload stored `bytes` (its completion check passed, or its multipart upload completed): its
 * reservation counts that once its artifact can store no more (the counter keeps the most it
 * admits until then). Best effort, never the caller's failure: a counter that cannot be reached
 * keeps what it holds.
 */
export async function settleUpload(
  config: Config,
  principal: Principal,
  reservation: Reservation | undefined,
  bytes: number,
  now: Date,
): Promise<void> {
  if (reservation === undefined) return
  try {
    await counter(config, reservation.q, principal).settle(reservation.r, bytes, now.getTime())
  } catch (error) {
    unreachable(error)
  }
}

/**
 * The uploads will not land (aborted, or deleted as not what was signed): their room comes back
 * once their artifacts can store no more. `unsigned`: they were never signed (their request
 * failed after reserving), so it comes back now.
 */
export async function releaseUploads(
  config: Config,
  principal: Principal,
  reservations: readonly Reservation[] | undefined,
  now: Date,
  unsigned = false,
): Promise<void> {
  // One call per counter (a quota's), whatever the number of uploads it held.
  const byQuota = new Map<string, string[]>()
  for (const { q, r } of reservations ?? []) byQuota.set(q, [...(byQuota.get(q) ?? []), r])
  for (const [q, ids] of byQuota) {
    try {
      const held = counter(config, q, principal)
      await (unsigned ? held.cancel(ids) : held.release(ids, now.getTime()))
    } catch (error) {
      unreachable(error)
    }
  }
}
