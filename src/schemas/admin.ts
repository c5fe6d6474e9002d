// The admin API's requests and answers (/admin/v1, src/routes/admin.ts), and the fields the
// configuration shares with it (a key's id and label).

import * as v from 'valibot'

const idMessage = 'must be 1-64 characters of A-Z, a-z, 0-9, ".", "_" and "-"'
const labelMessage = 'must be a string of at most 200 characters, without control characters'

/** An API key's (or admin token's) id: the caller `api-key:<id>`, named by grants as `apiKey:<id>`. */
export const KeyId = v.pipe(
  v.string(idMessage),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, idMessage),
  v.description('A key id: `apiKey:<id>` in grants, `api-key:<id>` in logs and usage.'),
  v.examples(['web']),
)

/** A label for people; stored and answered as given, never interpreted. */
export const KeyLabel = v.pipe(
  v.string(labelMessage),
  v.maxLength(200, labelMessage),
  v.regex(/^[^\p{Cc}]*$/u, labelMessage),
  v.description('What the key is for, for people.'),
)
