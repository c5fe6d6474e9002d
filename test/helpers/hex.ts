// Hex, SHA-256, HMAC-SHA-256 and the SigV4 signing key for tests, in one place. Web Crypto, not
// waybill's own code, so tests can use them as the reference.

const encoder = new TextEncoder()

/** Lower-case hex of `bytes`. */
export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  let hex = ''
  for (const byte of new Uint8Array(bytes)) hex += byte.toString(16).padStart(2, '0')
  return hex
}

/** SHA-256 of a string's UTF-8, or of bytes. */
export async function sha256(data: string | BufferSource): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))
}

/** SHA-256 of a string's UTF-8 (or of bytes), as lower-case hex. */
export async function sha256Hex(data: string | BufferSource): Promise<string> {
  return toHex(await sha256(data))
}

/** SHA-256 as base64, the form of `x-amz-checksum-sha256`. */
export async function sha256Base64(data: BufferSource): Promise<string> {
  return btoa(String.fromCharCode(...(await sha256(data))))
}

/** HMAC-SHA-256 of a string's UTF-8 with a raw key. */
async function hmacSha256(key: BufferSource, data: string): Promise<ArrayBuffer> {
  const imported = await crypto.subtle.importKey(
    'raw',
    key,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  return crypto.subtle.sign('HMAC', imported, encoder.encode(data))
}

/** HMAC-SHA-256 as lower-case hex, the form of a SigV4 signature. */
export async function hmacSha256Hex(key: BufferSource, data: string): Promise<string> {
  return toHex(await hmacSha256(key, data))
}

/** The SigV4 signing key for a day, region and service, derived the long way. */
export async function sigV4SigningKey(
  secretAccessKey: string,
  shortDate: string,
  region: string,
  service = 's3',
): Promise<ArrayBuffer> {
  let key = await hmacSha256(encoder.encode(`AWS4${secretAccessKey}`), shortDate)
  for (const part of [region, service, 'aws4_request']) key = await hmacSha256(key, part)
  return key
}
