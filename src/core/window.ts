// Signing windows: quantized signing times so that every request for the same object within one
// window gets the same URL, which browsers and CDNs can then cache. Pure: `now` is an input.

import { MAX_EXPIRES_S } from './limits'

export interface SigningTime {
  /** The signing time: `now`, or the start of the current window. */
  readonly signedAt: Date
  /** Seconds from `signedAt` to expiry (X-Amz-Expires). */
  readonly lifetime: number
  readonly expiresAt: Date
  /** The window actually used, in seconds (0 when none). */
  readonly window: number
}

/**
 * When to sign and how long for, so a URL stays valid at least `expiresIn` seconds from `now`.
 * With a window of W seconds, the signing time is the start of the current window and the lifetime
 * is W + expiresIn: the same pair for every request in the window, and still `expiresIn` of life
 * for a request made at the window's last instant. A window that would push the lifetime past
 * `maxLifetime` (seven days at most) is shortened to fit.
 *
 * @example
 * signingTime(new Date('2026-11-23T10:17:00Z'), 900, 3600)
 * // { signedAt: 2026-11-23T10:00:00Z, lifetime: 4500, expiresAt: 2026-11-23T11:15:00Z, window: 3600 }
 */
export function signingTime(
  now: Date,
  expiresIn: number,
  window: number,
  maxLifetime: number = MAX_EXPIRES_S,
): SigningTime {
  const nowS = Math.floor(now.getTime() / 1000)
  const fitted = Math.max(0, Math.min(window, Math.min(maxLifetime, MAX_EXPIRES_S) - expiresIn))
  const signedAtS = fitted > 0 ? nowS - (nowS % fitted) : nowS
  const lifetime = fitted + expiresIn
  return {
    signedAt: fitted > 0 ? new Date(signedAtS * 1000) : now,
    lifetime,
    expiresAt: new Date((signedAtS + lifetime) * 1000),
    window: fitted,
  }
}
