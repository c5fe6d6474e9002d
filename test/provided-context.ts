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

declare module 'vitest' {
  export interface ProvidedContext {
    s3: S3TestServer
    apiKey: TestApiKey
  }
}
