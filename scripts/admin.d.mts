export type AdminRequest =
  | { url?: string; method: string; path: string; body?: unknown; token?: undefined }
  | { url?: string; token: string }
export declare function adminRequest(argv: string[]): AdminRequest
export declare function adminToken(id: string): {
  token: string
  entry: { id: string; sha256: string }
}
export declare function runAdmin(
  argv: string[],
  deps?: {
    fetch?: (url: string, init: RequestInit) => Promise<Response>
    env?: Record<string, string | undefined>
    print?: (line: string) => void
    fail?: (line: string) => void
  },
): Promise<number>
