// One object's URL for a redirect: authorized and signed like a batch of one.

import type { Principal } from '../principal'
import type { Config } from '../config'
import { lastSegment } from '../core/disposition'
import { invalid } from '../errors'
import { objectItem, type ObjectRequest } from './objects'
import { mintingFor, permitFor } from './permits'
import { batchSigner } from './signers'

/** The signed URL to send the caller to, and when it expires. */
export async function redirectTo(
  config: Config,
  principal: Principal,
  target: ObjectRequest & { origin: string; expiresIn?: number | undefined },
  now: Date,
  base: string,
): Promise<{ location: string; expiresAt: Date }> {
  if ((target.download ?? target.inline) === true && lastSegment(target.key) === '') {
    throw invalid([
      {
        path: target.download !== undefined ? 'download' : 'inline',
        message: 'needs a file name: the key has none after its last "/"',
      },
    ])
  }
  const permit = permitFor(config, principal, {
    kind: 'urls',
    origin: target.origin,
    action: 'read',
    items: [objectItem(target)],
    itemPath: () => 'key',
    overridePath: () => 'contentType',
    expiresIn: target.expiresIn,
  })
  const signer = batchSigner(permit, {
    method: 'GET',
    now,
    minting: mintingFor(config, principal, base),
  })
  const [location] = await signer.sign()
  return { location: location!, expiresAt: signer.expiresAt }
}
