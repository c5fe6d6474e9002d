// Retries with exponential backoff and jitter, and the abort plumbing they need.

import { MAX_RETRY_AFTER_MS, MAX_RETRY_DELAY_MS } from './constants.ts'
import { WaybillError } from './errors.ts'

/** The reason to reject with once `signal` has aborted. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError')
}

/** Throws the signal's reason when it has aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal)
}

/**
 * A signal that aborts when any of `signals` does, with its reason, or when `abort` is called.
 * (AbortSignal.any, for browsers from before 2024.)
 */
export function anySignal(signals: ReadonlyArray<AbortSignal | undefined>): {
  signal: AbortSignal
  abort: (reason: unknown) => void
  dispose: () => void
} {
  const controller = new AbortController()
  const present = signals.filter((s): s is AbortSignal => s !== undefined)
  const onAbort = (event: Event) => {
    controller.abort(abortReason(event.target as AbortSignal))
  }
  const dispose = () => {
    for (const s of present) s.removeEventListener('abort', onAbort)
  }
  for (const s of present) {
    if (s.aborted) {
      controller.abort(abortReason(s))
      break
    }
    s.addEventListener('abort', onAbort, { once: true })
  }
  return { signal: controller.signal, abort: (reason) => controller.abort(reason), dispose }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  throwIfAborted(signal)
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
  throwIfAborted(signal)
}

/**
 * The wait before retry `n` (0 for the first): "equal jitter" — half the exponential step plus a
 * random share of the other half, so clients that failed together do not retry together
 * (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/). A `Retry-After`
 * the server sent is waited for at least.
 */
function retryDelayMs(n: number, baseMs: number, retryAfterMs?: number): number {
  const step = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** n)
  const jittered = step / 2 + Math.random() * (step / 2)
  return Math.max(jittered, retryAfterMs ?? 0)
}

export interface RetryPolicy {
  retries: number
  baseDelayMs: number
  signal?: AbortSignal | undefined
}

/**
 * Runs `attempt` until it succeeds, retrying what may pass later (WaybillError.retryable: network
 * errors, 429, 5xx) up to `retries` times; never other 4xx. `attempt` gets the attempt's number
 * (0 first), so it can sign a fresh URL before a retry.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  attempt: (n: number) => Promise<T>,
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt(n)
    } catch (error) {
      throwIfAborted(policy.signal)
      if (!(error instanceof WaybillError) || !error.retryable || n >= policy.retries) throw error
      // A longer wait than this is the caller's decision, not a retry's.
      if (error.retryAfterMs !== undefined && error.retryAfterMs > MAX_RETRY_AFTER_MS) throw error
      await sleep(retryDelayMs(n, policy.baseDelayMs, error.retryAfterMs), policy.signal)
    }
  }
}
