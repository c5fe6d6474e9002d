// What a caller may upload on an origin, known before it picks a file: one rule per write grant of
// the caller's there, read from the grants `authorize` judges an upload by (`applicable`), each
// field as its rule reads it. An upload is permitted exactly when one rule admits all of it: its
// key, type, size, mode and overwrite (test/auth/upload-rules.property.test.ts holds the rules to
// `authorize`).
//
// Pure: no I/O, no clock, no HTTP.

import type { Config, Origin } from '../config'
import { typesAdmittedBy } from '../core/media-type'
import type { Principal } from '../principal'
import { applicable, resolvePrefix } from './policy'

type UploadMode = 'put' | 'post' | 'multipart'

/** What one write grant lets the caller upload. */
export interface UploadRule {
  /** The grant's prefix, filled for the caller: a key it covers starts with it on whole segments. */
  readonly prefix: string
  /**
   * The grant's `uploadKey` filled for the caller, `{uuid}` and `{filename}` left as they are;
   * null when it has none, or one the caller's claims cannot fill.
   */
  readonly uploadKey: string | null
  /** The types the grant names (a family such as `image/*` admits its passive types); null: any. */
  readonly contentTypes: string[] | null
  /** Every type an upload may have: `contentTypes` with each family as its passive types. */
  readonly admittedTypes: string[] | null
  /** The most bytes an upload may have (which it must state); null: the store's own limit. */
  readonly maxContentLength: number | null
  /** A POST form replaces what is at its key: only where the grant allows that, and the store. */
  readonly modes: UploadMode[]
  readonly overwrite: boolean
  readonly maxExpiresIn: number
  readonly maxBatch: number
}

/** The filled `uploadKey` leaves an upload's own placeholders for the upload to fill. */
const OWN_PLACEHOLDERS = { uuid: '{uuid}', filename: '{filename}' }

/**
 * The caller's upload rules on `origin`, one per write grant, in the order the grants apply (a
 * file sent by name gets the key of the first rule with an `uploadKey`).
 *
 * @example
 * uploadRules(config, alice, photos)
 * // [{ prefix: 'users/alice/', contentTypes: ['image/*'], admittedTypes: ['image/apng', …], … }]
 */
export function uploadRules(config: Config, principal: Principal, origin: Origin): UploadRule[] {
  return applicable(config, principal, origin).flatMap(({ grant, prefix }): UploadRule[] => {
    if (!grant.actions.has('write')) return []
    const uploadKey =
      grant.uploadKey === undefined
        ? undefined
        : resolvePrefix(grant.uploadKey, principal, OWN_PLACEHOLDERS)
    const { contentTypes } = grant
    return [
      {
        prefix,
        uploadKey: uploadKey ?? null,
        contentTypes: contentTypes === undefined ? null : [...contentTypes],
        admittedTypes:
          contentTypes === undefined ? null : [...new Set(contentTypes.flatMap(typesAdmittedBy))],
        maxContentLength: grant.maxContentLength ?? null,
        modes: (origin.uploads?.modes ?? []).filter((mode) => mode !== 'post' || grant.overwrite),
        overwrite: grant.overwrite,
        maxExpiresIn: grant.maxExpiresIn,
        maxBatch: grant.maxBatch,
      },
    ]
  })
}
