// Listing an R2 origin's objects through the binding, a page at a time, in R2's (UTF-8 byte) order.

import { R2_LIST_PAGE_MAX } from '../../limits'
import type { ListPage, ListPageInput, Listing } from '../types'
import { storeFailure } from './store'

/** The listing of `bucket`. */
export function r2Listing(bucket: R2Bucket): Listing {
  return {
    pageMax: R2_LIST_PAGE_MAX,
    async page(input: ListPageInput): Promise<ListPage> {
      let listed: R2Objects
      try {
        listed = await bucket.list({
          prefix: input.prefix,
          delimiter: input.delimiter,
          limit: Math.min(input.maxKeys, R2_LIST_PAGE_MAX),
          cursor: input.continuationToken,
          startAfter: input.continuationToken === undefined ? input.startAfter : undefined,
        })
      } catch (error) {
        throw storeFailure('ListObjects', error)
      }
      return {
        objects: listed.objects.map((object) => ({
          key: object.key,
          size: object.size,
          etag: object.httpEtag,
          lastModified: object.uploaded.toISOString(),
        })),
        prefixes: listed.delimitedPrefixes,
        next: listed.truncated ? listed.cursor : undefined,
      }
    },
  }
}
