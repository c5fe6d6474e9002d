// The permit a followed link carries: granted when the link was issued.

import type { Config } from '../../config'
import type { ObjectItem } from '../../origins/types'
import { unsafeKeyReason } from '../../core/key-safety'
import { mint, type Permit } from './permit'

/**
 * The permit a followed link carries: reading its one object, for `expiresIn` seconds at most
 * `maxLifetime` (what is left of the link). The link was authorized when it was issued
 * (`authorize` with a `links` reach); following it needs no caller, only the origin to exist
 * still and the key to pass its key policy. Undefined otherwise: a link to nothing.
 */
export function linkPermit(
  config: Config,
  link: { origin: string; item: ObjectItem; expiresIn: number; maxLifetime: number },
): Permit | undefined {
  const origin = config.origins.get(link.origin)
  if (
    origin === undefined ||
    (origin.keys === 'safe' && unsafeKeyReason(link.item.key) !== undefined)
  ) {
    return undefined
  }
  return mint({
    origin,
    action: 'read',
    items: [link.item],
    under: [],
    expiresIn: link.expiresIn,
    // A followed link's URL lives `maxLifetime` at most, whatever the origin's window.
    window: 0,
    maxLifetime: link.maxLifetime,
    content: undefined,
    maxContentLength: undefined,
    maxCount: 1,
  })
}
