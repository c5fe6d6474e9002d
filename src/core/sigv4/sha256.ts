// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), synchronous and specialised for SigV4's hot path.
//
// Why not Web Crypto here: in workerd every crypto.subtle call costs several microseconds whatever
// the input, and a presigned URL needs two (a SHA-256 and an HMAC). Why not a general library: SigV4's
// canonical request and string to sign are ASCII by construction (everything variable in them is
// percent-encoded), so hashing can read char codes straight into the message schedule with no UTF-8
// encoding and no allocation, and the HMAC key's inner and outer pad blocks can be compressed once per
// signing key and reused for every URL. Key material itself is derived with Web Crypto (./crypto.ts).
//
// Inputs to `sha256AsciiHex` and `HmacSha256.signAsciiHex` must be ASCII (char codes < 128); the
// callers guarantee it. Every vector and differential test of the signer runs through this code.

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
])

const IV = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
])

// Scratch space, reused by every call: the isolate is single-threaded and nothing here awaits.
const W = new Int32Array(64)
const STATE = new Int32Array(8)
const INNER = new Int32Array(8)

// The rounds are unrolled by eight so the working variables rotate by renaming, not by copying
// (twice as fast in V8 as the textbook loop).
function compress(H: Int32Array): void {
  for (let t = 16; t < 64; t++) {
    const w15 = W[t - 15]!
    const w2 = W[t - 2]!
    W[t] =
      (W[t - 16]! +
        (((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3)) +
        W[t - 7]! +
        (((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10))) |
      0
  }
  let a = H[0]!
  let b = H[1]!
  let c = H[2]!
  let d = H[3]!
  let e = H[4]!
  let f = H[5]!
  let g = H[6]!
  let h = H[7]!
  let t1 = 0
  for (let t = 0; t < 64; t += 8) {
    t1 =
      (h +
        (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
        ((e & f) ^ (~e & g)) +
        K[t]! +
        W[t]!) |
      0
    d = (d + t1) | 0
    h =
      (t1 +
        ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
          ((a & b) ^ (a & c) ^ (b & c)))) |
      0
    t1 =
      (g +
        (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7))) +
        ((d & e) ^ (~d & f)) +
        K[t + 1]! +
        W[t + 1]!) |
      0
    c = (c + t1) | 0
    g =
      (t1 +
        ((((h >>> 2) | (h << 30)) ^ ((h >>> 13) | (h << 19)) ^ ((h >>> 22) | (h << 10))) +
          ((h & a) ^ (h & b) ^ (a & b)))) |
      0
    t1 =
      (f +
        (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7))) +
        ((c & d) ^ (~c & e)) +
        K[t + 2]! +
        W[t + 2]!) |
      0
    b = (b + t1) | 0
    f =
      (t1 +
        ((((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10))) +
          ((g & h) ^ (g & a) ^ (h & a)))) |
      0
    t1 =
      (e +
        (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7))) +
        ((b & c) ^ (~b & d)) +
        K[t + 3]! +
        W[t + 3]!) |
      0
    a = (a + t1) | 0
    e =
      (t1 +
        ((((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10))) +
          ((f & g) ^ (f & h) ^ (g & h)))) |
      0
    t1 =
      (d +
        (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7))) +
        ((a & b) ^ (~a & c)) +
        K[t + 4]! +
        W[t + 4]!) |
      0
    h = (h + t1) | 0
    d =
      (t1 +
        ((((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10))) +
          ((e & f) ^ (e & g) ^ (f & g)))) |
      0
    t1 =
      (c +
        (((h >>> 6) | (h << 26)) ^ ((h >>> 11) | (h << 21)) ^ ((h >>> 25) | (h << 7))) +
        ((h & a) ^ (~h & b)) +
        K[t + 5]! +
        W[t + 5]!) |
      0
    g = (g + t1) | 0
    c =
      (t1 +
        ((((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10))) +
          ((d & e) ^ (d & f) ^ (e & f)))) |
      0
    t1 =
      (b +
        (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7))) +
        ((g & h) ^ (~g & a)) +
        K[t + 6]! +
        W[t + 6]!) |
      0
    f = (f + t1) | 0
    b =
      (t1 +
        ((((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10))) +
          ((c & d) ^ (c & e) ^ (d & e)))) |
      0
    t1 =
      (a +
        (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7))) +
        ((f & g) ^ (~f & h)) +
        K[t + 7]! +
        W[t + 7]!) |
      0
    e = (e + t1) | 0
    a =
      (t1 +
        ((((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10))) +
          ((b & c) ^ (b & d) ^ (c & d)))) |
      0
  }
  H[0] = (H[0]! + a) | 0
  H[1] = (H[1]! + b) | 0
  H[2] = (H[2]! + c) | 0
  H[3] = (H[3]! + d) | 0
  H[4] = (H[4]! + e) | 0
  H[5] = (H[5]! + f) | 0
  H[6] = (H[6]! + g) | 0
  H[7] = (H[7]! + h) | 0
}

// The message being hashed is assembled in this buffer (it grows when a message does not fit) and
// read back as big-endian words. Callers append ASCII pieces, so no string is concatenated,
// flattened or UTF-8 encoded per URL.
let buffer = new Uint8Array(4096)
let view = new DataView(buffer.buffer)
let messageLength = 0

function ensure(extra: number): void {
  if (messageLength + extra + 72 <= buffer.length) return
  const grown = new Uint8Array(Math.max(messageLength + extra + 72, buffer.length * 2))
  grown.set(buffer.subarray(0, messageLength))
  buffer = grown
  view = new DataView(buffer.buffer)
}

/** Starts a new message in the shared buffer. */
export function messageStart(): void {
  messageLength = 0
}

/** Appends ASCII text (char codes < 128) to the message. */
export function messageAscii(text: string): void {
  const length = text.length
  ensure(length)
  // Locals, not the module-level variables, inside the loop: V8 keeps them in registers.
  const out = buffer
  const start = messageLength
  for (let i = 0; i < length; i++) out[start + i] = text.charCodeAt(i)
  messageLength = start + length
}

/** Appends bytes (a pre-encoded constant) to the message. */
export function messageBytes(bytes: Uint8Array): void {
  ensure(bytes.length)
  buffer.set(bytes, messageLength)
  messageLength += bytes.length
}

/** Pads the message in the buffer and hashes it into `out`, from `from` after `offsetBytes`. */
function hashMessage(from: Int32Array, offsetBytes: number, out: Int32Array): void {
  const length = messageLength
  // Padding: 0x80, zeros, then the length in bits as a 64-bit big-endian integer.
  const padded = (length + 9 + 63) & ~63
  buffer[length] = 0x80
  buffer.fill(0, length + 1, padded - 8)
  const bits = (offsetBytes + length) * 8
  view.setUint32(padded - 8, Math.floor(bits / 0x100000000))
  view.setUint32(padded - 4, bits >>> 0)
  out.set(from)
  for (let i = 0; i < padded; i += 64) {
    for (let j = 0; j < 16; j++) W[j] = view.getInt32(i + j * 4)
    compress(out)
  }
}

/** Hashes the ASCII `text` into `out`, continuing from `from` after `offsetBytes` bytes. */
function hashAscii(text: string, from: Int32Array, offsetBytes: number, out: Int32Array): void {
  messageStart()
  messageAscii(text)
  hashMessage(from, offsetBytes, out)
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

function stateHex(state: Int32Array): string {
  let out = ''
  for (let i = 0; i < 8; i++) {
    const w = state[i]!
    out +=
      HEX[(w >>> 24) & 0xff]! + HEX[(w >>> 16) & 0xff]! + HEX[(w >>> 8) & 0xff]! + HEX[w & 0xff]!
  }
  return out
}

const HEX_CODES = new Uint8Array([...'0123456789abcdef'].map((c) => c.charCodeAt(0)))

/** Appends the lower-case hex of a state to the message. */
function messageStateHex(state: Int32Array): void {
  ensure(64)
  for (let i = 0; i < 8; i++) {
    const w = state[i]!
    for (let shift = 28; shift >= 0; shift -= 4)
      buffer[messageLength++] = HEX_CODES[(w >>> shift) & 15]!
  }
}

/** Lower-case hex SHA-256 of the message assembled with `messageStart` and `messageAscii`/`Bytes`. */
export function messageSha256Hex(): string {
  hashMessage(IV, 0, STATE)
  return stateHex(STATE)
}

/** Lower-case hex SHA-256 of an ASCII string. */
export function sha256AsciiHex(text: string): string {
  hashAscii(text, IV, 0, STATE)
  return stateHex(STATE)
}

/** Compresses one block of the (≤ 64-byte) key XOR `pad` into a fresh state. */
function padState(key: Uint8Array, pad: number): Int32Array {
  const state = new Int32Array(IV)
  W.fill(0, 0, 16)
  for (let j = 0; j < 64; j++) W[j >> 2]! |= ((key[j] ?? 0) ^ pad) << (24 - (j & 3) * 8)
  compress(state)
  return state
}

/** Compresses the complete 64-byte blocks of the ASCII `text` into a copy of `from`. */
function absorbBlocks(text: string, from: Int32Array): Int32Array {
  const state = new Int32Array(from)
  for (let i = 0; i + 64 <= text.length; i += 64) {
    for (let j = 0; j < 16; j++) {
      const p = i + j * 4
      W[j] =
        (text.charCodeAt(p) << 24) |
        (text.charCodeAt(p + 1) << 16) |
        (text.charCodeAt(p + 2) << 8) |
        text.charCodeAt(p + 3)
    }
    compress(state)
  }
  return state
}

/**
 * HMAC-SHA-256 with a fixed key of at most 64 bytes, its pad blocks compressed once, and optionally
 * a fixed message prefix whose whole blocks are compressed once too (SigV4's string to sign starts
 * with the same algorithm, date and scope for every URL of a batch).
 *
 * @example
 * const mac = new HmacSha256(signingKeyBytes).withPrefix(`AWS4-HMAC-SHA256\n${date}\n${scope}\n`)
 * const signature = mac.signAsciiHex(canonicalRequestHash)
 */
export class HmacSha256 {
  readonly #inner: Int32Array
  readonly #outer: Int32Array
  readonly #prefixTail: string
  readonly #prefixBytes: number

  constructor(
    key: Uint8Array,
    state?: { inner: Int32Array; outer: Int32Array; tail: string; bytes: number },
  ) {
    if (state !== undefined) {
      this.#inner = state.inner
      this.#outer = state.outer
      this.#prefixTail = state.tail
      this.#prefixBytes = state.bytes
      return
    }
    if (key.length > 64) throw new RangeError('HMAC key longer than one block')
    this.#inner = padState(key, 0x36)
    this.#outer = padState(key, 0x5c)
    this.#prefixTail = ''
    this.#prefixBytes = 64
  }

  /** The same key with `prefix` (ASCII) placed before every message. */
  withPrefix(prefix: string): HmacSha256 {
    const text = this.#prefixTail + prefix
    const whole = text.length - (text.length % 64)
    return new HmacSha256(new Uint8Array(0), {
      inner: absorbBlocks(text.slice(0, whole), this.#inner),
      outer: this.#outer,
      tail: text.slice(whole),
      bytes: this.#prefixBytes + whole,
    })
  }

  /** Lower-case hex HMAC of an ASCII message (after the prefix, if any). */
  signAsciiHex(message: string): string {
    hashAscii(this.#prefixTail + message, this.#inner, this.#prefixBytes, INNER)
    return this.#outerHex()
  }

  /**
   * Lower-case hex HMAC of the hex SHA-256 of the assembled message (after the prefix): SigV4's
   * signature over its canonical request, without building either string.
   */
  signMessageDigestHex(): string {
    hashMessage(IV, 0, STATE)
    messageStart()
    messageAscii(this.#prefixTail)
    messageStateHex(STATE)
    hashMessage(this.#inner, this.#prefixBytes, INNER)
    return this.#outerHex()
  }

  #outerHex(): string {
    // Outer hash: the 32-byte inner digest, after the opad block.
    STATE.set(this.#outer)
    W.fill(0, 8, 16)
    for (let i = 0; i < 8; i++) W[i] = INNER[i]!
    W[8] = 0x80000000 | 0
    W[15] = (64 + 32) * 8
    compress(STATE)
    return stateHex(STATE)
  }
}
