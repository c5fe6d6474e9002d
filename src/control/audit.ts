// The audit trail: one structured event per signing request (a mint, a refusal) and per followed
// link, sent to the configured sinks (an Analytics Engine dataset, a Queue) and counted into the
// control plane's usage (the middleware that gathers each request's facts is
// src/middleware/audit.ts). Never a URL, a token, a key or a secret: who (principal, key id), where
// (origin), what (action, outcome, count, bytes) and the request id. Sent after the answer, so
// the signing path never waits on it.

import type { AuditConfig, Config } from '../config'
import { principalName } from '../principal'
import type { ControlPlane, Defer } from './plane'

/** What became of a request. */
type AuditOutcome = 'minted' | 'followed' | 'refused' | 'invalid' | 'error'

export interface AuditEvent {
  readonly type: 'waybill.audit'
  /** ISO 8601. */
  readonly time: string
  readonly requestId: string
  /** The route pattern, never the path (which can hold an object key or a token). */
  readonly route: string
  readonly status: number
  readonly outcome: AuditOutcome
  /** `read`, `write`, `delete`, `list`, `debug`; `follow` for a followed link. */
  readonly action: string
  /** As the request log names the caller; `link:<issuer hash>` for a followed link. */
  readonly principal?: string | undefined
  /** The API key used, when one was. */
  readonly keyId?: string | undefined
  readonly origin?: string | undefined
  /** Artifacts signed (URLs, upload URLs and policies, links, part URLs). */
  readonly count: number
  /** Upload bytes signed (declared) or checked complete. */
  readonly bytes: number
  /** A followed link with `maxUses`: the uses it allows, and those left after this one. */
  readonly maxUses?: number | undefined
  readonly usesLeft?: number | undefined
}

/** What the request path knows once it has answered. */
export interface RequestFacts {
  readonly now: Date
  readonly requestId: string
  /** The path as requested, and the route's pattern (only the sinks need that one). */
  readonly path: string
  readonly route: string
  readonly status: number
  readonly principal?: { readonly kind: string; readonly id: string } | undefined
  /** A followed link's issuer, by the hash the link carries. */
  readonly linkIssuer?: string | undefined
  /** A stored API key refused (revoked, expired, its secret retired): its id. */
  readonly refusedKey?: string | undefined
  /** A followed link's uses, when it counts them: how many it allows, how many are left. */
  readonly linkUses?: { readonly max: number; readonly left: number } | undefined
  readonly origin?: string | undefined
  readonly action?: string | undefined
  /**
   * What the answer carries: URLs, upload URLs and policies, links, part URLs (a route that mints
   * one artifact may leave it unset). Set before a streamed answer starts: the route knows it then.
   */
  readonly items?: number | undefined
  readonly bytesReserved?: number | undefined
  readonly bytesCompleted?: number | undefined
}

// The paths that answer for uploads already signed: they mint nothing. (Static routes: the path
// is the pattern.)
const FOLLOW_UPS: ReadonlySet<string> = new Set([
  '/v1/uploads/complete',
  '/v1/uploads/multipart/complete',
  '/v1/uploads/multipart/abort',
  '/v1/uploads/multipart/list',
])

/** An Analytics Engine index holds at most 96 bytes. */
export const INDEX_CHARS = 96

function outcomeOf(facts: RequestFacts): AuditOutcome {
  if (facts.status >= 500) return 'error'
  if (
    facts.status === 401 ||
    facts.status === 403 ||
    facts.status === 410 ||
    facts.status === 429
  ) {
    return 'refused'
  }
  if (facts.status >= 400) return 'invalid'
  return facts.linkIssuer !== undefined ? 'followed' : 'minted'
}

/** Whom a request counts for: the caller, or for a followed link the link's issuer. */
function countedFor(facts: RequestFacts): { kind: string; id: string } | undefined {
  return facts.linkIssuer !== undefined ? { kind: 'link', id: facts.linkIssuer } : facts.principal
}

/**
 * The event for a request on the signing API (/v1/*) or a followed link (/l/*).
 *
 * @example
 * const event = auditEvent({ now, requestId, path: '/v1/sign', route: '/v1/sign', status: 200,
 *   principal: { kind: 'api-key', id: 'web' }, origin: 'photos', action: 'read', items: 3 })
 * event.count // 3
 */
export function auditEvent(facts: RequestFacts, outcome = outcomeOf(facts)): AuditEvent {
  const who = countedFor(facts)
  const minted = outcome === 'minted' && !FOLLOW_UPS.has(facts.path)
  return Object.freeze({
    type: 'waybill.audit',
    time: facts.now.toISOString(),
    requestId: facts.requestId,
    route: facts.route,
    status: facts.status,
    outcome,
    action: facts.linkIssuer !== undefined ? 'follow' : (facts.action ?? 'none'),
    principal: who === undefined ? undefined : principalName(who),
    keyId: facts.principal?.kind === 'api-key' ? facts.principal.id : facts.refusedKey,
    origin: facts.origin,
    count: minted || outcome === 'followed' ? (facts.items ?? 1) : 0,
    bytes: outcome === 'minted' ? (facts.bytesReserved ?? 0) + (facts.bytesCompleted ?? 0) : 0,
    ...(facts.linkUses === undefined
      ? {}
      : { maxUses: facts.linkUses.max, usesLeft: facts.linkUses.left }),
  })
}

/**
 * Sends a request's event to the configured sinks, and counts it into the control plane's usage:
 * an Analytics Engine data point (written at once; the runtime sends it after the answer) and a
 * Queue message (after the answer). A sink's failure is logged, never the request's.
 */
export function recordAudit(
  config: Config,
  control: ControlPlane,
  facts: RequestFacts,
  defer: Defer,
): void {
  const { audit } = config
  const outcome = outcomeOf(facts)
  if (audit.dataset !== undefined || audit.queue !== undefined) {
    sendToSinks(audit, auditEvent(facts, outcome), defer)
  }
  if (config.control === undefined) return
  // The usage counters need a few numbers of the event, not the event (this runs per request).
  const nowMs = facts.now.getTime()
  const who = countedFor(facts)
  // A request nobody is known for (a 401) counts nothing, but writes what others gathered.
  if (who === undefined || facts.origin === undefined) {
    control.flush(config, nowMs, defer)
    return
  }
  const minted = outcome === 'minted'
  control.record(
    config,
    nowMs,
    who,
    facts.origin,
    {
      minted: minted && !FOLLOW_UPS.has(facts.path) ? (facts.items ?? 1) : 0,
      refused: outcome === 'refused' ? 1 : 0,
      bytesReserved: minted ? (facts.bytesReserved ?? 0) : 0,
      bytesCompleted: minted ? (facts.bytesCompleted ?? 0) : 0,
      linksFollowed: outcome === 'followed' ? 1 : 0,
    },
    facts.principal?.kind === 'api-key' ? facts.principal.id : undefined,
    defer,
  )
}

function sendToSinks(audit: AuditConfig, event: AuditEvent, defer: Defer): void {
  deliverAudit(
    audit,
    {
      // Blobs and doubles by position: docs/operating.md, "The audit trail", lists them.
      indexes: [(event.principal ?? '').slice(0, INDEX_CHARS)],
      blobs: [
        event.outcome,
        event.action,
        event.origin ?? '',
        event.principal ?? '',
        event.keyId ?? '',
        event.route,
        event.requestId,
      ],
      // 0 for maxUses: not a counted link's follow (a counted link allows 1 or more).
      doubles: [event.count, event.bytes, event.status, event.maxUses ?? 0, event.usesLeft ?? 0],
    },
    event,
    defer,
  )
}

/**
 * An audit event to each sink there is: `point` to the Analytics Engine dataset, `event` (as JSON)
 * to the Queue. A sink's failure is logged, never the request's. Both planes' events go this way
 * (the admin plane's: src/services/admin/audit.ts).
 */
export function deliverAudit(
  sinks: AuditConfig,
  point: AnalyticsEngineDataPoint,
  event: unknown,
  defer: Defer,
): void {
  if (sinks.dataset !== undefined) {
    try {
      sinks.dataset.writeDataPoint(point)
    } catch (error) {
      sinkFailed('analytics-engine', error)
    }
  }
  const queue = sinks.queue
  if (queue !== undefined) {
    defer(
      Promise.resolve()
        .then(() => queue.send(event, { contentType: 'json' }))
        .catch((error: unknown) => sinkFailed('queue', error)),
    )
  }
}

function sinkFailed(sink: string, error: unknown): void {
  console.error(
    JSON.stringify({
      level: 'error',
      message: 'audit event not delivered',
      sink,
      error: error instanceof Error ? error.name : typeof error,
    }),
  )
}
