import { Hono } from 'hono'
import { authorize } from '../auth/policy'
import { cacheControlUntil } from '../http/cache'
import type { Clock } from '../http/clock'
import { ORIGIN_NAME } from '../config/names'
import { checkExpiresIn, checkObjectKey } from '../core/s3/presign'
import { batchSigner } from '../services/signers'
import { invalid, type FieldError } from '../errors'
import type { AppEnv } from '../http/types'

const PREFIX = '/v1/redirect/'

/**
 * The object key from the raw request path, decoded exactly once. Hono's own parameter decoding is
 * not used because the key must keep every byte the client percent-encoded (`%2F`, `%25`, `+`).
 */
function keyFromPath(pathname: string): string | FieldError {
  // Everything after the origin segment as sent: the origin segment itself is checked raw (an
  // encoded origin name is refused), so the cut cannot move.
  const rest = pathname.slice(PREFIX.length)
  const raw = rest.slice(rest.indexOf('/') + 1)
  let key: string
  try {
    key = decodeURIComponent(raw)
  } catch {
    return { path: 'key', message: 'is not valid percent-encoded UTF-8' }
  }
  const problem = checkObjectKey(key)
  return problem === undefined ? key : { path: 'key', message: problem }
}

/**
 * `GET /v1/redirect/{origin}/{key…}`: 302 to a fresh presigned GET URL. The redirect may be cached
 * privately, but never past the URL's own expiry less a margin for clock skew and transfer time.
 */
export function redirectRoutes(clock: Clock) {
  // [\s\S]: Hono matches the decoded path, and a key may hold line terminators (%0A, %E2%80%A8).
  return new Hono<AppEnv>().get('/:origin/:key{[\\s\\S]+}', async (c) => {
    const config = c.get('config')
    const requestUrl = new URL(c.req.url)
    const rawOrigin = requestUrl.pathname.slice(PREFIX.length).split('/')[0]!
    const originName = rawOrigin
    const errors: FieldError[] = []
    if (!ORIGIN_NAME.test(rawOrigin)) {
      errors.push({ path: 'origin', message: 'must be an origin name (a-z, 0-9, "-", "_")' })
    }
    const key = keyFromPath(requestUrl.pathname)
    if (typeof key !== 'string') errors.push(key)
    for (const name of new Set(requestUrl.searchParams.keys())) {
      if (name !== 'expiresIn') {
        errors.push({ path: name, message: 'is not a known parameter (known: expiresIn)' })
      }
    }

    let expiresIn: number | undefined
    const expiresParam = c.req.query('expiresIn')
    if (expiresParam !== undefined) {
      const value = /^\d{1,7}$/.test(expiresParam) ? Number(expiresParam) : NaN
      const problem = checkExpiresIn(value)
      if (problem !== undefined) errors.push({ path: 'expiresIn', message: problem })
      else expiresIn = value
    }
    if (errors.length > 0) throw invalid(errors)

    Object.assign(c.get('log'), { origin: originName, action: 'read', items: 1 })
    const permit = authorize(config, c.get('principal'), {
      origin: originName,
      action: 'read',
      items: [{ key: key as string }],
      itemPath: () => 'key',
      expiresIn,
    })
    const now = clock()
    const signer = batchSigner(permit, { method: 'GET', now })
    const [url] = await signer.sign()
    return c.body(null, 302, {
      location: url!,
      'cache-control': cacheControlUntil(signer.expiresAt, now),
      // The response differs per caller.
      vary: 'Authorization, Cookie',
    })
  })
}
