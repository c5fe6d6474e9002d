// An R2 origin in WAYBILL_ORIGINS, reached through the Worker's own binding: the Worker signs its
// own URLs, on its own host, and serves them from the bucket (docs/r2.md).
//   { "media": { "type": "r2", "binding": "MEDIA",
//                "keys"?: "safe" | "any", "signingWindow"?: 3600,
//                "cors"?: { "origins": ["https://app.example.com"], "maxAgeS"?: 600 },
//                "cacheControl"?: "private, max-age=3600", "edgeCacheTtl"?: 0,
//                "parts"?: "WAYBILL_UPLOAD_PARTS", "maxBodyBytes"?: 100000000 } }

import * as v from 'valibot'
import {
  DEFAULT_WORKER_BODY_BYTES,
  MAX_EDGE_CACHE_TTL_S,
  MAX_WORKER_BODY_BYTES,
} from '../../limits'
import type { Env } from '../../env'
import { Cors, type CorsConfig } from '../../schemas/cors'
import { Keys, type KeyPolicy } from '../../schemas/config'
import { SigningWindow, wholeNumber } from '../../schemas/fields'
import { isRecord, pathTo, strictFields, typeName } from '../../schemas/valibot'
import type { UploadPartsStub } from './parts'

/** The Durable Object namespace that records the parts of multipart uploads (./parts.ts). */
interface UploadPartsNamespace {
  idFromName(name: string): DurableObjectId
  get(id: DurableObjectId): UploadPartsStub
}

/** An R2 origin's settings, as its entry of WAYBILL_ORIGINS says them (bindings resolved). */
export interface R2Settings {
  readonly type: 'r2'
  /** The name of its R2 binding, for messages. */
  readonly binding: string
  readonly bucket: R2Bucket
  readonly keys: KeyPolicy
  readonly signingWindow: number
  /** Which pages may read and upload its objects from a browser; none: same origin only. */
  readonly cors?: CorsConfig | undefined
  /** The Cache-Control of an object that sets none (a URL's override and the object's own win). */
  readonly cacheControl: string
  /** Seconds an object stays in the edge cache (the Cache API); 0 keeps none there. */
  readonly edgeCacheTtl: number
  /** Where multipart uploads record their parts; none: no multipart uploads. */
  readonly parts: UploadPartsNamespace | undefined
  /** The most one upload request (a PUT, a form, a part) may carry: the Workers plan's limit. */
  readonly maxBodyBytes: number
}

const BINDING_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
const bindingMessage = 'must name an R2 bucket binding, such as "MEDIA"'
const partsMessage = 'must name a Durable Object namespace binding of class UploadParts'
/** The binding `parts` names when it is not set, used when it exists. */
const DEFAULT_PARTS = 'WAYBILL_UPLOAD_PARTS'
const DEFAULT_CACHE_CONTROL = 'private, max-age=3600'

const has = (value: unknown, methods: readonly string[]) =>
  isRecord(value) && methods.every((name) => typeof value[name] === 'function')

/** One R2 entry of WAYBILL_ORIGINS, for an env that holds the bindings it names. */
export function r2Settings(env: Env) {
  const bindings = env as unknown as Readonly<Record<string, unknown>>
  return v.pipe(
    strictFields(
      {
        type: v.literal('r2'),
        binding: v.pipe(v.string(bindingMessage), v.regex(BINDING_NAME, bindingMessage)),
        keys: Keys,
        signingWindow: v.optional(SigningWindow, 0),
        cors: Cors,
        cacheControl: v.optional(
          v.pipe(
            v.string('must be a Cache-Control value'),
            v.regex(/^[\x20-\x7e]{1,256}$/, 'must be a Cache-Control value (printable ASCII)'),
          ),
          DEFAULT_CACHE_CONTROL,
        ),
        edgeCacheTtl: v.optional(
          wholeNumber(
            0,
            MAX_EDGE_CACHE_TTL_S,
            `must be a whole number of seconds from 0 to ${MAX_EDGE_CACHE_TTL_S}`,
          ),
          0,
        ),
        parts: v.optional(v.pipe(v.string(partsMessage), v.regex(BINDING_NAME, partsMessage))),
        maxBodyBytes: v.optional(
          wholeNumber(
            1,
            MAX_WORKER_BODY_BYTES,
            `must be a whole number of bytes from 1 to ${MAX_WORKER_BODY_BYTES} (the Workers plan's request body limit)`,
          ),
          DEFAULT_WORKER_BODY_BYTES,
        ),
      },
      { type: 'must be an object' },
    ),
    v.rawTransform(({ dataset: { value: origin }, addIssue, NEVER }): R2Settings => {
      const bucket = bindings[origin.binding]
      if (!has(bucket, ['get', 'put', 'head', 'delete', 'createMultipartUpload'])) {
        addIssue({
          message: `must name an R2 bucket binding (wrangler.jsonc: "r2_buckets": [{ "binding": "${origin.binding}", "bucket_name": "…" }]); ${origin.binding} is ${bucket === undefined ? 'not bound' : typeName(bucket)}`,
          path: pathTo(origin, 'binding'),
        })
        return NEVER
      }
      const partsName = origin.parts ?? DEFAULT_PARTS
      const parts = bindings[partsName]
      if (parts !== undefined && !has(parts, ['idFromName', 'get'])) {
        addIssue({
          message: `${partsMessage}; ${partsName} is ${typeName(parts)}`,
          path: pathTo(origin, 'parts'),
        })
        return NEVER
      }
      if (origin.parts !== undefined && parts === undefined) {
        addIssue({
          message: `${partsMessage} (wrangler.jsonc: "durable_objects": { "bindings": [{ "name": "${partsName}", "class_name": "UploadParts" }] }); ${partsName} is not bound`,
          path: pathTo(origin, 'parts'),
        })
        return NEVER
      }
      return Object.freeze({
        ...origin,
        bucket: bucket as R2Bucket,
        parts: parts as UploadPartsNamespace | undefined,
      })
    }),
  )
}
