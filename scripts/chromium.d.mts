export declare const CHROMIUM_PATH: string
export declare function ensureChromium(options?: { log?: (message: string) => void }): string
