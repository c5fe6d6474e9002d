// Where a policy refusal becomes a problem: the one place that gives `authorize`'s reasons their
// HTTP meaning (src/errors.ts maps codes to statuses). A caller no grant covers, or an artifact
// the origin cannot serve, is `forbidden` (403); a field a grant limits is `invalid_request` (400).

import {
  authorize,
  grantedOrigin,
  isRefusal,
  type Permit,
  type Reach,
  type Refusal,
} from '../auth/policy'
import type { Principal } from '../principal'
import type { Action, Config, Origin } from '../config'
import type { Minting } from '../origins/types'
import { invalid, WaybillError } from '../errors'

/** The problem a refusal answers. */
function refusalError(refusal: Refusal): WaybillError {
  if (refusal.refused === 'invalid') return invalid(refusal.errors)
  return new WaybillError('forbidden', refusal.detail, { errors: refusal.errors })
}

/**
 * The permit for `reach`, or the problem saying why not.
 *
 * @example
 * const permit = permitFor(config, principal, { kind: 'urls', action: 'read', origin: 'photos',
 *   items: [{ key: 'a.jpg' }], itemPath: (i) => `keys.${i}` })
 */
export function permitFor(config: Config, principal: Principal, reach: Reach): Permit {
  const answer = authorize(config, principal, reach)
  if (isRefusal(answer)) throw refusalError(answer)
  return answer
}

/**
 * What the URLs a caller gets on this request carry of it, for an origin whose URLs the Worker
 * serves itself: the host the request reached, and the API key that answers for them.
 */
export function mintingFor(config: Config, principal: Principal, base: string): Minting {
  return {
    base,
    issuer: principal.kind === 'api-key' ? principal.id : null,
    secrets: config.tokenSecrets,
  }
}

/** The origin, when the caller holds a grant there; otherwise the 403 an unknown origin gets. */
export function originFor(
  config: Config,
  principal: Principal,
  name: string,
  action: Action,
): Origin {
  const answer = grantedOrigin(config, principal, name, action)
  if (isRefusal(answer)) throw refusalError(answer)
  return answer
}
