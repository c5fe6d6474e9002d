// Credentials configured as SHA-256 hashes: WAYBILL_API_KEYS (callers) and WAYBILL_ADMIN_TOKENS
// (the admin API). Both are `[{ "id", "sha256", "label"? }]`; only the hash is ever configured.

import * as v from 'valibot'
import { hexDecode } from '../core/bytes'
import { KeyId, KeyLabel } from '../schemas/fields'
import { list, pathTo, strict } from '../schemas/valibot'
import type { ApiKey } from './types'

const SHA256_HEX = /^[0-9a-f]{64}$/

/**
 * The schema of one such variable (a secret), named `variable` in its messages; `command` prints
 * an entry. None at all is valid.
 *
 * @example
 * const ApiKeys = hashedKeys('WAYBILL_API_KEYS', 'npm run hash-key')
 */
export function hashedKeys(variable: string, command: string) {
  const sha256Message = `must be the SHA-256 of the key as 64 lower-case hex digits (${command})`
  return v.optional(
    v.pipe(
      list(
        strict(
          {
            id: KeyId,
            label: v.optional(KeyLabel),
            sha256: v.pipe(
              v.string(sha256Message),
              v.regex(SHA256_HEX, sha256Message),
              v.transform(hexDecode),
            ),
          },
          { type: 'must be an object { "id", "sha256", "label"? }' },
        ),
        () => 'must be a JSON array of { "id", "sha256", "label"? }',
      ),
      v.rawTransform(({ dataset: { value: keys }, addIssue }): readonly ApiKey[] => {
        const first = new Map<string, number>()
        keys.forEach(({ id }, index) => {
          const earlier = first.get(id)
          if (earlier === undefined) first.set(id, index)
          else
            addIssue({
              message: `duplicates ${variable}.${earlier}.id`,
              path: pathTo(keys, index, 'id'),
            })
        })
        return Object.freeze(keys.map((key) => Object.freeze(key)))
      }),
    ),
    [],
  )
}
