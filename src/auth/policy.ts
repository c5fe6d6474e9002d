// What a principal may sign. For now a principal either may or may not use an origin; grants by
// prefix and action come with the authorization issue and belong here.

import type { Config, Origin } from '../config'
import { WaybillError } from '../errors'
import type { Principal } from './principal'

/**
 * The origin `name` if `principal` may sign for it. A principal limited to some origins gets 403
 * for any other name, configured or not, so it cannot probe which origins exist.
 *
 * @param field where the name came from, for the error (`origin` in a body, a path segment).
 */
export function authorizeOrigin(
  config: Config,
  principal: Principal,
  name: string,
  field: string,
): Origin {
  const allowed = principal.origins === '*' || principal.origins.has(name)
  if (!allowed) {
    throw new WaybillError('forbidden', `This caller may not sign for origin "${name}".`, {
      errors: [{ path: field, message: 'is not an origin this caller may use' }],
    })
  }
  const origin = config.origins.get(name)
  if (origin === undefined) {
    throw new WaybillError('not_found', `No origin named "${name}" is configured.`, {
      errors: [{ path: field, message: 'names no configured origin' }],
    })
  }
  return origin
}
