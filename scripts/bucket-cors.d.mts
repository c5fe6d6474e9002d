export interface CorsRule {
  id?: string
  allowedOrigins: string[]
  allowedMethods: string[]
  allowedHeaders?: string[]
  exposeHeaders?: string[]
  maxAgeSeconds?: number
}

export declare const CORS_MAX_AGE_S: number
export declare const CORS_ALLOWED_METHODS: readonly string[]
export declare const CORS_ALLOWED_HEADERS: readonly string[]
export declare const CORS_EXPOSE_HEADERS: readonly string[]
export declare function corsRules(allowedOrigins: string[]): CorsRule[]
export declare function corsConfigurationXml(rules: CorsRule[]): string
export declare function applyBucketCors(options: {
  endpoint: string
  bucket: string
  region: string
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
  allowedOrigins: string[]
  style?: 'path' | 'virtual'
}): Promise<{ bucket: string; allowedOrigins: string[] }>
