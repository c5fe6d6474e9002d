// What a request asks of one object's answer, as the signers take it: `download` and `inline`
// become the Content-Disposition override, `contentType` the Content-Type one.

import { MAX_FILENAME_BYTES } from '../limits'
import { contentDisposition, lastSegment, type DispositionType } from '../core/disposition'
import { sanitizeFilename } from '../core/filename'
import type { ObjectItem, ResponseOverrides } from '../origins/types'

/** One object as a request names it: a key and what its answer should say. */
export interface ObjectRequest {
  key: string
  versionId?: string | undefined
  response?: ResponseOverrides | undefined
  /** A file name, or true for the key's last segment. */
  download?: true | string | undefined
  inline?: true | string | undefined
  /** The same as `response.contentType`, for requests without `response`. */
  contentType?: string | undefined
}

/**
 * The signers' item for `request`: its overrides, with Content-Disposition built from `download` or
 * `inline` (the schemas make sure only one of them, and no `response.contentDisposition`, is set).
 */
export function objectItem({
  key,
  versionId,
  response,
  download,
  inline,
  contentType,
}: ObjectRequest): ObjectItem {
  const [type, name]: [DispositionType, true | string] | [undefined, undefined] =
    download !== undefined
      ? ['attachment', download]
      : inline !== undefined
        ? ['inline', inline]
        : [undefined, undefined]
  if (type === undefined && contentType === undefined) return { key, versionId, response }
  return {
    key,
    versionId,
    response: {
      ...response,
      ...(contentType === undefined ? {} : { contentType }),
      ...(type === undefined
        ? {}
        : {
            // A key's last segment may be long and non-ASCII: sanitized and bounded like an
            // upload's name, so the header (and the URL that carries it) stays small.
            contentDisposition: contentDisposition(
              type,
              name === true ? sanitizeFilename(lastSegment(key), MAX_FILENAME_BYTES) : name,
            ),
          }),
    },
  }
}
