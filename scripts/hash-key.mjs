// Prints a new random API key and the WAYBILL_API_KEYS entry for it (only the SHA-256 is stored).
//
//   npm run hash-key -- <id> [label]                          # a new random key for <id>
//   echo -n "$KEY" | npm run hash-key -- --stdin <id> [label]   # hash an existing key
//
// What the key may sign is set by WAYBILL_GRANTS entries with "to": "apiKey:<id>".

import { readFileSync } from 'node:fs'
import { hashedEntry, newSecret } from './secrets.mjs'

const args = process.argv.slice(2)
const fromStdin = args[0] === '--stdin'
if (fromStdin) args.shift()
const [id, ...labelWords] = args
if (id === undefined || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(id)) {
  console.error('usage: npm run hash-key -- [--stdin] <id> [label]')
  process.exit(2)
}
const key = fromStdin ? readFileSync(0, 'utf8').trim() : newSecret('wb_')
const entry = hashedEntry(id, key)
if (labelWords.length > 0) entry.label = labelWords.join(' ')
if (!fromStdin) console.log(`API key (give it to the caller; it is not stored anywhere): ${key}`)
console.log(`WAYBILL_API_KEYS entry: ${JSON.stringify(entry)}`)
console.log(
  `Grant it something in WAYBILL_GRANTS, e.g. {"to":"apiKey:${id}","origin":"<origin>","actions":["read"]}`,
)
