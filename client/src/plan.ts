// The part plan of a multipart upload: how a file is cut into parts. The client chooses it and
// sends it as `partSize` (its parts' checksums are of these parts); waybill checks it against the
// limits its OpenAPI document states, which generated.ts carries.

import { MAX_PARTS, MIN_PART_BYTES } from './generated.ts'

const MIB = 1024 * 1024

/** How a file of `size` bytes is cut: every part `partSize` bytes but the last. */
export interface PartPlan {
  size: number
  partSize: number
  partCount: number
}

/**
 * The part size for a file of `size` bytes: the smallest S3 allows (5 MiB), grown in whole MiB
 * until the parts fit in the most one upload may have (10,000).
 *
 * @example
 * partSizeFor(12 * 2 ** 20) // 5242880
 */
export function partSizeFor(size: number): number {
  return Math.max(MIN_PART_BYTES, Math.ceil(size / MAX_PARTS / MIB) * MIB)
}

/** The plan for `size` bytes in parts of `partSize` (waybill's choice when none is given). */
export function planFor(size: number, partSize = partSizeFor(size)): PartPlan {
  return { size, partSize, partCount: Math.max(1, Math.ceil(size / partSize)) }
}

/** The bytes of part `n` (1-based): `[start, end)`. */
export function partRange(plan: PartPlan, n: number): [number, number] {
  const start = (n - 1) * plan.partSize
  return [start, Math.min(start + plan.partSize, plan.size)]
}
