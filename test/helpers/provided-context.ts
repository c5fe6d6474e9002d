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

/** The webhook receiver the global setup runs, and the secret it verifies deliveries with. */
interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`: deliveries to any path but /control and /events. */
  baseUrl: string
  /** `whsec_…`, generated for this run. */
  secret: string
}

/** One delivery the receiver took, as `GET /events` lists it. */
export interface WebhookRecord {
  /** Its `webhook-id` header. */
  id: string
  /** Whether `standardwebhooks` verified it with the receiver's secret. */
  verified: boolean
  body: string
  /** What the receiver answered: 204, 401 (not verified) or 503 (told to fail). */
  status: number
}

declare module 'vitest' {
  export interface ProvidedContext {
    s3: S3TestServer
    apiKey: TestApiKey
    cryptoService: string
    /** A CloudFront edge in front of the e2e bucket (test/helpers/cloudfront-edge.ts). */
    cloudFrontEdge: string
    testKeys: TestKeys
    webhook: WebhookReceiver
  }
}
