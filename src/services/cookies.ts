// CloudFront signed cookies: a wildcard policy for everything under a prefix, as cookies.

import { authorize } from '../auth/policy'
import type { Principal } from '../auth/principal'
import type { Config } from '../config'
import type { CookiesBody } from '../schemas/cookies'
import { cloudFrontCookies } from './signers'

/** Authorizes the pattern (a wildcard grant must contain it) and signs its cookies. */
export async function signCookies(
  config: Config,
  principal: Principal,
  body: CookiesBody,
  now: Date,
) {
  const permit = authorize(config, principal, {
    origin: body.origin,
    action: 'read',
    under: [{ prefix: body.prefix, path: 'prefix' }],
    expiresIn: body.expiresIn,
    fits: (origin) =>
      origin.type === 'cloudfront'
        ? []
        : [{ path: 'origin', message: 'signed cookies need a CloudFront origin' }],
  })
  return { ...(await cloudFrontCookies(permit, now)), lifetime: permit.expiresIn }
}
