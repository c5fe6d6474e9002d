export declare const VERSITYGW_VERSION: string
export declare function ensureVersitygw(options?: { log?: (message: string) => void }): string
export declare function freePort(): Promise<number>
export declare function portBelowEphemeral(): Promise<number>
export declare function startVersitygw(options: {
  dataDir: string
  accessKeyId: string
  secretAccessKey: string
  port?: number
  buckets?: string[]
  region?: string
  /** Keep client connections open, as S3 does (default true). */
  keepAlive?: boolean
}): Promise<{ endpoint: string; port: number; stop: () => Promise<void> }>
