export declare function makePng(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number],
): Buffer
export declare function demoImages(): Record<string, { body: Buffer | string; contentType: string }>
export interface DevOptions {
  port: number
  adminPort: number
  s3Port: number
  appOrigins: string[]
  keep: boolean
  json: boolean
  help: boolean
}
export declare function parseDevArgs(argv: string[]): DevOptions
export declare function workerVars(options: {
  wranglerVars: Record<string, unknown>
  devVars: Record<string, string>
  s3Endpoint: string
  adminTokenSha256: string
  tokenSecrets: { id: string; secret: string }[]
  appOrigins: string[]
}): {
  /** The data plane's. */
  vars: Record<string, string>
  /** The admin plane's: its admin tokens. */
  adminVars: Record<string, string>
  /** False when the run's key "demo" cannot be made (.dev.vars names one, or holds the admin tokens). */
  apiKey: boolean
  /** False when .dev.vars's WAYBILL_ADMIN_TOKENS left the run's admin token out. */
  admin: boolean
  fromDevVars: string[]
  corsOrigins: string[] | '*'
  warnings: string[]
}
export declare function envFileText(vars: Record<string, string>): string
export declare function bucketOrigins(port: number, appOrigins: string[]): string[]
