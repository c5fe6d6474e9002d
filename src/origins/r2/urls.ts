// An R2 origin's URLs: waybill's own (../../core/own/url.ts), on the host the request reached,
// answering to the API key that asked for them. One signer per batch; a URL is one hash and one
// HMAC, four at a time.

import { prepareOwnSigner, type OwnMethod } from '../../core/own/url'
import type { SigningTime } from '../../core/window'
import type { BatchSigner, Minting, ObjectItem, Urls, UrlMethod } from '../types'

/** HEAD is answered by a GET URL: one URL reads the object either way. */
const OWN_METHOD: Readonly<Record<UrlMethod, OwnMethod>> = {
  GET: 'GET',
  HEAD: 'GET',
  PUT: 'PUT',
  DELETE: 'DELETE',
}

/** The URLs of the R2 origin `origin`: every method, response overrides, no versions. */
export function r2Urls(origin: string): Urls {
  return {
    methods: ['GET', 'HEAD', 'PUT', 'DELETE'],
    // R2 keeps one version of an object.
    versions: false,
    overrides: true,
    rsaSignatures: 0,
    signer(
      items: readonly ObjectItem[],
      method: UrlMethod,
      time: SigningTime,
      minting: Minting,
    ): BatchSigner {
      const signer = prepareOwnSigner({
        secrets: minting.secrets,
        base: minting.base,
        origin,
        method: OWN_METHOD[method],
        expires: Math.floor(time.expiresAt.getTime() / 1000),
        issuer: minting.issuer,
      })
      const own = items.map(({ key, response }) => ({
        key,
        terms: response === undefined ? undefined : { response },
      }))
      return {
        expiresAt: time.expiresAt,
        signedAt: time.signedAt,
        sign: (from = 0, to = items.length) =>
          Promise.resolve(
            signer.signAll(from === 0 && to === own.length ? own : own.slice(from, to)),
          ),
        explain: (item) =>
          signer.explain({
            key: item.key,
            terms: item.response === undefined ? undefined : { response: item.response },
          }),
      }
    },
  }
}
