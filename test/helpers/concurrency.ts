// Test helper: bounded concurrency for seeding and fetching many objects.

/**
 * Maps `items` through `fn` with at most `limit` calls in flight, keeping input order. The first
 * failure rejects the whole map; calls already started are left to finish.
 *
 * @example
 * const pages = await mapConcurrent(prefixes, 6, (prefix) => listPage(origin, prefix))
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++
      results[index] = await fn(items[index]!, index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}
