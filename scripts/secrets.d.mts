export declare const newSecret: (prefix?: string) => string
export declare const sha256Hex: (text: string) => string
export declare const hashedEntry: (id: string, secret: string) => { id: string; sha256: string }
