import type { Context } from 'hono'

/**
 * Work to finish after the answer: the request's `ExecutionContext.waitUntil`, or, where there is
 * none (`app.request` without one, as tests call it), the work simply runs on its own.
 */
export function deferOf(c: Context): (work: Promise<unknown>) => void {
  let context: { waitUntil(promise: Promise<unknown>): void } | undefined
  try {
    context = c.executionCtx
  } catch {
    // No ExecutionContext.
  }
  return deferTo(context)
}

/** `deferOf` for a request's own ExecutionContext, where one was given. */
export function deferTo(
  context: { waitUntil(promise: Promise<unknown>): void } | undefined,
): (work: Promise<unknown>) => void {
  return (work) => {
    if (context === undefined) void work
    else context.waitUntil(work)
  }
}
