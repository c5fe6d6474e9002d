// The one pool of the client: files of a batch and parts of a multipart upload each run through
// one, so that at most `limit` of them are in flight at once, first come, first served.

/** Runs `job` once fewer than `limit` jobs of this pool are running. */
export type Pool = <T>(job: () => Promise<T>) => Promise<T>

export function createPool(limit: number): Pool {
  let running = 0
  const waiting: Array<() => void> = []
  return async (job) => {
    if (running >= Math.max(1, limit)) await new Promise<void>((go) => waiting.push(go))
    running++
    try {
      return await job()
    } finally {
      running--
      waiting.shift()?.()
    }
  }
}
