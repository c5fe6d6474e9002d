// Multipart uploads: how a length is cut into parts, and what S3 makes of the parts once they are
// put together (its ETag), to recognise a completed upload afterwards.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html
//
// Pure: no I/O.

import { hexDecode, hexEncode } from '../bytes'
import { MAX_PARTS, MIN_PART_SIZE_BYTES } from '../limits'

const MIB = 1024 * 1024

/**
 * The part size for an upload: the caller's, or 5 MiB grown in whole MiB until 10,000 parts fit.
 *
 * @example
 * choosePartSize(12 * 2 ** 20, undefined) // 5242880
 */
export function choosePartSize(contentLength: number, requested: number | undefined): number {
  const least = Math.max(MIN_PART_SIZE_BYTES, Math.ceil(contentLength / MAX_PARTS / MIB) * MIB)
  return Math.max(requested ?? least, least)
}

/** The number of parts a plan makes of `contentLength` bytes. */
export function partCountOf(contentLength: number, partSize: number): number {
  return Math.max(1, Math.ceil(contentLength / partSize))
}

/** The exact size of part `n` (1-based) of `contentLength` bytes cut into `partSize` parts. */
export function partSizeOf(contentLength: number, partSize: number, n: number): number {
  const count = partCountOf(contentLength, partSize)
  return n < count ? partSize : contentLength - partSize * (count - 1)
}

/** Strong ETags compare without their quotes (some stores quote them, some clients strip them). */
export function bareEtag(etag: string): string {
  return etag.replace(/^"|"$/g, '')
}

const HEX_MD5 = /^[0-9a-f]{32}$/i

/**
 * The ETag S3 gives the object a multipart upload of these parts makes: the MD5 of the parts' MD5s
 * (their ETags as bytes), then `-<count>`. Undefined when a part's ETag is not an MD5, as with
 * stores that make ETags otherwise.
 *
 * @example
 * await multipartEtag(['"a…"', '"b…"']) // '"<md5 hex>-2"'
 */
export async function multipartEtag(partEtags: readonly string[]): Promise<string | undefined> {
  const bytes = new Uint8Array(partEtags.length * 16)
  for (let i = 0; i < partEtags.length; i++) {
    const hex = bareEtag(partEtags[i]!)
    if (!HEX_MD5.test(hex)) return undefined
    bytes.set(hexDecode(hex), i * 16)
  }
  const digest = new Uint8Array(await crypto.subtle.digest('MD5', bytes))
  return `"${hexEncode(digest)}-${partEtags.length}"`
}
