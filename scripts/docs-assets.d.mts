export declare const DOCS_BUNDLE: string
export declare const CLIENT_BUNDLE: string
export declare function copyDocsAssets(): string
export declare function buildClientBundle(): Promise<{
  path: string
  bytes: number
  gzipBytes: number
}>
export declare function buildVendorAssets(): Promise<{
  docs: string
  client: { path: string; bytes: number; gzipBytes: number }
}>
