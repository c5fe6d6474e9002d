// Turns the Worker's `env` into a frozen, checked Config, once per env object (so once per isolate).
// Every problem is collected, not just the first, and each names the variable and the field. Secret
// values are never echoed: a message may say a secret is missing or malformed, never what it holds.

import {
  DEFAULT_EXPIRES_S,
  DEFAULT_MAX_BATCH,
  DEFAULT_MAX_RSA_SIGNATURES,
  MAX_BATCH_CEILING,
  MAX_RSA_SIGNATURES_CEILING,
} from './limits'
import { resolveS3Endpoint, type AddressingStyle } from '../core/s3/endpoint'
import { checkExpiresIn } from '../core/s3/presign'
import type { Env } from './env'
import type { FieldError } from '../errors'
import { parseAuth } from './auth'
import { parseCloudFrontOrigin } from './cloudfront'
import { parseCors } from './cors'
import { parseGrants } from './grants'
import type { ApiKey, Config, ConfigResult, KeyPolicy, Origin, S3Origin } from './types'
import { isRecord, rejectUnknownFields } from '../validation'
import { ORIGIN_NAME } from './names'
import { parseSigningWindow } from './window'

const CREDENTIALS_REF = /^[A-Z][A-Z0-9_]{0,63}$/
const REGION = /^[a-z0-9][a-z0-9-]{0,62}$/
// S3 bucket naming rules (general purpose buckets), minus the legacy upper-case forms.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/
const IPV4 = /^\d+\.\d+\.\d+\.\d+$/
const API_KEY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
const SHA256_HEX = /^[0-9a-f]{64}$/

const S3_FIELDS = new Set([
  'type',
  'bucket',
  'region',
  'endpoint',
  'style',
  'credentials',
  'keys',
  'signingWindow',
  'postPolicy',
])
const API_KEY_FIELDS = new Set(['id', 'label', 'sha256'])

const cache = new WeakMap<object, ConfigResult>()

/**
 * Parses and validates the Worker's configuration. The result is cached per `env` object, which
 * workerd keeps for the life of an isolate, so the work happens once.
 *
 * @example
 * const result = loadConfig(env)
 * if (!result.ok) console.log(result.errors) // [{ path: 'WAYBILL_ORIGINS.photos.bucket', message: '…' }]
 */
export function loadConfig(env: Env): ConfigResult {
  const cached = cache.get(env)
  if (cached !== undefined) return cached
  const result = parseConfig(env)
  cache.set(env, result)
  return result
}

/** Uncached parse, for tests. */
export function parseConfig(env: Env): ConfigResult {
  const errors: FieldError[] = []
  const origins = parseOrigins(env, errors)
  // Checking grants against a broken origin list would only add noise.
  const originsValid = errors.length === 0
  const apiKeys = parseApiKeys(env, errors)
  const { jwt, access } = parseAuth(env, jsonValue(env, 'WAYBILL_AUTH', errors), errors)
  const cors = parseCors(jsonValue(env, 'WAYBILL_CORS', errors), errors)
  const maxBatch = parseInteger(
    env,
    'WAYBILL_MAX_BATCH',
    DEFAULT_MAX_BATCH,
    1,
    MAX_BATCH_CEILING,
    errors,
  )
  const grants = parseGrants(
    jsonValue(env, 'WAYBILL_GRANTS', errors),
    originsValid ? origins : undefined,
    { maxBatch },
    errors,
  )
  const defaultExpiresIn = parseDefaultExpires(env, errors)
  const maxRsaSignatures = parseInteger(
    env,
    'WAYBILL_MAX_RSA_SIGNATURES',
    DEFAULT_MAX_RSA_SIGNATURES,
    1,
    MAX_RSA_SIGNATURES_CEILING,
    errors,
  )
  const requestLog = env.WAYBILL_REQUEST_LOG ?? 'all'
  if (requestLog !== 'all' && requestLog !== 'errors') {
    errors.push({ path: 'WAYBILL_REQUEST_LOG', message: 'must be "all" (the default) or "errors"' })
  }
  if (errors.length > 0) return Object.freeze({ ok: false, errors: Object.freeze(errors) })
  const config: Config = Object.freeze({
    origins,
    apiKeys,
    jwt,
    access,
    grants,
    cors,
    maxBatch,
    defaultExpiresIn,
    maxRsaSignatures,
    requestLog: requestLog as Config['requestLog'],
  })
  return Object.freeze({ ok: true, config })
}

/** Wrangler vars may be JSON values already; secrets and `.dev.vars` entries are strings. */
function jsonValue(env: Env, name: string, errors: FieldError[]): unknown {
  const raw = env[name]
  if (typeof raw !== 'string') return raw
  if (raw.trim() === '') return undefined
  try {
    return JSON.parse(raw)
  } catch {
    errors.push({ path: name, message: 'is not valid JSON' })
    return undefined
  }
}

function parseOrigins(env: Env, errors: FieldError[]): ReadonlyMap<string, Origin> {
  const origins = new Map<string, Origin>()
  const credentialsByRef = new Map<string, S3Origin['credentials'] | undefined>()
  const value = jsonValue(env, 'WAYBILL_ORIGINS', errors)
  if (value === undefined) {
    const raw = env.WAYBILL_ORIGINS
    if (raw === undefined || (typeof raw === 'string' && raw.trim() === '')) {
      errors.push({ path: 'WAYBILL_ORIGINS', message: 'is not set; define at least one origin' })
    }
    return origins
  }
  if (!isRecord(value)) {
    errors.push({
      path: 'WAYBILL_ORIGINS',
      message: 'must be a JSON object of origin name to origin',
    })
    return origins
  }
  if (Object.keys(value).length === 0) {
    errors.push({ path: 'WAYBILL_ORIGINS', message: 'must define at least one origin' })
  }
  for (const [name, definition] of Object.entries(value)) {
    const path = `WAYBILL_ORIGINS.${name}`
    if (!ORIGIN_NAME.test(name)) {
      errors.push({
        path,
        message:
          'origin names are 1-63 characters of a-z, 0-9, "-" and "_", starting with a letter or digit',
      })
      continue
    }
    if (!isRecord(definition)) {
      errors.push({ path, message: 'must be an object' })
      continue
    }
    if (definition.type !== 's3' && definition.type !== 'cloudfront') {
      errors.push({ path: `${path}.type`, message: 'must be "s3" or "cloudfront"' })
      continue
    }
    const origin =
      definition.type === 's3'
        ? parseS3Origin(env, name, definition, path, errors, credentialsByRef)
        : parseCloudFrontOrigin(env, name, definition, path, errors)
    if (origin !== undefined) origins.set(name, origin)
  }
  for (const origin of origins.values()) {
    if (origin.type !== 'cloudfront' || origin.listFrom === undefined) continue
    if (origins.get(origin.listFrom)?.type !== 's3') {
      errors.push({
        path: `WAYBILL_ORIGINS.${origin.name}.listFrom`,
        message: `must name an S3 origin defined in WAYBILL_ORIGINS ("${origin.listFrom}" is not one)`,
      })
    }
  }
  return origins
}

function parseS3Origin(
  env: Env,
  name: string,
  def: Record<string, unknown>,
  path: string,
  errors: FieldError[],
  credentialsByRef: Map<string, S3Origin['credentials'] | undefined>,
): S3Origin | undefined {
  const before = errors.length
  rejectUnknownFields(def, S3_FIELDS, path, errors)

  const { bucket, region, endpoint, style, credentials, keys, postPolicy } = def
  const signingWindow = parseSigningWindow(def.signingWindow, `${path}.signingWindow`, errors)
  if (postPolicy !== undefined && typeof postPolicy !== 'boolean') {
    errors.push({ path: `${path}.postPolicy`, message: 'must be true or false' })
  }
  if (keys !== undefined && keys !== 'safe' && keys !== 'any') {
    errors.push({ path: `${path}.keys`, message: 'must be "safe" (the default) or "any"' })
  }
  if (
    typeof bucket !== 'string' ||
    !BUCKET.test(bucket) ||
    bucket.includes('..') ||
    IPV4.test(bucket)
  ) {
    errors.push({
      path: `${path}.bucket`,
      message: 'must be an S3 bucket name: 3-63 characters of a-z, 0-9, "." and "-"',
    })
  }
  if (typeof region !== 'string' || !REGION.test(region)) {
    errors.push({
      path: `${path}.region`,
      message: 'must be a region such as "us-east-1" or "auto"',
    })
  }

  let endpointOrigin: string | undefined
  if (endpoint !== undefined) {
    endpointOrigin = parseEndpoint(endpoint, `${path}.endpoint`, errors)
  }

  let addressing: AddressingStyle = endpoint === undefined ? 'virtual' : 'path'
  if (style !== undefined) {
    if (style === 'virtual' || style === 'path') addressing = style
    else errors.push({ path: `${path}.style`, message: 'must be "virtual" or "path"' })
  }
  if (
    addressing === 'virtual' &&
    typeof bucket === 'string' &&
    bucket.includes('.') &&
    (endpoint === undefined || endpointOrigin?.startsWith('https:') === true)
  ) {
    // A dotted bucket name adds a subdomain level the store's wildcard TLS certificate does not cover.
    errors.push({
      path: `${path}.style`,
      message:
        'must be "path" for a bucket name with dots over HTTPS (the TLS certificate will not match)',
    })
  }

  let resolvedCredentials: S3Origin['credentials'] | undefined
  if (typeof credentials !== 'string' || !CREDENTIALS_REF.test(credentials)) {
    errors.push({
      path: `${path}.credentials`,
      message:
        'must name the secrets to use, in upper case: "PHOTOS" reads PHOTOS_ACCESS_KEY_ID and PHOTOS_SECRET_ACCESS_KEY',
    })
  } else {
    // Origins sharing a reference share its secrets: read (and report) them once.
    if (!credentialsByRef.has(credentials)) {
      credentialsByRef.set(credentials, readCredentials(env, credentials, errors))
    }
    resolvedCredentials = credentialsByRef.get(credentials)
  }

  if (errors.length > before || resolvedCredentials === undefined) return undefined
  const s3Style = addressing
  return Object.freeze({
    name,
    type: 's3',
    bucket: bucket as string,
    region: region as string,
    style: s3Style,
    endpoint: Object.freeze(
      resolveS3Endpoint({
        bucket: bucket as string,
        region: region as string,
        endpoint: endpointOrigin,
        style: s3Style,
      }),
    ),
    credentials: resolvedCredentials,
    keys: (keys ?? 'safe') as KeyPolicy,
    signingWindow,
    postPolicy: (postPolicy as boolean | undefined) ?? true,
  })
}

function parseEndpoint(value: unknown, path: string, errors: FieldError[]): string | undefined {
  const problem =
    'must be an http(s) origin such as "https://<account>.r2.cloudflarestorage.com" or "http://127.0.0.1:7070" (no path, query or credentials)'
  if (typeof value !== 'string') {
    errors.push({ path, message: problem })
    return undefined
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    errors.push({ path, message: problem })
    return undefined
  }
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== '' ||
    url.pathname !== '/'
  ) {
    errors.push({ path, message: problem })
    return undefined
  }
  return url.origin
}

function readCredentials(
  env: Env,
  ref: string,
  errors: FieldError[],
): S3Origin['credentials'] | undefined {
  const idName = `${ref}_ACCESS_KEY_ID`
  const secretName = `${ref}_SECRET_ACCESS_KEY`
  const tokenName = `${ref}_SESSION_TOKEN`
  const accessKeyId = env[idName]
  const secretAccessKey = env[secretName]
  const sessionToken = env[tokenName]
  let ok = true
  if (typeof accessKeyId !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(accessKeyId)) {
    errors.push({ path: idName, message: 'must be set (a secret) to an access key id' })
    ok = false
  }
  if (typeof secretAccessKey !== 'string' || !/^[\x21-\x7e]{1,256}$/.test(secretAccessKey)) {
    errors.push({ path: secretName, message: 'must be set (a secret) to a secret access key' })
    ok = false
  }
  if (
    sessionToken !== undefined &&
    (typeof sessionToken !== 'string' || !/^[\x21-\x7e]+$/.test(sessionToken))
  ) {
    errors.push({ path: tokenName, message: 'must be a session token when set' })
    ok = false
  }
  if (!ok) return undefined
  return Object.freeze({
    accessKeyId: accessKeyId as string,
    secretAccessKey: secretAccessKey as string,
    sessionToken: sessionToken === undefined ? undefined : (sessionToken as string),
  })
}

function parseApiKeys(env: Env, errors: FieldError[]): readonly ApiKey[] {
  const keys: ApiKey[] = []
  const value = jsonValue(env, 'WAYBILL_API_KEYS', errors)
  // No API keys is a valid configuration: then only the methods in WAYBILL_AUTH can authenticate.
  if (value === undefined) return Object.freeze(keys)
  if (!Array.isArray(value)) {
    errors.push({
      path: 'WAYBILL_API_KEYS',
      message: 'must be a JSON array of { "id", "sha256", "label"? }',
    })
    return Object.freeze(keys)
  }
  const ids = new Set<string>()
  value.forEach((entry: unknown, index) => {
    const path = `WAYBILL_API_KEYS.${index}`
    if (!isRecord(entry)) {
      errors.push({ path, message: 'must be an object { "id", "sha256", "label"? }' })
      return
    }
    const before = errors.length
    rejectUnknownFields(entry, API_KEY_FIELDS, path, errors)
    const { id, sha256, label } = entry
    if (typeof id !== 'string' || !API_KEY_ID.test(id)) {
      errors.push({
        path: `${path}.id`,
        message: 'must be 1-64 characters of A-Z, a-z, 0-9, ".", "_" and "-"',
      })
    } else if (ids.has(id)) {
      errors.push({ path: `${path}.id`, message: `duplicates the id "${id}"` })
    } else {
      ids.add(id)
    }
    if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
      errors.push({
        path: `${path}.sha256`,
        message: 'must be the SHA-256 of the key as 64 lower-case hex digits (npm run hash-key)',
      })
    }
    if (label !== undefined && (typeof label !== 'string' || label.length > 200)) {
      errors.push({ path: `${path}.label`, message: 'must be a string of at most 200 characters' })
    }
    if (errors.length > before) return
    keys.push(
      Object.freeze({
        id: id as string,
        label: label as string | undefined,
        sha256: hexToBytes(sha256 as string),
      }),
    )
  })
  return Object.freeze(keys)
}

function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2)
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return bytes
}

function parseInteger(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
  errors: FieldError[],
): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    errors.push({ path: name, message: `must be a whole number from ${min} to ${max}` })
    return fallback
  }
  return value
}

function parseDefaultExpires(env: Env, errors: FieldError[]): number {
  const before = errors.length
  const value = parseInteger(
    env,
    'WAYBILL_DEFAULT_EXPIRES_S',
    DEFAULT_EXPIRES_S,
    1,
    Number.MAX_SAFE_INTEGER,
    errors,
  )
  if (errors.length === before) {
    const problem = checkExpiresIn(value)
    if (problem !== undefined) errors.push({ path: 'WAYBILL_DEFAULT_EXPIRES_S', message: problem })
  }
  return value
}
