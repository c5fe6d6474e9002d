// The control plane on the request path: API keys, grants, quotas and link revocations from D1,
// through per-isolate caches, so that a request that hits them costs a few map lookups and one
// that misses costs one D1 query.
//
// Freshness is a change epoch (migrations/, `control_epoch`): every admin write bumps it in the
// same transaction as the change. An isolate remembers the epoch it last read and when it sent that
// read; entries are good while the epoch stands. Once the reading is CONTROL_REFRESH_MS old, the
// next request reads it again after its answer (ExecutionContext.waitUntil); once it is
// CONTROL_MAX_AGE_MS old, the request itself waits for it (in the same D1 round trip as its own
// lookup). When the epoch moved, every cache of the isolate is dropped. So a change committed at T
// is refused by every isolate from T + CONTROL_MAX_AGE_MS on, and D1 sees about one epoch read per
// isolate per second however many keys are in use (a per-entry TTL would cost one read per key
// and isolate instead). If D1 cannot be reached once the epoch is too old, the answer is a 503:
// nothing is signed from a cache past its bound.
//
// `authorize` stays pure: it is handed a config whose `grants` are the env's plus the caller's
// from D1 (`configFor`), built once per caller and epoch.

import * as v from 'valibot'
import type { Config, ControlConfig, Grant, Quota } from '../config'
import { principalHash, subjectOf, subjectsOf, subjectText } from '../principal/subjects'
import { keyStands, type KeyStanding } from '../auth/standing'
import { completeGrant, grantSchema } from '../config/grants'
import { constantTimeEqual, hexEncode } from '../core/bytes'
import { WaybillError } from '../errors'
import {
  CONTROL_KEY_CACHE_ENTRIES,
  CONTROL_LINK_CACHE_ENTRIES,
  CONTROL_MAX_AGE_MS,
  CONTROL_REFRESH_MS,
  CONTROL_RETRY_AFTER_S,
  CONTROL_RULES_CACHE_ENTRIES,
  LAST_USED_RESOLUTION_MS,
  MAX_GRANTS_PER_SUBJECT,
  MAX_LINK_RULES,
  USAGE_FLUSH_MS,
  USAGE_MAX_PENDING_ENTRIES,
  DAY_MS,
  AUDIT_MAX_PENDING_REFUSALS,
} from '../limits'
import { bindingOfName, principalName, type Principal } from '../principal'
import { STORED_KEY } from '../schemas/fields'
import { BoundedCache } from '../core/cache'
import { LATEST_MIGRATION, notMigrated } from './readiness'
import {
  epochStatement,
  flushUsage,
  issuerStatement,
  keyStatement,
  linkStatement,
  rulesStatement,
  type IssuerRow,
  type KeyLookupRow,
  type RevocationRow,
  type Refusal,
  type RulesRow,
  type UsageDelta,
} from './store'

/** Work to finish after the answer (ExecutionContext.waitUntil, where there is one). */
export type Defer = (work: Promise<unknown>) => void

/** A key made through the admin API, as the hot path needs it. Times are epoch ms. */
export interface KeyRecord {
  readonly id: string
  readonly expiresAt: number | null
  readonly revokedAt: number | null
  /** Set on a secret a rotation retired: it works until then. */
  readonly secretExpiresAt: number | null
}

/** A link revocation by time, with the hash a link names its issuer by. */
interface LinkRule {
  readonly issuedBefore: number
  readonly origin: string | null
  readonly issuer: string | null
}

/** What a followed link says about itself. */
export interface LinkFacts {
  readonly id: string | undefined
  readonly issuedAtMs: number
  readonly origin: string
  /** `principalHash` of its issuer. */
  readonly issuer: string
}

/** Why a stored key that exists may not authenticate. */
export type KeyRefusal = 'revoked' | 'expired' | 'retired'

/**
 * Why stored key `record` may not authenticate at `nowMs` (revoked, past its expiry, or presented
 * with a secret a rotation retired), or undefined when it may.
 */
export function fallenKey(record: KeyRecord, nowMs: number): KeyRefusal | undefined {
  if (keyStands(record, nowMs)) {
    return record.secretExpiresAt === null || nowMs < record.secretExpiresAt ? undefined : 'retired'
  }
  return record.revokedAt !== null ? 'revoked' : 'expired'
}

/** What one request adds to its caller's usage of an origin, on a day. */
export interface UsageCounts {
  readonly minted: number
  readonly refused: number
  readonly bytesReserved: number
  readonly bytesCompleted: number
  readonly linksFollowed: number
}

type Mutable = { -readonly [K in keyof UsageCounts]: number }

class State {
  epoch = -1
  /** When the epoch held was read (when the read was sent), epoch ms. */
  checkedAt = -Infinity
  /** Bumped whenever the caches are dropped: a lookup that spans one is not cached. */
  generation = 0
  refreshing = false
  /** Keys by their SHA-256 (see `digestKey`), the digest kept to tell them apart for sure. */
  readonly keys = new BoundedCache<number, { digest: Uint8Array; record: KeyRecord }>(
    CONTROL_KEY_CACHE_ENTRIES,
  )
  /** Hashes no stored key has, kept apart so that a flood of them cannot evict the keys. */
  readonly unknown = new BoundedCache<number, Uint8Array>(CONTROL_KEY_CACHE_ENTRIES)
  /**
   * A caller's subjects → the config `authorize` gets: the env's grants plus theirs. API keys by
   * their id, token callers by their subjects.
   */
  readonly keyRules = new BoundedCache<string, Config>(CONTROL_RULES_CACHE_ENTRIES)
  readonly rules = new BoundedCache<string, Config>(CONTROL_RULES_CACHE_ENTRIES)
  /** Link id → revoked by id. */
  readonly links = new BoundedCache<string, boolean>(CONTROL_LINK_CACHE_ENTRIES)
  /** Stored keys by id, for the artifacts they issued (null: no such key). */
  readonly issuers = new BoundedCache<string, KeyStanding | null>(CONTROL_KEY_CACHE_ENTRIES)
  linkRules: readonly LinkRule[] | undefined
  /** Whether any link is revoked by its id (when false, no follow asks D1 about its own id). */
  anyLinkRevoked: boolean | undefined
  readonly grant: ReturnType<typeof grantSchema>
  /**
   * Usage not yet written, for one day (`usageDay`, days since the epoch): by the caller's kind,
   * then its id, then the origin. Keyed by strings the request has already, so counting a request
   * makes none.
   */
  readonly usage = new Map<string, Map<string, Map<string, Mutable>>>()
  usageDay = -1
  /** When each key's last use was last queued, and the queue. */
  readonly lastUsed = new Map<string, number>()
  readonly usedAt = new BoundedCache<string, number>(CONTROL_KEY_CACHE_ENTRIES)
  flushedAt = -Infinity
  /**
   * Usage a failed write gave back, for the next one: by day, caller and origin
   * (`day\nprincipal\norigin`), at most USAGE_MAX_PENDING_ENTRIES of them.
   */
  readonly unwritten = new Map<string, UsageDelta>()
  /** The write scheduled for when one is due, while there is one (its identity only). */
  flushScheduled: object | undefined
  /** Stored keys refused since the last write, by key and reason. */
  readonly refusals = new Map<string, Refusal>()

  constructor(
    readonly base: Config,
    readonly control: ControlConfig,
  ) {
    this.grant = grantSchema(base.origins)
  }

  drop(): void {
    this.keys.clear()
    this.unknown.clear()
    this.keyRules.clear()
    this.rules.clear()
    this.links.clear()
    this.issuers.clear()
    this.linkRules = undefined
    this.anyLinkRevoked = undefined
    this.generation++
  }
}

/**
 * The answer when D1 cannot be reached, or has not the schema this code needs (not migrated: said
 * so, apart); the cause goes to the log (its name and message: a D1 error quotes SQL at most,
 * never a bound value).
 */
export function unavailable(
  error: unknown,
  detail = 'The control plane (D1) cannot be reached, so nothing can be authorized now; retry shortly.',
): WaybillError {
  console.error(
    JSON.stringify({
      level: 'error',
      message: 'control plane unavailable',
      error: error instanceof Error ? error.name : typeof error,
      detail: (error instanceof Error ? error.message : String(error)).slice(0, 200),
    }),
  )
  const headers = { 'retry-after': String(CONTROL_RETRY_AFTER_S) }
  // Reached, but without the tables this code needs: an operator's step, not a passing fault.
  if (notMigrated(error)) {
    return new WaybillError(
      'control_unavailable',
      "The control plane's database (D1) is not migrated; an operator must apply migrations/.",
      {
        errors: [{ path: 'WAYBILL_DB', message: `is not migrated (to ${LATEST_MIGRATION})` }],
        headers,
      },
    )
  }
  return new WaybillError('control_unavailable', detail, { headers })
}

/** The subjects a caller's grants and quotas may name (`*` included), as D1 stores them. */
const subjectTexts = (principal: Principal) => subjectsOf(principal).map(subjectText)

/** The cache key of a token caller's grants: what its subjects depend on. */
function rulesKey(principal: Principal): string {
  return `${principal.kind}\n${subjectTexts(principal).join('\n')}`
}

/**
 * A cache key for a key's SHA-256: its first 53 bits, as a number (a number keys a Map faster
 * than any string made from the digest). Entries keep the whole digest, compared on every hit.
 */
function digestKey(digest: Uint8Array): number {
  const high = ((digest[0]! << 24) | (digest[1]! << 16) | (digest[2]! << 8) | digest[3]!) >>> 0
  return high * 2 ** 21 + ((digest[4]! << 13) | (digest[5]! << 5) | (digest[6]! >>> 3))
}

// An API key's grants are kept by its id; a token's by all it could be named by.
const rulesCacheOf = (state: State, principal: Principal) =>
  principal.kind === 'api-key' ? state.keyRules : state.rules
const rulesKeyOf = (principal: Principal) =>
  principal.kind === 'api-key' ? principal.id : rulesKey(principal)

/**
 * The control plane of one app (one isolate, for the Worker): its caches, kept per configuration.
 * Every method needs `config.control`.
 */
export class ControlPlane {
  private readonly states = new WeakMap<ControlConfig, State>()

  private stateOf(config: Config): State {
    const control = config.control
    if (control === undefined) throw new Error('no control plane is configured')
    let state = this.states.get(control)
    if (state === undefined) {
      state = new State(config, control)
      this.states.set(control, state)
    }
    return state
  }

  /**
   * The stored key whose secret hashes to `digest` (undefined when there is none): whether it may
   * authenticate at `now` is `fallenKey`'s to say.
   */
  async apiKey(
    config: Config,
    presented: string,
    digest: Uint8Array,
    now: Date,
    defer: Defer,
  ): Promise<KeyRecord | undefined> {
    const nowMs = now.getTime()
    const known = this.knownApiKey(config, digest, nowMs, defer)
    if (known !== undefined) return known ?? undefined
    if (!STORED_KEY.test(presented)) return undefined
    const state = this.stateOf(config)
    const { row, cacheable } = await this.load<KeyLookupRow>(
      state,
      nowMs,
      keyStatement(state.control.db, hexEncode(digest), MAX_GRANTS_PER_SUBJECT),
    )
    const id = digestKey(digest)
    if (row === null) {
      if (cacheable) state.unknown.set(id, digest)
      return undefined
    }
    const record = Object.freeze({
      id: row.id,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
      secretExpiresAt: row.secret_expires_at,
    })
    if (cacheable) {
      state.keys.set(id, { digest, record })
      // The key's own grants and quotas came with it: its next request needs no query at all.
      state.keyRules.set(row.id, this.combine(state, row))
    }
    return record
  }

  /**
   * `apiKey` from the caches alone, without waiting: the key, `null` when the caches know there is
   * none, `undefined` when they do not know (then `apiKey` asks D1). Every request of a known key
   * takes this path, and a promise per request is measurable there.
   */
  knownApiKey(
    config: Config,
    digest: Uint8Array,
    nowMs: number,
    defer: Defer,
  ): KeyRecord | null | undefined {
    const state = this.stateOf(config)
    if (!this.current(state, nowMs, defer)) return undefined
    const id = digestKey(digest)
    const hit = state.keys.get(id)
    if (hit !== undefined && constantTimeEqual(hit.digest, digest)) return hit.record
    const unknown = state.unknown.get(id)
    return unknown !== undefined && constantTimeEqual(unknown, digest) ? null : undefined
  }

  /**
   * A stored key refused (`fallenKey`): counted for the audit trail by key, reason and hour
   * (AUDIT_MAX_PENDING_REFUSALS keys at most between two writes), written with the usage.
   */
  refused(config: Config, nowMs: number, keyId: string, reason: KeyRefusal, defer: Defer): void {
    const state = this.stateOf(config)
    const id = `${keyId}\n${reason}`
    const seen = state.refusals.get(id)
    if (seen !== undefined) {
      seen.count++
      seen.at = nowMs
    } else if (state.refusals.size < AUDIT_MAX_PENDING_REFUSALS) {
      state.refusals.set(id, { keyId, reason, count: 1, at: nowMs })
    }
    this.flush(config, nowMs, defer)
  }

  /**
   * The stored key `id`, as what it issued needs it (revoked, expiring), or undefined when there
   * is no such key: through the caches, one D1 query on a miss.
   */
  async issuer(
    config: Config,
    id: string,
    now: Date,
    defer: Defer,
  ): Promise<KeyStanding | undefined> {
    const state = this.stateOf(config)
    const nowMs = now.getTime()
    if (this.current(state, nowMs, defer)) {
      const hit = state.issuers.get(id)
      if (hit !== undefined) return hit ?? undefined
    }
    const { row, cacheable } = await this.load<IssuerRow>(
      state,
      nowMs,
      issuerStatement(state.control.db, id),
    )
    const standing =
      row === null ? null : Object.freeze({ expiresAt: row.expires_at, revokedAt: row.revoked_at })
    if (cacheable) state.issuers.set(id, standing)
    return standing ?? undefined
  }

  /** The config `authorize` gets for `principal`: the env's grants plus the caller's from D1. */
  async configFor(config: Config, principal: Principal, now: Date, defer: Defer): Promise<Config> {
    const nowMs = now.getTime()
    const known = this.knownConfigFor(config, principal, nowMs, defer)
    if (known !== undefined) return known
    const state = this.stateOf(config)
    const { row, cacheable } = await this.load<RulesRow>(
      state,
      nowMs,
      rulesStatement(state.control.db, subjectTexts(principal), MAX_GRANTS_PER_SUBJECT),
    )
    const combined = row === null ? state.base : this.combine(state, row)
    if (cacheable) rulesCacheOf(state, principal).set(rulesKeyOf(principal), combined)
    return combined
  }

  /** `configFor` from the caches alone, without waiting; `undefined` when they do not know. */
  knownConfigFor(
    config: Config,
    principal: Principal,
    nowMs: number,
    defer: Defer,
  ): Config | undefined {
    const state = this.stateOf(config)
    if (!this.current(state, nowMs, defer)) return undefined
    return rulesCacheOf(state, principal).get(rulesKeyOf(principal))
  }

  /** Whether the control plane revoked a link: by its id, or by when, where and by whom it was issued. */
  async linkRevoked(config: Config, link: LinkFacts, now: Date, defer: Defer): Promise<boolean> {
    const state = this.stateOf(config)
    const nowMs = now.getTime()
    let rules: readonly LinkRule[] | undefined
    let byId: boolean | undefined = link.id === undefined ? false : undefined
    if (this.current(state, nowMs, defer)) {
      rules = state.linkRules
      if (link.id !== undefined) {
        byId = state.anyLinkRevoked === false ? false : state.links.get(link.id)
      }
    }
    if (rules === undefined || byId === undefined) {
      const { rows, cacheable } = await this.loadAll<RevocationRow & { any_link: number }>(
        state,
        nowMs,
        linkStatement(state.control.db, link.id ?? null, MAX_LINK_RULES + 1),
      )
      rules = rows
        .filter((row) => row.kind === 'links')
        .map((row) =>
          Object.freeze({
            issuedBefore: row.issued_before ?? 0,
            origin: row.origin,
            issuer: row.principal === null ? null : principalHash(bindingOfName(row.principal)),
          }),
        )
      byId = link.id !== undefined && rows.some((row) => row.kind === 'link')
      if (cacheable) {
        state.linkRules = rules
        state.anyLinkRevoked = rows[0]?.any_link === 1
        if (link.id !== undefined) state.links.set(link.id, byId)
      }
    }
    return (
      byId ||
      rules.some(
        (rule) =>
          link.issuedAtMs < rule.issuedBefore &&
          (rule.origin === null || rule.origin === link.origin) &&
          (rule.issuer === null || rule.issuer === link.issuer),
      )
    )
  }

  /**
   * Counts a request's usage (its caller: `kind` and `id`, `link` and the issuer's hash for a
   * followed link) and its key's last use, written to D1 after the answer at most every
   * USAGE_FLUSH_MS (a key's last use at most once a minute), and at the latest USAGE_FLUSH_MS
   * after the last write whether or not another request comes: never on the signing path.
   */
  record(
    config: Config,
    nowMs: number,
    who: { readonly kind: string; readonly id: string },
    origin: string,
    counts: UsageCounts,
    keyId: string | undefined,
    defer: Defer,
  ): void {
    const state = this.stateOf(config)
    const day = Math.floor(nowMs / DAY_MS)
    // Past midnight: what yesterday gathered goes first, under its own day.
    if (day !== state.usageDay) {
      this.flush(config, nowMs, defer, true)
      state.usageDay = day
    }
    let byId = state.usage.get(who.kind)
    if (byId === undefined)
      state.usage.set(who.kind, (byId = new Map<string, Map<string, Mutable>>()))
    let byOrigin = byId.get(who.id)
    if (byOrigin === undefined) byId.set(who.id, (byOrigin = new Map<string, Mutable>()))
    const sum = byOrigin.get(origin)
    if (sum === undefined) byOrigin.set(origin, { ...counts })
    else {
      sum.minted += counts.minted
      sum.refused += counts.refused
      sum.bytesReserved += counts.bytesReserved
      sum.bytesCompleted += counts.bytesCompleted
      sum.linksFollowed += counts.linksFollowed
    }
    if (keyId !== undefined) {
      const last = state.usedAt.get(keyId)
      if (last === undefined || nowMs - last >= LAST_USED_RESOLUTION_MS) {
        state.usedAt.set(keyId, nowMs)
        state.lastUsed.set(keyId, nowMs)
      }
    }
    // Due, or no write scheduled yet (one request in an interval schedules it).
    if (state.flushScheduled === undefined || nowMs - state.flushedAt >= USAGE_FLUSH_MS) {
      this.flush(config, nowMs, defer)
    }
  }

  /**
   * Writes what usage has gathered, once USAGE_FLUSH_MS have passed since the last write (or now,
   * when `force`d); before that, schedules the write for when it is due. What a write fails to
   * store is kept for the next (USAGE_MAX_PENDING_ENTRIES entries at most).
   */
  flush(config: Config, nowMs: number, defer: Defer, force = false): void {
    const state = this.stateOf(config)
    if (
      state.usage.size === 0 &&
      state.lastUsed.size === 0 &&
      state.unwritten.size === 0 &&
      state.refusals.size === 0
    ) {
      return
    }
    const wait = force ? 0 : state.flushedAt + USAGE_FLUSH_MS - nowMs
    if (wait > 0) {
      if (state.flushScheduled === undefined) {
        this.flushLater(config, state, nowMs + wait, wait, defer)
      }
      return
    }
    // This write takes everything: the one scheduled, if any, finds nothing left to do when its
    // time comes. It is not woken early: its promise is another request's waitUntil, and settling
    // it from this request is I/O on that one's behalf, which workerd refuses.
    state.flushScheduled = undefined
    state.flushedAt = nowMs
    const day = new Date(state.usageDay * DAY_MS).toISOString().slice(0, 10)
    const usage: UsageDelta[] = [...state.unwritten.values()]
    state.unwritten.clear()
    for (const [kind, byId] of state.usage) {
      for (const [id, byOrigin] of byId) {
        for (const [origin, counts] of byOrigin) {
          usage.push({ day, principal: principalName({ kind, id }), origin, ...counts })
        }
      }
    }
    const lastUsed = new Map(state.lastUsed)
    const refusals = [...state.refusals.values()]
    state.usage.clear()
    state.lastUsed.clear()
    state.refusals.clear()
    defer(
      flushUsage(state.control.db, usage, lastUsed, LAST_USED_RESOLUTION_MS, refusals).catch(
        (error) => {
          unavailable(error)
          // One batch, one transaction: none of it was stored. (The refusals are in the log and
          // the audit sinks; the usage is kept for the next write.)
          this.keepUnwritten(state, usage, lastUsed)
        },
      ),
    )
  }

  /**
   * Defers the write due at `dueMs`, `waitMs` from now (the runtime lets work given to waitUntil
   * run for 30 s after the answer), so that the last requests of a burst are written without a
   * request after them. A write before then leaves it nothing to do.
   */
  private flushLater(
    config: Config,
    state: State,
    dueMs: number,
    waitMs: number,
    defer: Defer,
  ): void {
    const scheduled = {}
    state.flushScheduled = scheduled
    defer(
      new Promise((resolve) => setTimeout(resolve, waitMs)).then(() => {
        // A write since took everything, and what came after it has a schedule of its own.
        if (state.flushScheduled !== scheduled) return undefined
        state.flushScheduled = undefined
        let written: Promise<unknown> | undefined
        this.flush(config, dueMs, (work) => {
          written = work
        })
        return written
      }),
    )
  }

  /**
   * Adds what a write failed to store to what the next one writes: at most
   * USAGE_MAX_PENDING_ENTRIES entries, and as many keys' last use. What exceeds it is dropped, and
   * logged (the audit sinks have every event).
   */
  private keepUnwritten(
    state: State,
    usage: readonly UsageDelta[],
    lastUsed: ReadonlyMap<string, number>,
  ): void {
    let dropped = 0
    let minted = 0
    for (const delta of usage) {
      const id = `${delta.day}\n${delta.principal}\n${delta.origin}`
      const kept = state.unwritten.get(id)
      if (kept !== undefined) {
        kept.minted += delta.minted
        kept.refused += delta.refused
        kept.bytesReserved += delta.bytesReserved
        kept.bytesCompleted += delta.bytesCompleted
        kept.linksFollowed += delta.linksFollowed
      } else if (state.unwritten.size < USAGE_MAX_PENDING_ENTRIES) {
        state.unwritten.set(id, delta)
      } else {
        dropped++
        minted += delta.minted
      }
    }
    for (const [id, at] of lastUsed) {
      // A later use queued since is newer.
      if (!state.lastUsed.has(id) && state.lastUsed.size < USAGE_MAX_PENDING_ENTRIES) {
        state.lastUsed.set(id, at)
      }
    }
    if (dropped > 0) {
      console.error(
        JSON.stringify({
          level: 'error',
          message: 'usage counts dropped',
          entries: dropped,
          minted,
        }),
      )
    }
  }

  /**
   * Whether the caches may answer at `nowMs`: the epoch was read less than CONTROL_MAX_AGE_MS ago
   * (once it is CONTROL_REFRESH_MS old, it is read again after the answer).
   */
  private current(state: State, nowMs: number, defer: Defer): boolean {
    const age = nowMs - state.checkedAt
    if (age >= CONTROL_MAX_AGE_MS) return false
    if (age >= CONTROL_REFRESH_MS && !state.refreshing) {
      state.refreshing = true
      defer(
        this.readEpoch(state, nowMs)
          .catch(() => undefined)
          .finally(() => {
            state.refreshing = false
          }),
      )
    }
    return true
  }

  private async readEpoch(state: State, sentAt: number): Promise<void> {
    let row: { epoch: number } | null
    try {
      row = await epochStatement(state.control.db).first<{ epoch: number }>()
    } catch (error) {
      throw unavailable(error)
    }
    this.adopt(state, row?.epoch ?? 0, sentAt)
  }

  /** Takes an epoch read sent at `sentAt`: a newer one drops every cache. */
  private adopt(state: State, epoch: number, sentAt: number): void {
    if (epoch < state.epoch) return
    if (epoch > state.epoch) {
      state.drop()
      state.epoch = epoch
    }
    state.checkedAt = Math.max(state.checkedAt, sentAt)
  }

  /**
   * One lookup's row, reading the epoch in the same round trip when it is too old. `cacheable`:
   * no epoch change dropped the caches meanwhile (a row read before it may predate the change).
   */
  private async load<T>(
    state: State,
    nowMs: number,
    statement: D1PreparedStatement,
  ): Promise<{ row: T | null; cacheable: boolean }> {
    const { rows, cacheable } = await this.loadAll<T>(state, nowMs, statement)
    return { row: rows[0] ?? null, cacheable }
  }

  private async loadAll<T>(
    state: State,
    nowMs: number,
    statement: D1PreparedStatement,
  ): Promise<{ rows: T[]; cacheable: boolean }> {
    const generation = state.generation
    try {
      if (nowMs - state.checkedAt < CONTROL_MAX_AGE_MS) {
        const { results } = await statement.all<T>()
        return { rows: results, cacheable: state.generation === generation }
      }
      const db = state.control.db
      const [epoch, result] = await db.batch<unknown>([epochStatement(db), statement])
      this.adopt(state, (epoch!.results[0] as { epoch: number } | undefined)?.epoch ?? 0, nowMs)
      return { rows: result!.results as T[], cacheable: true }
    } catch (error) {
      throw unavailable(error)
    }
  }

  /** The base config with the grants and quotas of a D1 answer added (the base itself if none). */
  private combine(state: State, row: RulesRow): Config {
    const grants = this.grants(state, row.grants)
    const quotas = quotasOf(row.quotas)
    if (grants.length === 0 && quotas.length === 0) return state.base
    return Object.freeze({
      ...state.base,
      grants: Object.freeze([...state.base.grants, ...grants]),
      quotas: Object.freeze(quotas),
    })
  }

  /**
   * The stored grants, each checked by the schema WAYBILL_GRANTS is checked by, against today's
   * origins: one that no longer passes (its origin was removed) is left out, and logged.
   */
  private grants(state: State, json: string): Grant[] {
    const grants: Grant[] = []
    const rows = JSON.parse(json) as [string, unknown][]
    if (rows.length >= MAX_GRANTS_PER_SUBJECT) {
      // The statement reads at most this many (the admin API stores at most this many per
      // subject, but a caller has several subjects): the rest allow nothing. Say so.
      console.error(
        JSON.stringify({
          level: 'error',
          message: 'stored grants cut short',
          read: rows.length,
        }),
      )
    }
    for (const [id, body] of rows) {
      const parsed = v.safeParse(state.grant, body)
      if (parsed.success) grants.push(completeGrant(parsed.output, state.base.maxBatch))
      else {
        console.error(
          JSON.stringify({
            level: 'error',
            message: 'stored grant skipped',
            grant: id,
            errors: parsed.issues.map((issue) => issue.message).slice(0, 3),
          }),
        )
      }
    }
    return grants
  }
}

type QuotaTuple = [string, string, string, number | null, number | null, number]

function quotasOf(json: string): Quota[] {
  return (JSON.parse(json) as QuotaTuple[]).flatMap(
    ([id, to, origin, maxObjects, maxBytes, windowS]) => {
      const subject = subjectOf(to)
      if (subject === undefined) return []
      return [
        Object.freeze({
          id,
          subject,
          origin,
          maxObjects: maxObjects ?? undefined,
          maxBytes: maxBytes ?? undefined,
          windowS,
        }),
      ]
    },
  )
}
