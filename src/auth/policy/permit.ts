// What `authorize` answers: a permit (the only thing the signers accept) or a refusal.

import type { Action, Origin } from '../../config'
import type { FieldError } from '../../errors'
import { MAX_REPORTED_ERRORS as MAX_LISTED } from '../../limits'
import type { ObjectItem } from '../../origins/types'
import type { Content } from './reach'

declare const PERMIT: unique symbol

/** The answer of `authorize` when it allows: exactly what may be signed, and nothing else. */
export interface Permit {
  readonly [PERMIT]: true
  readonly origin: Origin
  readonly action: Action
  /** The objects to sign (for a `listed` reach, only the covered ones), in request order. */
  readonly items: readonly ObjectItem[]
  /** The key patterns the artifact reaches. */
  readonly under: readonly string[]
  /** The least life every URL has from the request time, and the signing window to use. */
  readonly expiresIn: number
  readonly window: number
  /** The longest any URL may live (its grant's `maxExpiresIn`): the window shrinks to fit. */
  readonly maxLifetime: number
  readonly content: Content | undefined
  /** The largest body the signature admits, `'grant'` resolved; undefined: unsigned or unlimited. */
  readonly maxContentLength: number | undefined
  /** Entries one more artifact of this kind may carry for this caller (listings size pages by it). */
  readonly maxCount: number
}

/** Why nothing may be signed. The services answer `no-grant` and `not-covered` as 403, `invalid` as 400. */
export interface Refusal {
  readonly refused: 'no-grant' | 'not-covered' | 'invalid'
  /** One sentence for the whole refusal. */
  readonly detail: string
  /** Each field at fault, up to the reporting cap. */
  readonly errors: readonly FieldError[]
}

export function isRefusal(answer: Permit | Refusal | Origin): answer is Refusal {
  return 'refused' in answer
}

/**
 * What a permit is made as. Its brand is a private field, which only this class can give or test:
 * a copy of a permit (`{ ...permit, items }`) or an object made to look like one is not one. (Not a
 * WeakSet of issued permits: each entry costs the garbage collector, on every request.)
 */
class Minted {
  readonly #minted = true
  static has(value: object): boolean {
    return #minted in value
  }
}

/** True for a permit this module made; the signers refuse anything else. */
export function isPermit(value: unknown): value is Permit {
  return typeof value === 'object' && value !== null && Minted.has(value)
}

/** The one place a permit is made: by `authorize`, or for a followed link by `linkPermit`. */
export function mint(fields: Omit<Permit, typeof PERMIT>): Permit {
  return Object.freeze(Object.assign(new Minted(), fields)) as unknown as Permit
}

export function noGrant(action: Action, originName: string): Refusal {
  // The same answer for unknown and ungranted origins, so callers cannot probe the config.
  return {
    refused: 'no-grant',
    detail: `No grant lets this caller ${action} on origin "${originName}".`,
    errors: [{ path: 'origin', message: `no grant to ${action} on this origin` }],
  }
}

/**
 * What an origin cannot serve (an S3 origin's cookies, a CloudFront origin's uploads, overrides
 * its distribution does not forward): refused as an artifact no grant covers, a 403. The document
 * cannot know a deployment's origins, so a request it allows is never a 400 for them.
 */
export function notServed(origin: Origin, errors: readonly FieldError[]): Refusal {
  return {
    refused: 'not-covered',
    detail: `Origin "${origin.name}" cannot serve this request.`,
    errors: errors.slice(0, MAX_LISTED),
  }
}

export function invalidFields(errors: readonly FieldError[]): Refusal {
  return { refused: 'invalid', detail: '', errors: errors.slice(0, MAX_LISTED) }
}
