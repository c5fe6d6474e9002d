// The R2 driver: a bucket reached through the Worker's own binding. Its URLs are waybill's own,
// on the Worker's host, and the Worker serves them (reads with ranges, conditions and an optional
// edge cache; PUT, POST forms and multipart uploads streamed in), so a URL answers to its issuer
// at every use and R2's account host is never shown. docs/r2.md.

import type { Origin, OriginDriver } from '../types'
import { r2Listing } from './listing'
import { r2Served } from './serve'
import { r2Settings, type R2Settings } from './settings'
import { r2Uploads } from './uploads'
import { r2Urls } from './urls'

/** An R2 origin: what every origin is, and its binding's settings. */
type R2Origin = Origin & R2Settings

export const r2: OriginDriver<R2Settings> = {
  type: 'r2',
  schema: r2Settings,
  create(name, settings): R2Origin {
    return Object.freeze({
      ...settings,
      name,
      urls: r2Urls(name),
      listing: Object.freeze(r2Listing(settings.bucket)),
      uploads: Object.freeze(r2Uploads(name, settings)),
      served: Object.freeze(r2Served(name, settings)),
    })
  },
}
