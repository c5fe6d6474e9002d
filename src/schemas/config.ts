// What several config variables share, and the origin drivers' schemas too: an origin's key
// policy, web URLs, and reading the secrets a field names. (The field schemas shared with the
// routes are in ./fields.ts.)

import * as v from 'valibot'
import { pathTo } from './valibot'
import type { Env } from '../env'

/**
 * Which object keys an origin signs: `safe` refuses keys a client or CDN could normalize into
 * another key (`.`/`..` segments, `//`, backslashes, control characters); `any` signs every key
 * the store accepts.
 */
export type KeyPolicy = 'safe' | 'any'

/** An origin's `keys`. */
export const Keys = v.optional(
  v.picklist(
    ['safe', 'any'] as const satisfies readonly KeyPolicy[],
    'must be "safe" (the default) or "any"',
  ),
  'safe',
)

/** A string that `parse` turns into its value, or refuses (undefined) with `message`. */
export function parsedString<TOutput>(
  message: string,
  parse: (text: string) => TOutput | undefined,
) {
  return v.pipe(
    v.string(message),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const parsed = parse(dataset.value)
      if (parsed !== undefined) return parsed
      addIssue({ message })
      return NEVER
    }),
  )
}

/** `value` as a URL with one of `protocols` and no credentials, or undefined. */
export function webUrl(value: string, protocols = ['https:', 'http:']): URL | undefined {
  const url = URL.parse(value)
  if (url === null || !protocols.includes(url.protocol)) return undefined
  return url.username === '' && url.password === '' ? url : undefined
}

type AddIssue = (info: { message: string; path: [v.IssuePathItem, ...v.IssuePathItem[]] }) => void

/**
 * Reads the secret `name` with `schema`, from the `v.rawTransform` of the field that names it. Its
 * problems are raised at `pathTo(env, name)`, which the config's errors file under the secret's
 * own name (saying which field named it), never with its value.
 *
 * @example
 * const pem = readSecret(env, 'CDN_PRIVATE_KEY', Pem, addIssue)
 * return pem.success ? pem.output : NEVER
 */
export function readSecret<const TSchema extends v.GenericSchema>(
  env: Env,
  name: string,
  schema: TSchema,
  addIssue: AddIssue,
): v.SafeParseResult<TSchema> {
  const result = v.safeParse(schema, env[name])
  for (const issue of result.issues ?? []) {
    addIssue({ message: issue.message, path: pathTo(env, name) })
  }
  return result
}
