export declare const DOCS_BUNDLE: string
export declare const CLIENT_BUNDLE: string
export declare const API_DOCUMENT: string
export declare const DOCS_PAGE: string
export declare const DOCS_SCRIPT: string
export declare function renderDocsPage(): Promise<string>
export declare function writeApiAssets(): Promise<{
  document: string
  page: string
  script: string
}>
export declare function copyDocsAssets(): string
export declare function buildClientBundle(): Promise<{
  path: string
  bytes: number
  gzipBytes: number
}>
export declare function buildVendorAssets(): Promise<{
  api: { document: string; page: string; script: string }
  docs: string
  client: { path: string; bytes: number; gzipBytes: number }
}>
