// CloudFront signed cookies: a wildcard policy for everything under a prefix, as cookies.

import type { Principal } from '../principal'
import type { Config } from '../config'
import type { CookiesBody } from '../schemas/cookies'
import { WaybillError } from '../errors'
import { originFor, permitFor } from './permits'
import { cloudFrontCookies } from './signers'

/** Authorizes the pattern (a wildcard grant must contain it) and signs its cookies. */
export async function signCookies(
  config: Config,
  principal: Principal,
  body: CookiesBody,
  now: Date,
) {
  // An S3 origin issues no cookies: refused as an artifact no grant covers (403), like an origin
  // the caller has no grant on. The document cannot say which origins a deployment has.
  if (originFor(config, principal, body.origin, 'read').type !== 'cloudfront') {
    throw new WaybillError('forbidden', `Origin "${body.origin}" issues no signed cookies.`, {
      errors: [{ path: 'origin', message: 'signed cookies need a CloudFront origin' }],
    })
  }
  const permit = permitFor(config, principal, {
    kind: 'wildcard',
    origin: body.origin,
    pattern: { prefix: body.prefix, path: 'prefix' },
    items: [],
    itemPath: () => 'prefix',
    expiresIn: body.expiresIn,
  })
  return { ...(await cloudFrontCookies(permit, now)), lifetime: permit.expiresIn }
}
