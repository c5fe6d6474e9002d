// waybill-client/redirect: URLs of waybill's redirect, for pages whose credential is a cookie
// (Cloudflare Access, or the JWT cookie). Apart from the core entry, which most pages load
// without needing it.

import type { WaybillClient } from './client.ts'
import { contextOf } from './context.ts'
import { keyPath } from './paths.ts'

/** Options of `redirectUrl`. */
export interface RedirectOptions {
  /** Serve it as a download: `true` names it after the key's last segment. */
  download?: true | string | undefined
  /** Serve it inline, under this file name (`true`: the key's last segment). */
  inline?: true | string | undefined
  /** The Content-Type the store serves it with, where the grant allows. */
  contentType?: string | undefined
  /** Seconds the signed URL lives (capped by the grant). */
  expiresIn?: number | undefined
}

/**
 * The URL of `GET /v1/redirect/{origin}/{key…}`, which answers a 302 to a fresh signed URL: for
 * an `<img src>` or a link where the credential is a cookie (Cloudflare Access, or the JWT
 * cookie). It carries no credential itself; for a link anyone may follow, use `client.links()`.
 *
 * @example
 * import { redirectUrl } from 'waybill-client/redirect'
 * img.src = redirectUrl(waybill, 'photos', 'gallery/cat picture.jpg')
 * a.href = redirectUrl(waybill, 'photos', 'reports/2026.pdf', { download: 'Report 2026.pdf' })
 */
export function redirectUrl(
  client: WaybillClient,
  origin: string,
  key: string,
  options?: RedirectOptions,
): string {
  return contextOf(client).http.url(`/v1/redirect/${encodeURIComponent(origin)}/${keyPath(key)}`, {
    ...options,
  })
}
