// Signed cookies: a wildcard policy for everything under a prefix, as cookies (CloudFront's).

import type { Principal } from '../principal'
import type { Config } from '../config'
import type { CookiesBody } from '../schemas/cookies'
import { permitFor } from './permits'
import { wildcardCookies } from './signers'

/** Authorizes the pattern (a wildcard grant must contain it) and signs its cookies. */
export async function signCookies(
  config: Config,
  principal: Principal,
  body: CookiesBody,
  now: Date,
) {
  const permit = permitFor(config, principal, {
    kind: 'wildcard',
    origin: body.origin,
    pattern: { prefix: body.prefix, path: 'prefix' },
    items: [],
    itemPath: () => 'prefix',
    expiresIn: body.expiresIn,
    fits: (origin) =>
      origin.wildcards !== undefined
        ? []
        : [
            {
              path: 'origin',
              message: 'signed cookies need an origin with wildcard policies (CloudFront)',
            },
          ],
  })
  const signed = await wildcardCookies(permit, now)
  return { ...signed, origin: permit.origin.name, lifetime: permit.expiresIn }
}
