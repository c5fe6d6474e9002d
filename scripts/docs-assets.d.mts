export declare const DOCS_BUNDLE: string
export declare function copyDocsAssets(): string
