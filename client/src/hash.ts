// SHA-256 of what an upload sends, by Web Crypto: the store checks each body against it, so bytes
// altered or cut off on the way are refused instead of stored. `crypto.subtle.digest` runs off the
// page's main thread in browsers, so hashing a part never freezes the page; it takes the whole
// body at once, so files are hashed a part at a time (a PUT is at most MAX_HASHED_PUT_BYTES).

/**
 * The base64 SHA-256 of a Blob, as S3's `x-amz-checksum-sha256` carries it.
 *
 * @example
 * const checksumSha256 = await sha256Base64(file.slice(0, 5 * 2 ** 20))
 */
export async function sha256Base64(blob: Blob): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()))
  let binary = ''
  for (const byte of digest) binary += String.fromCharCode(byte)
  return btoa(binary)
}
