// What the global setup hands to the pool config and to tests through `inject()`.
export interface S3TestServer {
  endpoint: string
  port: number
  bucket: string
  accessKeyId: string
  secretAccessKey: string
}

export interface TestApiKey {
  key: string
  sha256: string
}

/** PEM keys generated for this run (never committed). */
export interface TestKeys {
  rsaPkcs1: string
  rsaPkcs8: string
  rsaPublic: string
  ecSec1: string
  ecPkcs8: string
  ecPublic: string
  /** Too small for CloudFront. */
  rsa1024: string
  /** A curve CloudFront does not accept. */
  ecP384: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    s3: S3TestServer
    apiKey: TestApiKey
    cryptoService: string
    testKeys: TestKeys
  }
}
