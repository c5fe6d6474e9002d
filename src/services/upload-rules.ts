// GET /v1/uploads/rules: what the caller may upload on an origin, before it picks a file.

import { uploadRules } from '../auth/upload-rules'
import type { Config } from '../config'
import type { Principal } from '../principal'
import type { UploadRulesQuery } from '../schemas/upload-rules'
import { uploadOrigin } from './uploads'

/**
 * The caller's upload rules on the origin, or the 403 an upload there gets (an origin it holds no
 * grant on, or one that takes no uploads).
 *
 * @example
 * uploadRulesOf(config, alice, { origin: 'photos' }) // { origin: 'photos', rules: [...] }
 */
export function uploadRulesOf(config: Config, principal: Principal, query: UploadRulesQuery) {
  const origin = uploadOrigin(config, principal, query.origin)
  return { origin: origin.name, rules: uploadRules(config, principal, origin) }
}
