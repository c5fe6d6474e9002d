// GET /v1/list/{origin}: the query and the answer.

import * as v from 'valibot'
import { MAX_LIST_LIMIT, MAX_LIST_PREFIXES } from '../limits'
import {
  characters,
  Cursor,
  KeyPrefix,
  OriginName,
  QueryExpiresIn,
  QuerySigningWindow,
  queryNumber,
  wholeNumber,
} from './fields'
import { list, strict } from './valibot'

export const ListParams = strict({ origin: OriginName })

export const ListQuery = strict(
  {
    prefix: v.optional(
      v.pipe(
        // Repeated in the query string: one value arrives as a string, several as an array.
        v.custom<string | string[]>(
          (value) => typeof value === 'string' || Array.isArray(value),
          'must be a key prefix',
        ),
        v.transform((value) => (typeof value === 'string' ? [value] : value)),
        list(KeyPrefix),
        v.maxLength(MAX_LIST_PREFIXES, `may be given at most ${MAX_LIST_PREFIXES} times`),
        v.checkItems(
          (prefix, index, prefixes) => prefixes.indexOf(prefix) === index,
          'repeats an earlier prefix',
        ),
        v.metadata(DOCS ? { uniqueItems: true } : {}),
        v.description(
          DOCS
            ? `Key prefixes to list, in order, each once (repeat up to ${MAX_LIST_PREFIXES} times); the whole bucket when absent.`
            : '',
        ),
      ),
      [''],
    ),
    delimiter: v.optional(
      v.pipe(
        characters(1, 16, 'must be 1 to 16 characters, such as "/"'),
        v.description(DOCS ? 'Group keys into common prefixes at this string, as S3 does.' : ''),
      ),
    ),
    limit: v.optional(
      v.pipe(
        queryNumber(
          wholeNumber(1, MAX_LIST_LIMIT),
          `must be a whole number from 1 to ${MAX_LIST_LIMIT}`,
        ),
        v.description(
          DOCS
            ? 'Entries (objects and common prefixes) in this answer; default 1,000 or the caller’s maxBatch if less.'
            : '',
        ),
      ),
    ),
    cursor: v.optional(Cursor),
    expiresIn: v.optional(QueryExpiresIn),
    signingWindow: v.optional(QuerySigningWindow),
  },
  { noun: 'parameter' },
)
export type ListQuery = v.InferOutput<typeof ListQuery>

// The answers' parts: read by the document's generator only (DOCS), as the answers are.
const ListedItem = DOCS
  ? v.object({
      key: v.string(),
      size: v.number(),
      etag: v.string(),
      lastModified: v.string(),
      url: v.optional(v.pipe(v.string(), v.description('Absent where the caller may not read.'))),
    })
  : (undefined as never)

// Read by the document's generator only (DOCS): the Workers' bundles keep no response schema.
export const ListAnswer = DOCS
  ? v.object({
      origin: v.string(),
      items: v.array(ListedItem),
      prefixes: v.pipe(v.array(v.string()), v.description('Common prefixes (with a delimiter).')),
      cursor: v.pipe(
        v.nullable(v.string()),
        v.description('Pass back as `cursor` to continue; null at the end.'),
      ),
      expiresAt: v.nullable(v.pipe(v.string(), v.isoTimestamp())),
    })
  : (undefined as never)
