// One object's URL for a redirect: authorized and signed like a batch of one.

import { authorize } from '../auth/policy'
import type { Principal } from '../auth/principal'
import type { Config } from '../config'
import { cacheControlUntil, VARY } from '../http/answer'
import { batchSigner } from './signers'

/** The signed URL to send the caller to, and the headers that let the redirect be cached. */
export async function redirectTo(
  config: Config,
  principal: Principal,
  target: { origin: string; key: string; expiresIn?: number | undefined },
  now: Date,
): Promise<{ location: string; headers: Record<string, string> }> {
  const permit = authorize(config, principal, {
    origin: target.origin,
    action: 'read',
    items: [{ key: target.key }],
    itemPath: () => 'key',
    expiresIn: target.expiresIn,
  })
  const signer = batchSigner(permit, { method: 'GET', now })
  const [location] = await signer.sign()
  return {
    location: location!,
    headers: { 'cache-control': cacheControlUntil(signer.expiresAt, now), vary: VARY },
  }
}
