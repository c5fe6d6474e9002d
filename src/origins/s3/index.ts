// The S3 driver: a bucket on AWS S3 or an S3-compatible store. Presigned SigV4 URLs for every
// method, listing through ListObjectsV2, and browser uploads (PUT, POST forms where the store takes
// them, multipart).

import { S3_LIST_PAGE_MAX } from '../../limits'
import type { Listing, Origin, OriginDriver } from '../types'
import { s3Settings, type S3Settings } from './settings'
import { listObjectsPage } from './store'
import { s3Uploads } from './uploads'
import { s3Urls } from './urls'

/** An S3 origin: what every origin is, and its bucket's settings. */
export type S3Origin = Origin & S3Settings

export const s3: OriginDriver<S3Settings> = {
  type: 's3',
  schema: s3Settings,
  create(name, settings): S3Origin {
    return Object.freeze({
      ...settings,
      name,
      urls: s3Urls(settings),
      listing: Object.freeze<Listing>({
        pageMax: S3_LIST_PAGE_MAX,
        page: (input) => listObjectsPage(settings, input),
      }),
      uploads: Object.freeze(s3Uploads(settings, settings.postPolicy)),
    })
  },
}
