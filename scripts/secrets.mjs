// The secrets the scripts make (API keys, admin tokens, token secrets) and the entries the
// configuration keeps of them: the SHA-256 of a key or token, never the thing itself.

import { createHash, randomBytes } from 'node:crypto'

/** 256 random bits as base64url, after `prefix` (`wb_` for an API key, `wba_` an admin token). */
export const newSecret = (prefix = '') => `${prefix}${randomBytes(32).toString('base64url')}`

/** The hex SHA-256 that WAYBILL_API_KEYS and WAYBILL_ADMIN_TOKENS keep of a key or token. */
export const sha256Hex = (text) => createHash('sha256').update(text).digest('hex')

/** A WAYBILL_API_KEYS or WAYBILL_ADMIN_TOKENS entry for `secret`. */
export const hashedEntry = (id, secret) => ({ id, sha256: sha256Hex(secret) })
