// A reach's denials as one refusal: 403 when a target is not covered, else 400, each field once.

import type { FieldError } from '../../errors'
import { MAX_REPORTED_ERRORS as MAX_LISTED } from '../../limits'
import { invalidFields, type Refusal } from './permit'
import type { Reach } from './reach'
import type { Denial } from './rules/rule'

/** Field errors for the refusals of a reach's targets: per-target ones, then artifact-wide ones. */
function collect(denials: readonly Denial[]): { covered: FieldError[]; invalid: FieldError[] } {
  const covered: FieldError[] = []
  const invalid: FieldError[] = []
  // Artifact-wide fields (batch, expiresIn, signingWindow) once each, at the least bound.
  const wide = new Map<string, Denial>()
  for (const denial of denials) {
    if (denial.bound !== undefined) {
      const seen = wide.get(denial.error.path)
      if (seen === undefined || denial.bound < seen.bound!) wide.set(denial.error.path, denial)
    } else if (denial.kind === 'not-covered') covered.push(denial.error)
    else invalid.push(denial.error)
  }
  for (const denial of wide.values()) invalid.push(denial.error)
  return { covered, invalid }
}

/**
 * The refusal for a reach's denials: 403 when a target is not covered, else 400; none, none. Its
 * sentence names the first of the keys not covered that the caller sent (`named`).
 */
export function refusalOf(
  denials: readonly Denial[],
  uncovered: number,
  reach: Reach,
  named: readonly string[],
): Refusal | undefined {
  if (denials.length === 0) return undefined
  const { covered, invalid } = collect(denials)
  if (covered.length > 0) {
    const n = Math.max(uncovered, covered.length)
    const more = n - named.length
    const keys =
      named.length === 0
        ? ''
        : ` (${named.map((key) => JSON.stringify(key)).join(', ')}${more > 0 ? ` and ${more} more` : ''})`
    // A listing is one request over its prefixes, not a batch of entries: its errors name them.
    return {
      refused: 'not-covered',
      detail:
        reach.kind === 'listing'
          ? "This listing is not covered by this caller's grants to list; nothing was listed."
          : `${n} ${n === 1 ? 'entry is' : 'entries are'} not covered by this caller's grants${keys}; nothing was signed.`,
      errors: covered.slice(0, MAX_LISTED),
    }
  }
  return invalidFields(invalid)
}
