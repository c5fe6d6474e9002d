// A sealed token's codec, for each kind of token waybill hands out (links, upload handles and
// receipts, listing cursors): one purpose, one schema its value must pass when it comes back, and
// what it is bound to (a caller, a key, an origin, a listing) that it does not carry. Sealing and
// the one token format are ../core/token.ts.

import * as v from 'valibot'
import { openToken, sealToken, type TokenFault, type TokenSecret } from '../core/token'

/** Seals and opens tokens of one kind. */
export interface Sealed<TValue, TBinding extends unknown[]> {
  /** `value` sealed with the first of `secrets`, bound to what `binding` names. */
  seal(secrets: readonly TokenSecret[], value: TValue, ...binding: TBinding): string
  /** The value a token of this kind carries, when sealed for this binding; or why not. */
  open(
    secrets: readonly TokenSecret[],
    token: string,
    ...binding: TBinding
  ): { value: TValue } | { fault: TokenFault }
}

/**
 * The codec for tokens of `purpose` whose values `schema` checks, bound to `binding(...)`.
 *
 * @example
 * const cursors = sealed('list-cursor', Cursor, (origin: string) => origin)
 * const token = cursors.seal(config.tokenSecrets, { i: 0, a: 'x' }, 'photos')
 * const opened = cursors.open(config.tokenSecrets, token, 'photos') // { value: { i: 0, a: 'x' } }
 */
export function sealed<const TSchema extends v.GenericSchema, TBinding extends unknown[] = []>(
  purpose: string,
  schema: TSchema,
  binding: (...args: TBinding) => string = () => '',
): Sealed<v.InferOutput<TSchema>, TBinding> {
  return {
    seal: (secrets, value, ...args) => sealToken(secrets, purpose, value, binding(...args)),
    open(secrets, token, ...args) {
      const opened = openToken(secrets, purpose, token, binding(...args))
      if ('fault' in opened) return opened
      const parsed = v.safeParse(schema, opened.value)
      return parsed.success ? { value: parsed.output } : { fault: 'malformed' }
    },
  }
}
