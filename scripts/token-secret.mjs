// Prints a new WAYBILL_TOKEN_SECRETS entry: a random 256-bit secret under an id (default: this
// month, e.g. "2026-11"). To rotate, put the new entry first in the list and keep the old ones
// until what they sealed has expired (see docs/configuration.md, "Token secrets").
//
//   npm run token-secret -- [id]
//   npm run token-secret | npx wrangler secret put WAYBILL_TOKEN_SECRETS   # a first secret

import { newSecret } from './secrets.mjs'

const [id = new Date().toISOString().slice(0, 7)] = process.argv.slice(2)
if (!/^[A-Za-z0-9_-]{1,16}$/.test(id)) {
  console.error('usage: npm run token-secret -- [id]   (1-16 characters of A-Z, a-z, 0-9, _ and -)')
  process.exit(2)
}
console.log(JSON.stringify([{ id, secret: newSecret() }]))
