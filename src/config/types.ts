import type { AddressingStyle, S3Endpoint } from '../core/s3/endpoint'
import type { Credentials } from '../core/s3/presign'
import type { FieldError } from '../errors'

export interface S3Origin {
  readonly name: string
  readonly type: 's3'
  readonly bucket: string
  readonly region: string
  readonly style: AddressingStyle
  readonly endpoint: S3Endpoint
  readonly credentials: Readonly<Credentials>
}

export type Origin = S3Origin

export interface ApiKey {
  readonly id: string
  /** SHA-256 of the key, 32 bytes. The raw key is never stored. */
  readonly sha256: Uint8Array
  /** Origin names this key may sign for; `'*'` for all. */
  readonly origins: '*' | ReadonlySet<string>
}

export interface Config {
  readonly origins: ReadonlyMap<string, Origin>
  readonly apiKeys: readonly ApiKey[]
  readonly maxBatch: number
  readonly defaultExpiresIn: number
}

export type ConfigResult =
  | { readonly ok: true; readonly config: Config }
  | { readonly ok: false; readonly errors: readonly FieldError[] }
