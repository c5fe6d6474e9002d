export interface EntrySize {
  /** The export: `.`, `./react`, … */
  entry: string
  bytes: number
  gzipBytes: number
  budgetBytes: number | undefined
}
export declare const CLIENT_GZIP_BUDGET_BYTES: Readonly<Record<string, number>>
export declare function clientSizes(): Promise<EntrySize[]>
export declare function formatSizes(sizes: readonly EntrySize[]): string
export declare function buildClient(): Promise<{ sizes: EntrySize[]; over: EntrySize[] }>
