export declare const SCHEMATHESIS_VERSION: string
export declare function ensureSchemathesis(options?: { log?: (message: string) => void }): string
export declare function installInBackground(outcome: string): { st: string; stop: () => void }
export declare function waitForInstall(outcome: string, timeoutMs?: number): Promise<void>
