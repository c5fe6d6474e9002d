export declare const SCHEMATHESIS_VERSION: string
export declare function ensureSchemathesis(options?: { log?: (message: string) => void }): string
