export declare const DOCS_BUNDLE: string
export declare const CLIENT_BUNDLE: string
export declare const API_DOCUMENT: string
export declare const DOCS_PAGE: string
export declare const DOCS_SCRIPT: string
export interface Plane {
  dir: string
  document: string
  title: string
}
export declare const PLANES: { data: Plane; admin: Plane }
export declare function renderDocsPage(title?: string): Promise<string>
export declare function writeApiAssets(plane?: Plane): Promise<{
  document: string
  page: string
  script: string
}>
export declare function copyDocsAssets(plane?: Plane): string
export declare function buildClientBundle(): Promise<{
  path: string
  bytes: number
  gzipBytes: number
}>
export declare function buildVendorAssets(): Promise<{
  api: { document: string; page: string; script: string }
  adminApi: { document: string; page: string; script: string }
  docs: string
  client: { path: string; bytes: number; gzipBytes: number }
}>
