// Test helper for the tests that run the two Workers as `npm start` does: two `wrangler dev`
// processes on one local state, so one SQLite file for D1 opened by two workerd processes, which a
// deployment's D1 never is (it runs one write at a time). A write of each at the same moment can
// fail with SQLITE_BUSY, a 503 `control_unavailable` (docs/getting-started.md).

import { USAGE_FLUSH_MS } from '../../src/limits'

/**
 * Resolves once the data plane has written the usage of the requests made before the call: its
 * last write is due at most USAGE_FLUSH_MS after its last request, and takes a few milliseconds
 * locally. Until its next request the data plane writes nothing more, so admin writes after this
 * never meet one of its writes. (The next request's usage is then written at once, after its
 * answer.)
 *
 * @example
 * await afterUsageWritten()
 * await fetch(`${adminUrl}/admin/v1/keys`, { method: 'POST', … })
 */
export function afterUsageWritten(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, USAGE_FLUSH_MS + 2_000))
}
