// Requests for the objects of an origin the Worker serves itself (R2 through its binding,
// `/o/<origin>/…`): its driver verifies each URL and serves it; this gives the driver what it
// asks of the layers above it: the secrets, and its URLs' issuers' standing at this moment.

import { issuerFallen, type KeyStanding } from '../auth/standing'
import type { Config } from '../config'
import { WaybillError } from '../errors'

/**
 * The answer to `request` for the origin `name`, from its driver. 404 for a name that is not an
 * origin this Worker serves (an S3 or CloudFront origin's URLs go to the store, not here).
 */
export function serveObject(
  config: Config,
  name: string,
  request: Request,
  now: Date,
  runtime: {
    waitUntil: (promise: Promise<unknown>) => void
    /** A stored API key's standing, when a control plane keeps keys. */
    storedKey?: ((id: string) => Promise<KeyStanding | undefined>) | undefined
  },
): Promise<Response> {
  const served = config.origins.get(name)?.served
  if (served === undefined) {
    throw new WaybillError('not_found', 'No origin of this Worker serves objects at this path.', {
      errors: [{ path: 'origin', message: 'is not an origin whose objects this Worker serves' }],
    })
  }
  return served.serve(request, {
    now,
    secrets: config.tokenSecrets,
    fallen: (issuer) => issuerFallen(config, issuer, now, runtime.storedKey),
    waitUntil: runtime.waitUntil,
  })
}
