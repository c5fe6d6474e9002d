// Hex and SHA-256 helpers for tests, in one place.

/** Lower-case hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return hex
}

/** SHA-256 of a string's UTF-8 (or of bytes), as lower-case hex. */
export async function sha256Hex(data: string | BufferSource): Promise<string> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)))
}

/** SHA-256 as base64, the form of `x-amz-checksum-sha256`. */
export async function sha256Base64(data: BufferSource): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data))
  return btoa(String.fromCharCode(...digest))
}
