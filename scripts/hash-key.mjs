// Prints a new random API key and the WAYBILL_API_KEYS entry for it (only the SHA-256 is stored).
//
//   npm run hash-key -- <id> [origin ...]      # new random key for <id>, for all origins if none given
//   echo -n "$KEY" | npm run hash-key -- --stdin <id> [origin ...]   # hash an existing key

import { createHash, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'

const args = process.argv.slice(2)
const fromStdin = args[0] === '--stdin'
if (fromStdin) args.shift()
const [id, ...origins] = args
if (id === undefined || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(id)) {
  console.error('usage: npm run hash-key -- [--stdin] <id> [origin ...]')
  process.exit(2)
}
const key = fromStdin
  ? readFileSync(0, 'utf8').trim()
  : `wb_${randomBytes(32).toString('base64url')}`
const entry = {
  id,
  sha256: createHash('sha256').update(key).digest('hex'),
  origins: origins.length > 0 ? origins : ['*'],
}
if (!fromStdin) console.log(`API key (give it to the caller; it is not stored anywhere): ${key}`)
console.log(`WAYBILL_API_KEYS entry: ${JSON.stringify(entry)}`)
