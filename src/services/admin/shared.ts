// What the admin services share: ids, times, pages, and D1's failures as answers.

import * as v from 'valibot'
import type { Config, ControlConfig } from '../../config'
import { grantSchema, type GrantDefinition } from '../../config/grants'
import { DEFAULT_ADMIN_PAGE } from '../../limits'
import { invalid, type FieldError } from '../../errors'
import { fieldErrors } from '../../schemas/valibot'
import { unavailable } from '../../control/plane'

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz'

/**
 * A new record id: `<prefix>_`, the time in base 36 (so ids sort by creation, and pages follow
 * them), then 10 random characters.
 */
export function newId(prefix: string, now: Date): string {
  const random = crypto.getRandomValues(new Uint8Array(10))
  let tail = ''
  for (const byte of random) tail += BASE36[byte % 36]
  return `${prefix}_${now.getTime().toString(36).padStart(9, '0')}${tail}`
}

export function iso(ms: number): string {
  return new Date(ms).toISOString()
}

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms)
}

/** The admin routes run only with a control plane (adminAuthenticated checks). */
export function controlOf(config: Config): ControlConfig {
  if (config.control === undefined) throw new Error('adminAuthenticated lets no request through')
  return config.control
}

/**
 * `read` as the admin API's answer: D1's failures are a 503 (logged without the statement's
 * values), a uniqueness conflict raced past the service's own check is the 400 `conflict` says.
 */
export async function stored<T>(read: () => Promise<T>, conflict?: FieldError): Promise<T> {
  try {
    return await read()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (conflict !== undefined && /UNIQUE constraint failed/.test(message)) {
      throw invalid([conflict])
    }
    throw unavailable(
      error,
      'The control plane (D1) cannot be reached; nothing was changed. Retry shortly.',
    )
  }
}

/** One page of rows by id: `limit` of them and the next page's cursor (null at the end). */
export function page<T extends { id: string }>(rows: readonly T[], limit: number) {
  const more = rows.length > limit
  const kept = more ? rows.slice(0, limit) : rows
  return { rows: kept, cursor: more ? kept.at(-1)!.id : null }
}

export function pageOf(query: { limit?: number | undefined; cursor?: string | undefined }) {
  return { after: query.cursor ?? '', limit: query.limit ?? DEFAULT_ADMIN_PAGE }
}

const KEY_SUBJECT = /^apiKey:(?![A-Za-z0-9][A-Za-z0-9._-]{0,63}$)/

/**
 * Why a subject the control plane would store names nobody, or undefined: an `apiKey:` subject must
 * name a key id as keys are named (WAYBILL_GRANTS itself takes any text there, which matches no
 * key; stored, it would only clutter).
 */
export function subjectProblem(to: string): string | undefined {
  return KEY_SUBJECT.test(to)
    ? 'must name a key as "apiKey:<id>", the id 1-64 characters of A-Z, a-z, 0-9, ".", "_" and "-"'
    : undefined
}

/**
 * A grant checked as WAYBILL_GRANTS checks one, against today's origins; each problem named under
 * `at` (`grants.3.`, or nothing for a body that is the grant).
 */
export function checkGrant(
  config: Config,
  input: unknown,
  at: string,
): { grant: GrantDefinition } | { errors: FieldError[] } {
  const parsed = v.safeParse(grantSchema(config.origins), input)
  if (parsed.success) return { grant: parsed.output }
  return {
    errors: fieldErrors(parsed.issues).map(({ path, message }) => ({
      path: path === 'body' ? at.replace(/\.$/, '') || 'body' : `${at}${path}`,
      message,
    })),
  }
}
